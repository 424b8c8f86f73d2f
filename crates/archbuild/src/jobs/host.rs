//! Host objects of a host library's sources (`Library`): each source's host side compiled once,
//! with its packed fat binary embedded the way nvcc embeds its own (`host/steps.rs` has the
//! steps). Looked up like a cicc job, cheapest first:
//!   1. *direct mode*: the host job's key (`keys::host_job`: settings, host flags, stub, module
//!      ID, fat binary) has a manifest mapping the state of every file the host preprocessor
//!      read to the object's key: nothing runs;
//!   2. *preprocessor mode*: the host preprocessor runs and the object is keyed on its text;
//!   3. `cudafe++` and the host compiler.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Instant, SystemTime};

use super::{Failure, HostSideOut, JobOut, JobRunner, Status};
use crate::base::process::Spawns;
use crate::base::store::{Key, Ns, Store};
use crate::cache::deps::{self, Lookup};
use crate::host::steps::{self, HostFiles, HostSteps};
use crate::jobs::keys;
use crate::plan::{Job, Module, Phase};
use crate::report::Served;

/// One source's host object.
#[derive(Debug)]
pub(crate) struct HostObject {
    pub bytes: Vec<u8>,
    /// From the cache (direct or preprocessor mode) or compiled.
    pub served: Served,
    pub seconds: f64,
    /// The host compiler's command, when it ran.
    pub command: Option<String>,
    /// What `cudafe++` and the host compiler printed.
    pub output: String,
    /// The files the host preprocessor read, outside the toolkit.
    pub deps: Vec<PathBuf>,
}

impl JobRunner<'_> {
    /// The host object of library source `m`, from its cicc jobs' host side and its packed fat
    /// binary. A hit in `ARCHBUILD_VERIFY`'s sample is compiled again and compared.
    pub(crate) fn host_object(
        &self,
        m: usize,
        jobs: &[Job],
        done: &[&JobOut],
        fatbin: &[u8],
        host_flags: &[String],
    ) -> Result<HostObject, Failure> {
        let module = &self.modules[m];
        let side = stub_source(m, jobs, done).ok_or_else(|| Failure {
            command: format!("host side of {}", module.name),
            status: Status::NoHostSide,
            output: "no cicc job of this source left its stub and module ID".into(),
        })?;
        let (object, key) = self.host_object_cached(m, side, fatbin, host_flags)?;
        if let Some(key) = key.filter(|k| object.served.cached() && self.verify.samples(k)) {
            self.verify_host(m, side, fatbin, host_flags, &object, &key);
        }
        Ok(object)
    }

    /// Direct mode: the object whose manifest matches every input's state, with its key.
    fn host_direct(
        &self,
        mk: &Key,
        arch_list: &str,
        start: Instant,
    ) -> Option<(HostObject, Option<Key>)> {
        let store = self.store.as_ref()?;
        let (roots, hashes) = (&self.roots, &self.hashes);
        let Lookup::Hit(rk, deps, _) =
            deps::lookup(store, mk, roots, hashes, arch_list, self.observing())
        else {
            return None;
        };
        if self.clock(&deps).is_some() {
            return None;
        }
        let object = HostObject {
            bytes: store.get(Ns::HostObj.dir(), &rk)?,
            served: Served::Hit,
            seconds: start.elapsed().as_secs_f64(),
            command: None,
            output: String::new(),
            deps: self.outside_toolkit(deps),
        };
        Some((object, Some(rk)))
    }

    /// Direct mode, preprocessor mode, then the compile; with the object's cache key.
    fn host_object_cached(
        &self,
        m: usize,
        side: &HostSideOut,
        fatbin: &[u8],
        host_flags: &[String],
    ) -> Result<(HostObject, Option<Key>), Failure> {
        let module = &self.modules[m];
        let store = self.store.as_ref();
        let arch_list = crate::plan::arch_list_macro(module);
        let mk = keys::host_job(
            &self.cicc_base,
            &self.roots,
            module,
            keys::HostCompile {
                flags: host_flags,
                launched: self.settings.launcher.is_some(),
            },
            &Key::of(&side.stub),
            &side.module_id,
            &Key::of(fatbin),
        );
        let start = Instant::now();
        // Host flags with a clock macro (`-DSTAMP=__TIME__`) make the object uncacheable.
        let host_clock = deps::clock_in_flags(host_flags).is_some();
        if let Some(hit) = self
            .host_direct(&mk, &arch_list, start)
            .filter(|_| !host_clock)
        {
            return Ok(hit);
        }
        let dir = self.tmp.path().join(format!("host-{m}"));
        let (files, steps) = self.host_prepare(module, host_flags, &dir, Some(&self.spawns))?;
        let started = SystemTime::now();
        let mut preprocess = steps.preprocess.clone();
        let log = crate::cache::observe::log_path(&files.deps);
        self.settings.observation.wrap(&mut preprocess, &log);
        let ii = self.execute(&preprocess, &files.ii)?.bytes;
        let deps = self.read_deps(&files.deps, module);
        let seen = self.seen(&files.deps, module);
        let pk = keys::host_preprocessed(&mk, &ii);
        let cacheable = self.clock(&deps).is_none() && !host_clock;
        // The manifest maps this compile's inputs to `pk`, for direct mode next time.
        let remember = |store: &Store| {
            let read = (&deps[..], &seen);
            self.record_manifest(&self.roots, store, (&mk, &pk), read, started, &arch_list);
        };
        if let (Some(store), true) = (store, cacheable) {
            if let Some(bytes) = store.get(Ns::HostObj.dir(), &pk) {
                remember(store);
                let object = HostObject {
                    bytes,
                    served: Served::Preprocessed,
                    seconds: start.elapsed().as_secs_f64(),
                    command: None,
                    output: String::new(),
                    deps: self.outside_toolkit(deps),
                };
                return Ok((object, Some(pk)));
            }
        }
        let (bytes, command, output) =
            self.host_compile(side, fatbin, &files, &steps, Some(&self.spawns))?;
        let mut key = None;
        if let (Some(store), true) = (store, cacheable) {
            if store.put(Ns::HostObj.dir(), &pk, &bytes).is_ok() {
                remember(store);
                key = Some(pk);
            }
        }
        let object = HostObject {
            bytes,
            served: Served::compiled(None),
            seconds: start.elapsed().as_secs_f64(),
            command: Some(command),
            output,
            deps: self.outside_toolkit(deps),
        };
        Ok((object, key))
    }

    /// The directory's file names and nvcc's host steps for them.
    fn host_prepare(
        &self,
        module: &Module,
        host_flags: &[String],
        dir: &Path,
        spawns: Option<&Spawns>,
    ) -> Result<(HostFiles, HostSteps), Failure> {
        std::fs::create_dir_all(dir).map_err(|e| io_failure(dir, e))?;
        let files = HostFiles::new(dir, &module.source);
        let steps = self.host_steps(module, host_flags, &files, spawns)?;
        Ok((files, steps))
    }

    /// `cudafe++` and the host compiler, after the preprocessor wrote `files.ii`: the object,
    /// the compiler's command and what both printed.
    fn host_compile(
        &self,
        side: &HostSideOut,
        fatbin: &[u8],
        files: &HostFiles,
        steps: &HostSteps,
        spawns: Option<&Spawns>,
    ) -> Result<(Vec<u8>, String, String), Failure> {
        let dir = files.cpp.parent().unwrap_or(Path::new("."));
        write(&files.module_id, &side.module_id)?;
        write(&dir.join(&files.stub_name), &side.stub)?;
        let embedded = match self.settings.device_code {
            crate::plan::DeviceCode::Whole => archbuild_fatbin::embedded_c_source(fatbin),
            crate::plan::DeviceCode::Relocatable => {
                archbuild_fatbin::embedded_relocatable_c_source(fatbin)
            }
        };
        write(&dir.join(&files.fatbin_c_name), embedded.as_bytes())?;
        let fe = self.execute_in(&steps.cudafe, &files.cpp, spawns)?;
        // The host compile is an ordinary C++ compile: a launcher (sccache, and through it
        // sccache-dist's build servers) takes it as it is.
        let compile = steps
            .compile
            .clone()
            .with_launcher(self.settings.launcher.as_deref());
        let cc = self.execute_in(&compile, &files.object, spawns)?;
        let mut output = fe.log.output;
        output.push_str(&cc.log.output);
        Ok((cc.bytes, cc.log.command, output))
    }

    /// `ARCHBUILD_VERIFY` for a host object served from the cache: every step again, without
    /// the cache, and the bytes compared.
    fn verify_host(
        &self,
        m: usize,
        side: &HostSideOut,
        fatbin: &[u8],
        host_flags: &[String],
        served: &HostObject,
        key: &Key,
    ) {
        let module = &self.modules[m];
        let dir = self.tmp.path().join(format!("verify-host-{m}"));
        let fresh = self
            .host_prepare(module, host_flags, &dir, None)
            .and_then(|(files, steps)| {
                self.execute_in(&steps.preprocess, &files.ii, None)?;
                self.host_compile(side, fatbin, &files, &steps, None)
            });
        let fresh = fresh.map(|(bytes, _, _)| bytes).unwrap_or_default();
        self.verified.fetch_add(1, Ordering::SeqCst);
        if fresh == served.bytes {
            return;
        }
        if let Some(store) = self.store.as_ref() {
            let _ = std::fs::remove_file(store.entry_path(Ns::HostObj.dir(), key));
        }
        let mut first = self.mismatch.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert(crate::error::Error::VerifyMismatch {
            module: module.name.clone(),
            job: "host object".into(),
            detail: format!(
                "{} cached bytes, {} compiled now, served in {} mode",
                served.bytes.len(),
                fresh.len(),
                if served.served == Served::Preprocessed {
                    "preprocessor"
                } else {
                    "direct"
                }
            ),
            key_holds: keys::FIELDS
                .iter()
                .filter(|f| f.1.split(' ').any(|s| s == "host"))
                .map(|f| format!("  {}: {}", f.0, f.2))
                .collect::<Vec<_>>()
                .join("\n"),
        });
    }

    /// nvcc's host steps for this source (`nvcc --dryrun -c`, one cheap process).
    fn host_steps(
        &self,
        module: &Module,
        host_flags: &[String],
        files: &HostFiles,
        spawns: Option<&Spawns>,
    ) -> Result<HostSteps, Failure> {
        let cmd = steps::dryrun_command(self.tk, self.settings, module, host_flags, &files.object);
        let text = self.dryrun(&cmd, spawns)?;
        let source = crate::plan::relative(&self.settings.base_dir, &module.source);
        steps::parse(
            &text,
            files,
            &source.to_string_lossy(),
            &self.settings.base_dir,
            self.settings.compiler_env.vars(),
        )
        .map_err(|e| Failure {
            command: cmd.display(),
            status: Status::UnexpectedPlan,
            output: format!(
                "{}; nvcc's plan for this source is not one archbuild knows how to split into \
                 host and device steps:\n{text}",
                e.0
            ),
        })
    }
}

/// The host side nvcc would compile with: that of the source's last virtual arch (nvcc runs
/// cicc per arch with one stub name, so the last one's stands).
fn stub_source<'a>(m: usize, jobs: &[Job], done: &[&'a JobOut]) -> Option<&'a HostSideOut> {
    stub_job(m, jobs).and_then(|i| done[i].host_side.as_ref())
}

/// The cicc job whose stub module `m`'s host side is compiled with: the last of the build's
/// toolkit — jobs are planned in the list's order, the order of nvcc's `-gencode` flags — since
/// that toolkit compiles the host side; a PTX or legacy toolkit's cicc job writes a stub of its
/// own release. Without one, the last cicc job of any toolkit.
fn stub_job(m: usize, jobs: &[Job]) -> Option<usize> {
    let cicc = |j: &Job| j.module == m && matches!(j.phase, Phase::Cicc(_));
    let last = |by_build: bool| {
        jobs.iter()
            .enumerate()
            .rev()
            .find(|(_, j)| cicc(j) && (!by_build || j.maker == crate::plan::Maker::Build))
            .map(|(i, _)| i)
    };
    last(true).or_else(|| last(false))
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    std::fs::write(path, bytes).map_err(|e| io_failure(path, e))
}

fn io_failure(path: &Path, e: std::io::Error) -> Failure {
    Failure {
        command: format!("write {}", path.display()),
        status: Status::Io,
        output: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Maker;

    #[test]
    fn the_host_side_takes_the_stub_of_the_build_s_toolkit() {
        let job = |module, arch: u32, maker| Job {
            module,
            phase: Phase::Cicc(archbuild_arch::Arch::new(
                archbuild_arch::ComputeCapability::new(arch / 10, arch % 10),
                archbuild_arch::Variant::Plain,
            )),
            maker,
            dep: None,
            unit: 0,
            links: vec![],
            targets: vec![],
        };
        // `8.6 9.0+PTX` with a PTX toolkit: its compute_90 job is planned last.
        let jobs = [
            job(0, 86, Maker::Build),
            job(0, 90, Maker::Build),
            job(0, 90, Maker::Ptx),
            job(1, 61, Maker::Legacy),
        ];
        assert_eq!(stub_job(0, &jobs), Some(1), "not the PTX toolkit's stub");
        assert_eq!(
            stub_job(1, &jobs),
            Some(3),
            "a module of the legacy toolkit alone"
        );
        assert_eq!(stub_job(2, &jobs), None);
    }
}
