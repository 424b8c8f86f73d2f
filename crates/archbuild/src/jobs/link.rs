//! Device-link jobs of relocatable device code: every file's relocatable cubin of one arch
//! linked into the image the fat binary holds (`nvcc -dlink -cubin`), or every file's LTO-IR of
//! one virtual arch linked into whole-program PTX (`nvlink -dlto --emit-ptx`).
//!
//! Keyed like a ptxas job, on content: the toolkit and settings (`ptxas_base`), the target,
//! nvlink's command line as the cubin records it and each input's bytes in the module's order.
//! So an edit that leaves every file's relocatable output unchanged skips the link, and one that
//! changes any of them links again. A hit in `ARCHBUILD_VERIFY`'s sample is linked again and
//! compared.

use super::runner::{keep_log, Failure, JobOut, JobRunner, Status};
use crate::base::store::Ns;
use crate::error::Error;
use crate::plan::{link_command, link_input_name, nvvm_dir, LINK_OUT};
use crate::report::Served;
use archbuild_arch::{Target, TargetKind};

impl JobRunner<'_> {
    /// Job `j`: the device link for `target` of its module's files' outputs `inputs`.
    pub(super) fn run_link(
        &self,
        j: usize,
        target: Target,
        inputs: &[&JobOut],
    ) -> Result<JobOut, Failure> {
        let job = &self.jobs[j];
        let store = self.store.as_ref();
        let (in_ns, out_ns) = match target.kind {
            TargetKind::Ptx => (Ns::Ptx, Ns::Ptx),
            _ => (Ns::Cubin, Ns::Cubin),
        };
        let missing = |u: usize| Failure {
            command: job.label(),
            status: Status::Vanished,
            output: format!("the device link's input {u} is missing from the cache"),
        };
        let bytes: Vec<&[u8]> = inputs
            .iter()
            .enumerate()
            .map(|(u, i)| i.bytes(store, in_ns).ok_or_else(|| missing(u)))
            .collect::<Result<_, _>>()?;
        let dir = self.tmp.path().join(j.to_string());
        let cmd = self.link_cmd(j, target, bytes.len(), &dir)?;
        let key = super::keys::link_job(self.side(j).ptxas_base, target, &cmd.args, &bytes);
        if let Some(store) = store {
            if store.contains(out_ns.dir(), &key) {
                let hit = JobOut::cached(Served::Hit, key, vec![]).with_log(store);
                if self.verify.samples(&key) {
                    self.verify_link(j, &cmd, &bytes, &hit, out_ns);
                }
                return Ok(hit);
            }
        }
        let ran = self.link_now(&cmd, target, &bytes, true)?;
        let mut stored = None;
        let mut note = None;
        if let Some(store) = store {
            match store.put(out_ns.dir(), &key, &ran.bytes) {
                Ok(()) => {
                    keep_log(store, &key, &ran);
                    stored = Some(key);
                }
                Err(e) => note = Some(super::cicc::not_stored("device link", &e)),
            }
        }
        Ok(JobOut::fresh(Served::compiled(note), stored, ran, vec![]))
    }

    /// Job `j`'s nvlink command for `n` inputs in `dir` (with a libNVVM for a PTX link).
    fn link_cmd(
        &self,
        j: usize,
        target: Target,
        n: usize,
        dir: &std::path::Path,
    ) -> Result<crate::base::process::Cmd, Failure> {
        let tk = self.side(j).tk;
        let io = |command: String, e: std::io::Error| Failure {
            command,
            status: Status::Io,
            output: e.to_string(),
        };
        let nvvm = match target.kind {
            TargetKind::Ptx => nvvm_dir(tk, self.tmp.path()).map_err(|e| {
                io(
                    format!("find libNVVM for nvlink in {}", tk.root().display()),
                    e,
                )
            })?,
            _ => std::path::PathBuf::new(),
        };
        let names = (0..n).map(|u| link_input_name(target, u)).collect();
        Ok(link_command(tk, self.settings, target, (names, &nvvm), dir))
    }

    /// Writes the inputs into the command's folder and runs the link (counted in the build's
    /// processes when `counted`).
    fn link_now(
        &self,
        cmd: &crate::base::process::Cmd,
        target: Target,
        inputs: &[&[u8]],
        counted: bool,
    ) -> Result<super::runner::Ran, Failure> {
        let dir = cmd.cwd.clone().unwrap_or_default();
        std::fs::create_dir_all(&dir).map_err(|e| Failure {
            command: format!("create {}", dir.display()),
            status: Status::Io,
            output: e.to_string(),
        })?;
        for (u, bytes) in inputs.iter().enumerate() {
            let path = dir.join(link_input_name(target, u));
            std::fs::write(&path, bytes).map_err(|e| Failure {
                command: format!("write {}", path.display()),
                status: Status::Io,
                output: e.to_string(),
            })?;
        }
        let out = dir.join(LINK_OUT);
        let spawns = counted.then_some(&self.spawns);
        self.execute_in(cmd, &out, spawns)
    }

    /// A sampled hit linked again (not counted as the build's) and compared.
    fn verify_link(
        &self,
        j: usize,
        cmd: &crate::base::process::Cmd,
        inputs: &[&[u8]],
        hit: &JobOut,
        ns: Ns,
    ) {
        let store = self.store.as_ref();
        let Some(cached) = hit.bytes(store, ns) else {
            return;
        };
        let dir = self.tmp.path().join(format!("verify-{j}"));
        let mut again = cmd.clone();
        again.cwd = Some(dir.clone());
        let target = match self.jobs[j].phase {
            crate::plan::Phase::Link(t) => t,
            _ => return,
        };
        let fresh = self
            .link_now(&again, target, inputs, false)
            .map(|r| r.bytes)
            .unwrap_or_default();
        self.verified
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if cached == fresh.as_slice() {
            return;
        }
        if let (Some(store), Some(key)) = (store, &hit.key) {
            let _ = std::fs::remove_file(store.entry_path(ns.dir(), key));
        }
        let job = &self.jobs[j];
        let mut first = self.mismatch.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert(Error::VerifyMismatch {
            module: self.modules[job.module].name.clone(),
            job: job.label(),
            detail: format!("{} cached bytes, {} linked now", cached.len(), fresh.len()),
            key_holds: format!(
                "settings (ptxas stage); target={target}; nvlink={}; inputs={} (their content)",
                cmd.display(),
                inputs.len()
            ),
        });
    }
}

/// The device link of a host library of relocatable device code.
impl JobRunner<'_> {
    /// `nvcc -dlink` of the library's host objects for its cubin targets, as nvcc's own
    /// separate-compilation build runs it: nvlink links the relocatable cubins each object embeds
    /// (`__nv_relfatbin`) and writes the code that registers the linked fat binary once with the
    /// CUDA runtime, on behalf of every object (`__cudaRegisterLinkedBinary_<module ID>`), and the
    /// host compiler compiles it with `crt/link.stub`. Keyed on the settings, the host flags, the
    /// targets and every object's content, in order.
    pub(crate) fn library_device_link(
        &self,
        objects: &[(String, Vec<u8>)],
        targets: &[Target],
        host_flags: &[String],
    ) -> Result<super::HostObject, Failure> {
        let start = std::time::Instant::now();
        let gencode: Vec<String> = targets
            .iter()
            .filter(|t| t.kind == TargetKind::Cubin)
            .map(|t| {
                let sm = t.arch.sm_name();
                format!("-gencode=arch=compute_{sm},code=sm_{sm}")
            })
            .collect();
        let dir = self.tmp.path().join("dlink");
        let out = dir.join("dlink.o");
        let mut args: Vec<std::ffi::OsString> = vec!["-dlink".into()];
        args.extend(gencode.iter().map(Into::into));
        args.extend(self.settings.nvcc_flags.iter().map(Into::into));
        args.extend(host_flags.iter().map(Into::into));
        args.extend(["-o".into(), "dlink.o".into()]);
        args.extend(objects.iter().map(|(name, _)| name.into()));
        let mut cmd = crate::base::process::Cmd::new(self.tk.nvcc())
            .args(args)
            .hermetic(self.settings.compiler_env.vars());
        cmd.cwd = Some(dir.clone());
        let key = super::keys::library_link(&self.cicc_base, host_flags, &gencode, objects);
        let store = self.store.as_ref();
        if let Some(bytes) = store.and_then(|s| s.get(Ns::HostObj.dir(), &key)) {
            return Ok(super::HostObject {
                bytes,
                served: Served::Hit,
                seconds: start.elapsed().as_secs_f64(),
                command: None,
                output: String::new(),
                deps: Vec::new(),
            });
        }
        let io = |path: &std::path::Path, e: std::io::Error| Failure {
            command: format!("write {}", path.display()),
            status: Status::Io,
            output: e.to_string(),
        };
        std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
        for (name, bytes) in objects {
            let path = dir.join(name);
            std::fs::write(&path, bytes).map_err(|e| io(&path, e))?;
        }
        let ran = self.execute(&cmd, &out)?;
        if let Some(store) = store {
            let _ = store.put(Ns::HostObj.dir(), &key, &ran.bytes);
        }
        Ok(super::HostObject {
            bytes: ran.bytes,
            served: Served::compiled(None),
            seconds: ran.seconds,
            command: Some(ran.log.command),
            output: ran.log.output,
            deps: Vec::new(),
        })
    }
}
