//! cicc jobs (source → PTX): the three ways to a result of the module docs above, and the
//! follower's fourth (`plan/share.rs`): the lead's PTX, retargeted, when this arch's
//! preprocessed text is byte-identical to the lead's.

use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use archbuild_arch::Arch;

use super::{keep_log, Failure, HostSideOut, JobOut, JobRunner, Ran, RunLog, Status};
use crate::base::process::Cmd;
use crate::base::store::{Key, Ns, Store};
use crate::cache::deps::{self, Lookup, Roots};
use crate::cache::observe::{self, Seen};
use crate::cache::preprocessed::{self, LineInfo};
use crate::jobs::cicc_split;
use crate::jobs::keys;
use crate::plan::exec::Input;
use crate::plan::share;
use crate::plan::{cicc_command, keep_files, lto_command, preprocess_command, Emit, Module, Phase};
use crate::report::{Miss, Served};
use crate::toolkit::nvcc::Toolkit;

/// What a direct-mode lookup found.
enum Direct {
    Hit(Box<JobOut>),
    /// A manifest exists for these inputs, but no entry serves their state: why.
    Known(Miss),
    Unknown,
}

/// What a follower found before its lead's PTX existed (the same preprocessed text), kept
/// while it waits so it resumes without preprocessing again.
pub(super) struct Parked {
    miss: Option<Miss>,
    pk: Key,
    p: Preprocessed,
    lead_ii: Option<Key>,
}

/// One preprocessing run's text and what it read.
struct Preprocessed {
    text: Vec<u8>,
    deps: Vec<PathBuf>,
    seen: Seen,
    started: SystemTime,
    seconds: f64,
}

/// What every step of one cicc job needs, made once per job.
struct CiccJob<'m> {
    j: usize,
    /// The toolkit that runs it, and its keys' parts.
    side: super::Side<'m>,
    module: &'m Module,
    arch: Arch,
    /// PTX or LTO-IR.
    emit: Emit,
    /// Direct mode's key: the settings, the source's portable path, the arch (and lead).
    mk: Key,
    /// Whatever preprocessing cannot see that still shapes the output: the settings, the arch,
    /// what is emitted, and the source's relative path (cicc's original path, which seeds
    /// internal symbol names).
    inputs_key: Key,
    /// The `__CUDA_ARCH_LIST__` value of the module, part of every recorded input state.
    arch_list: String,
}

/// A PTX to store, with what its manifest records.
struct PtxEntry<'r> {
    key: Key,
    ran: &'r Ran,
    host_side: &'r Option<HostSideOut>,
    deps: &'r [PathBuf],
    seen: &'r Seen,
    started: SystemTime,
}

impl JobRunner<'_> {
    fn cicc_job<'m>(
        &'m self,
        j: usize,
        module: &'m Module,
        arch: Arch,
        lead: Option<Arch>,
        emit: Emit,
    ) -> CiccJob<'m> {
        let side = self.side(j);
        let (direct, compile) = emit.key_labels();
        CiccJob {
            j,
            side,
            module,
            arch,
            emit,
            mk: keys::cicc_job(direct, side.cicc_base, side.roots, module, arch, lead).finish(),
            inputs_key: keys::cicc_job(compile, side.cicc_base, side.roots, module, arch, lead)
                .finish(),
            arch_list: crate::plan::arch_list_macro(module),
        }
    }

    /// A cicc job (or an LTO-IR job, `emit`): direct mode, then preprocessor mode, then the
    /// compile.
    pub(super) fn run_cicc(
        &self,
        j: usize,
        module: &Module,
        arch: Arch,
        emit: Emit,
    ) -> Result<JobOut, Failure> {
        let job = self.cicc_job(j, module, arch, None, emit);
        let miss = match self.direct(&job) {
            Direct::Hit(out) => return Ok(*out),
            Direct::Known(miss) => Some(miss),
            Direct::Unknown => None,
        };
        let mut pre = None;
        // Preprocessor mode pays off only when something was built before: on a first build it
        // would be a second preprocessing (the compile's kept output gives the same key).
        if let (Some(store), true) = (self.store.as_ref(), miss.is_some()) {
            let p = self.preprocess(job.side.tk, &j.to_string(), module, arch)?;
            let pk = self.preprocessed_key(job.side.roots, &job.inputs_key, &p.text, &p.deps);
            if let Some(out) = self.serve_preprocessed(store, &job, &pk, &p) {
                return Ok(out);
            }
            pre = Some((pk, p));
        }
        let miss = self.store.as_ref().map(|_| miss.unwrap_or(Miss::New));
        self.compile(&job, pre, miss)
    }

    /// A follower waiting for its lead's PTX: parked with what it found, its worker given back.
    fn park(&self, j: usize, parked: Parked) -> Result<Option<JobOut>, Failure> {
        if let Ok(mut m) = self.parked.lock() {
            m.insert(j, parked);
            return Ok(None);
        }
        Err(Failure {
            command: format!("cicc job {j}"),
            status: Status::NotStarted,
            output: "the table of waiting jobs is poisoned".into(),
        })
    }

    /// A follower's cicc job, after its lead's: the cache as for any cicc job, else one
    /// preprocessing run, and the lead's PTX with `.target` rewritten when the preprocessed
    /// texts are byte-identical; otherwise its own compile.
    pub(super) fn run_follower(
        &self,
        j: usize,
        module: &Module,
        arch: Arch,
        lead: Input<'_, JobOut>,
    ) -> Result<Option<JobOut>, Failure> {
        let store = self.store.as_ref();
        let lead_job = self.jobs[j].dep.unwrap_or(j);
        let Phase::Cicc(lead_arch) = self.jobs[lead_job].phase else {
            return self.run_cicc(j, module, arch, Emit::Ptx).map(Some);
        };
        let job = self.cicc_job(j, module, arch, Some(lead_arch), Emit::Ptx);
        let parked = self.parked.lock().ok().and_then(|mut m| m.remove(&j));
        let Parked {
            miss,
            pk,
            p,
            lead_ii,
        } = match parked {
            Some(parked) => parked,
            None => {
                let miss = match self.direct(&job) {
                    Direct::Hit(out) => return Ok(Some(*out)),
                    Direct::Known(miss) => store.map(|_| miss),
                    Direct::Unknown => store.map(|_| Miss::New),
                };
                let p = self.preprocess(job.side.tk, &j.to_string(), module, arch)?;
                let pk = self.preprocessed_key(job.side.roots, &job.inputs_key, &p.text, &p.deps);
                if let Some(store) = store {
                    if let Some(out) = self.serve_preprocessed(store, &job, &pk, &p) {
                        return Ok(Some(out));
                    }
                }
                Parked {
                    miss,
                    pk,
                    p,
                    lead_ii: None,
                }
            }
        };
        // A lead still running, or served by direct mode, has no preprocessed text here: one
        // more preprocessing run (cheap next to cicc) decides whether its PTX serves this arch,
        // and a follower whose text differs compiles at once instead of waiting for the lead.
        let lead_ii = match lead.done().and_then(|l| l.ii).or(lead_ii) {
            Some(k) => Some(k),
            None => self
                .preprocess(job.side.tk, &format!("{j}-lead"), module, lead_arch)
                .ok()
                .map(|lp| Key::of(&lp.text)),
        };
        let ii = Key::of(&p.text);
        if lead_ii != Some(ii) {
            return self.compile(&job, Some((pk, p)), miss).map(Some);
        }
        // The same text: the lead's PTX serves this arch once it exists. Until then the job
        // gives its worker back (`Ok(None)`) and resumes here with what it found.
        let Input::Done(lead) = lead else {
            let parked = Parked {
                miss,
                pk,
                p,
                lead_ii,
            };
            return self.park(j, parked);
        };
        let shared = lead
            .bytes(store, Ns::Ptx)
            .and_then(|ptx| share::retarget(ptx, lead_arch, arch));
        // A follower needs the lead's host side too (the same text declares the same kernels).
        let host_side = lead.host_side.clone();
        let (Some(bytes), false) = (shared, host_side.is_none()) else {
            return self.compile(&job, Some((pk, p)), miss).map(Some);
        };
        let ran = shared_run(lead, bytes, p.seconds, (lead_arch, arch));
        let mut key = None;
        let mut note = self.clock_in(job.side.roots, &p.deps);
        if let (Some(store), None) = (store, &note) {
            let entry = PtxEntry {
                key: pk,
                ran: &ran,
                host_side: &host_side,
                deps: &p.deps,
                seen: &p.seen,
                started: p.started,
            };
            match self.store_ptx(store, &job, entry) {
                Ok(k) => key = Some(k),
                Err(why) => note = Some(why),
            }
        }
        let read = self.read(&job, &p.deps, &p.seen);
        let deps = super::outside(job.side.roots, p.deps);
        let served = Served::Shared {
            lead: lead_arch,
            note,
        };
        let mut out = JobOut::fresh(served, key, ran, deps);
        out.read = read;
        out.ii = Some(ii);
        out.host_side = host_side;
        Ok(Some(out))
    }

    /// Stores a compiled PTX with its host side, log and manifest: its key, or the job's note
    /// saying why it was not stored.
    fn store_ptx(&self, store: &Store, job: &CiccJob, e: PtxEntry) -> Result<Key, String> {
        match store.put(Ns::Ptx.dir(), &e.key, &e.ran.bytes) {
            Ok(()) if keep_host_side(store, &e.key, e.host_side) => {
                keep_log(store, &e.key, e.ran);
                let (mk, list) = (&job.mk, &job.arch_list);
                let read = (e.deps, e.seen);
                self.record_manifest(job.side.roots, store, (mk, &e.key), read, e.started, list);
                Ok(e.key)
            }
            Ok(()) => Err(NOT_STORED_HOST_SIDE.to_owned()),
            Err(err) => Err(not_stored("PTX", &err)),
        }
    }

    /// Direct mode: the manifest maps the state of every input to the PTX's key.
    fn direct(&self, job: &CiccJob) -> Direct {
        let Some(store) = self.store.as_ref() else {
            return Direct::Unknown;
        };
        let ptx = Ns::Ptx.dir();
        let (roots, hashes) = (job.side.roots, &self.hashes);
        match deps::lookup(
            store,
            &job.mk,
            roots,
            hashes,
            &job.arch_list,
            self.observing(),
        ) {
            // An entry made by a version that did not know clocks is not served either.
            Lookup::Hit(rk, deps, read)
                if store.contains(ptx, &rk) && self.clock_in(roots, &deps).is_none() =>
            {
                let Some(host_side) = cached_host_side(store, &rk, job.module) else {
                    return Direct::Known(Miss::NoHostSide);
                };
                let deps = super::outside(roots, deps);
                let mut out = JobOut::cached(Served::Hit, rk, deps).with_log(store);
                out.host_side = host_side;
                out.read = Some(*read);
                Direct::Hit(Box::new(out))
            }
            Lookup::Unknown => Direct::Unknown,
            Lookup::Changed(inputs) => Direct::Known(Miss::from_lookup(inputs)),
            // A result whose sources use the clock is never served (`clock`); one gone is.
            Lookup::Hit(rk, ..) if !store.contains(ptx, &rk) => Direct::Known(Miss::Gone),
            Lookup::Hit(..) => Direct::Known(Miss::Clock),
        }
    }

    /// `nvcc -E` of toolkit `tk` for `arch`, into temp files named after `name`.
    fn preprocess(
        &self,
        tk: &Toolkit,
        name: &str,
        module: &Module,
        arch: Arch,
    ) -> Result<Preprocessed, Failure> {
        let ii = self.tmp.path().join(format!("{name}.ii"));
        let depfile = self.tmp.path().join(format!("{name}.d"));
        let cmd = preprocess_command(tk, self.settings, module, arch, &ii, &depfile);
        let started = SystemTime::now();
        let clock = Instant::now();
        let text = self.execute(&cmd, &ii)?.bytes;
        Ok(Preprocessed {
            text,
            deps: self.read_deps(&depfile, module),
            seen: self.seen(&depfile, module),
            started,
            seconds: clock.elapsed().as_secs_f64(),
        })
    }

    /// Preprocessor mode: the PTX of this preprocessed text, when the cache has it.
    fn serve_preprocessed(
        &self,
        store: &Store,
        job: &CiccJob,
        pk: &Key,
        p: &Preprocessed,
    ) -> Option<JobOut> {
        let roots = job.side.roots;
        if !store.contains(Ns::Ptx.dir(), pk) || self.clock_in(roots, &p.deps).is_some() {
            return None;
        }
        let host_side = cached_host_side(store, pk, job.module)?;
        let read = (&p.deps[..], &p.seen);
        self.record_manifest(roots, store, (&job.mk, pk), read, p.started, &job.arch_list);
        let deps = super::outside(roots, p.deps.clone());
        let mut out = JobOut::cached(Served::Preprocessed, *pk, deps).with_log(store);
        out.read = self.read(job, &p.deps, &p.seen);
        out.host_side = host_side;
        out.ii = Some(Key::of(&p.text));
        Some(out)
    }

    /// The compile, `nvcc -ptx`, keeping its preprocessed text where a key or a follower needs
    /// it; `miss` says why a build with a cache runs it.
    fn compile(
        &self,
        job: &CiccJob,
        pre: Option<(Key, Preprocessed)>,
        miss: Option<Miss>,
    ) -> Result<JobOut, Failure> {
        let (j, module, arch) = (job.j, job.module, job.arch);
        let store = self.store.as_ref();
        let depfile = self.tmp.path().join(format!("{j}.d"));
        let ptx = job.emit == Emit::Ptx;
        // LTO-IR runs without a launcher and is never split: its nvcc line is compiled here.
        let launcher = ptx && self.settings.launch_cicc && self.settings.launcher.is_some();
        let out = self
            .tmp
            .path()
            .join(format!("{j}.{}", if ptx { "ptx" } else { "ltoir" }));
        let keep = self.tmp.path().join(format!("{j}.keep"));
        let keep_ii = (store.is_some() || self.leads.contains(&j)) && pre.is_none() && !launcher;
        // A library source's module ID is in nvcc's kept files.
        // sccache runs cicc itself, not `nvcc -ptx` (`cicc_split.rs`); so does a job whose PTX
        // `nvcc -ptx` would check with a ptxas run of its own that this build's ptxas job
        // repeats (`skips_ptx_check`).
        let split = ptx
            && match &self.settings.launcher {
                Some(_) => !self.settings.launch_cicc,
                None => self.skips_ptx_check(j, arch),
            };
        let paths = (out.as_path(), depfile.as_path(), keep.as_path());
        let cmd = self.compile_command(job, paths, keep_ii || module.host || split);
        let started = SystemTime::now();
        let plan = split.then(|| self.split_plan(&cmd, &keep));
        let (ran, launch_note) = match plan {
            Some(Ok(plan)) => self.run_split(&cmd, plan, &out)?,
            Some(Err(f)) if self.settings.launcher.is_some() => return Err(f),
            // A plan archbuild cannot split costs only the PTX check: `nvcc -ptx` runs it.
            _ => (self.execute(&cmd, &out)?, None),
        };
        let host_side = read_host_side(module, &out, &keep).map_err(|e| Failure {
            command: cmd.display(),
            status: Status::NoHostSide,
            output: e,
        })?;
        let deps = self.read_deps(&depfile, module);
        let seen = self.seen(&depfile, module);
        let kept = keep_ii.then(|| kept_preprocessed(&keep)).flatten();
        let kept_missing = kept.is_none();
        let ii = match (&pre, &kept) {
            (Some((_, p)), _) => Some(Key::of(&p.text)),
            (None, Some(text)) => Some(Key::of(text)),
            (None, None) => None,
        };
        let mut key = None;
        let roots = job.side.roots;
        let mut note = self.clock_in(roots, &deps);
        if let (Some(store), None) = (store, &note) {
            let rk = match (&pre, kept) {
                (Some((pk, _)), _) => Some(*pk),
                (None, Some(text)) => {
                    Some(self.preprocessed_key(roots, &job.inputs_key, &text, &deps))
                }
                // Through a launcher there is no preprocessed text: the key is the inputs'
                // state, which direct mode alone can find again.
                (None, None) => self
                    .inputs(roots, (&deps, &seen), &job.arch_list)
                    .and_then(|i| serde_json::to_vec(&i).ok())
                    .map(|i| keys::direct(&job.mk, &i)),
            };
            if let Some(rk) = rk {
                let entry = PtxEntry {
                    key: rk,
                    ran: &ran,
                    host_side: &host_side,
                    deps: &deps,
                    seen: &seen,
                    started,
                };
                match self.store_ptx(store, job, entry) {
                    Ok(k) => key = Some(k),
                    Err(why) => note = Some(why),
                }
            }
            if keep_ii && kept_missing {
                note.get_or_insert_with(|| KEPT_MISSING.to_owned());
            }
        }
        let read = self.read(job, &deps, &seen);
        let deps = super::outside(roots, deps);
        let predicted = match (&seen, store) {
            (Seen::Predicted(why), Some(_)) => Some(format!(
                "direct mode predicts the paths this compile looked at ({why})"
            )),
            _ => None,
        };
        let served = Served::Compiled {
            miss,
            note: note.or(launch_note).or(predicted),
        };
        let mut out = JobOut::fresh(served, key, ran, deps);
        out.read = read;
        out.ii = ii;
        out.host_side = host_side;
        Ok(out)
    }

    /// The compile's nvcc line for `(out, depfile, keep)`, keeping nvcc's intermediate files
    /// in `keep` when `keeping`.
    fn compile_command(
        &self,
        job: &CiccJob,
        (out, depfile, keep): (&Path, &Path, &Path),
        keeping: bool,
    ) -> Cmd {
        let (tk, s, module, arch) = (job.side.tk, self.settings, job.module, job.arch);
        let cmd = match job.emit {
            Emit::LtoIr => lto_command(tk, s, module, arch, out, depfile),
            Emit::Ptx => cicc_command(tk, s, module, arch, out, depfile),
        };
        if !keeping {
            return cmd;
        }
        let _ = std::fs::create_dir_all(keep);
        keep_files(cmd, keep)
    }

    /// Whether job `j` runs as nvcc's preprocessing and cicc (`cicc_split.rs`) rather than
    /// `nvcc -ptx`, to leave out the PTX check `nvcc -ptx` runs for compute_90 and newer
    /// (`ptxas -arch=compute_90`, about a second on `bench_kernels.cu`): a ptxas job of this
    /// build reads the same PTX and reports what that check would. PTX that no ptxas job reads
    /// keeps nvcc's check. The PTX is the same either way (nvcc's own lines run).
    fn skips_ptx_check(&self, j: usize, arch: Arch) -> bool {
        arch.cc >= archbuild_arch::ComputeCapability::new(9, 0)
            && self
                .jobs
                .iter()
                .any(|p| p.dep == Some(j) && matches!(p.phase, Phase::Ptxas(_)))
    }

    /// nvcc's plan for the one-process compile `cmd` (its `--dryrun`), split into preprocessing
    /// and cicc (`cicc_split.rs`).
    fn split_plan(&self, cmd: &Cmd, keep: &Path) -> Result<cicc_split::Split, Failure> {
        let mut dry = cmd.clone();
        dry.args.insert(0, "--dryrun".into());
        let text = self.dryrun(&dry, Some(&self.spawns))?;
        let s = &self.settings;
        cicc_split::parse(
            &text,
            &s.base_dir,
            keep,
            s.compiler_env.vars(),
            s.launcher.as_deref(),
        )
        .map_err(|e| Failure {
            command: dry.display(),
            status: Status::UnexpectedPlan,
            output: format!(
                "{}; nvcc's plan is not one archbuild knows how to run as preprocessing and \
                 cicc:\n{text}",
                e.0
            ),
        })
    }

    /// The compile `cmd` as nvcc's preprocessing, then cicc, from its `split_plan`. When a
    /// launcher's cicc fails (a build server with another toolkit, a launcher that cannot run
    /// it), cicc runs again without it and the job's note says why.
    fn run_split(
        &self,
        cmd: &Cmd,
        split: cicc_split::Split,
        out: &Path,
    ) -> Result<(Ran, Option<String>), Failure> {
        let s = &self.settings;
        let mut preprocess = split.preprocess.clone();
        observe::carry(cmd, &mut preprocess);
        let pre = self.execute(&preprocess, &split.ii)?;
        let (mut ran, note) = match self.execute(&split.cicc, out) {
            Ok(ran) => (ran, None),
            Err(f) if s.launcher.is_none() => return Err(f),
            Err(f) => {
                let mut local = split.cicc.clone();
                local.program = PathBuf::from(local.args.remove(0));
                let ran = self.execute(&local, out)?;
                let why = f
                    .output
                    .trim()
                    .lines()
                    .last()
                    .unwrap_or_default()
                    .to_owned();
                (
                    ran,
                    Some(format!(
                        "the launcher could not run cicc ({why}); it ran here without it"
                    )),
                )
            }
        };
        ran.seconds += pre.seconds;
        if !pre.log.output.trim().is_empty() {
            ran.log.output = format!("{}{}", pre.log.output, ran.log.output);
        }
        Ok((ran, note))
    }

    /// The key of PTX compiled from a preprocessed source: the manifest key's inputs with the
    /// source's text replaced by what of the preprocessed text reaches the PTX
    /// (`preprocessed::key_text`), and, where the PTX interleaves the source's lines
    /// (`-src-in-ptx`), the content of every input outside the toolkit (`deps`).
    fn preprocessed_key(&self, roots: &Roots, mk_inputs: &Key, ii: &[u8], deps: &[PathBuf]) -> Key {
        let info = preprocessed::line_info(self.settings.all_nvcc_flags().iter());
        let text = preprocessed::key_text(ii, info > LineInfo::None);
        let sources: Vec<(String, String)> = match info {
            LineInfo::Source => deps
                .iter()
                .filter(|d| !roots.in_toolkit(d))
                .map(|d| {
                    let state = self.hashes.hash(d).map_or_else(|| "-".into(), |h| h.hex());
                    (roots.portable(d), state)
                })
                .collect(),
            _ => Vec::new(),
        };
        keys::preprocessed(mk_inputs, &text, &sources)
    }

    /// Why this job's output neither comes from nor goes to the cache: a flag, or an input
    /// outside the toolkit, names `__DATE__`, `__TIME__` or `__TIMESTAMP__`, whose value changes
    /// while the files do not (the job record's note, shown under `-v`).
    pub(super) fn clock(&self, deps: &[PathBuf]) -> Option<String> {
        self.clock_in(&self.roots, deps)
    }

    /// [`Self::clock`] for a job of the toolkit `roots` names.
    fn clock_in(&self, roots: &Roots, deps: &[PathBuf]) -> Option<String> {
        if let Some(note) = &self.flag_clock {
            return Some(note.clone());
        }
        deps.iter().filter(|d| !roots.in_toolkit(d)).find_map(|d| {
            let token = self.hashes.clock(d)?;
            Some(format!(
                "not cached, compiled on every build: {} uses `{token}`, whose value is the \
                 time of the build",
                d.strip_prefix(&roots.base).unwrap_or(d).display()
            ))
        })
    }

    /// The dependencies a compile or preprocessing run reported (plus the source itself).
    pub(super) fn read_deps(&self, depfile: &Path, module: &Module) -> Vec<PathBuf> {
        let text = std::fs::read_to_string(depfile).unwrap_or_default();
        let mut all = deps::parse_depfile(&text, &self.settings.base_dir);
        all.push(self.settings.base_dir.join(&module.source));
        let mut all: Vec<PathBuf> = all.iter().map(|p| crate::base::paths::lexical(p)).collect();
        all.sort();
        all.dedup();
        all
    }

    /// What the run that wrote `depfile` looked at (`observe.rs`).
    pub(super) fn seen(&self, depfile: &Path, module: &Module) -> Seen {
        let source = self.settings.base_dir.join(&module.source);
        let log = observe::log_path(depfile);
        self.settings
            .observation
            .seen(&log, &source, &[self.tmp.path()])
    }

    /// Whether this build observes its preprocessing runs: it then trusts no manifest entry
    /// whose probes were predicted.
    pub(super) fn observing(&self) -> bool {
        matches!(self.settings.observation, observe::Observation::On(_))
    }

    /// Records a manifest entry unless an input is unreadable or changed while compiling (the
    /// output might then belong to the old content).
    pub(super) fn record_manifest(
        &self,
        roots: &Roots,
        store: &Store,
        (mk, result): (&Key, &Key),
        (deps, seen): (&[PathBuf], &Seen),
        started: SystemTime,
        arch_list: &str,
    ) {
        let fresh = deps.iter().all(|d| {
            std::fs::metadata(d)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t < started)
        });
        if !fresh {
            deps::mark_known(store, mk);
            return;
        }
        if let Some(inputs) = self.inputs(roots, (deps, seen), arch_list) {
            deps::record(store, mk, inputs, result);
        }
    }

    /// What a compile read and probed, as its manifest entry, its module's record and their
    /// checks all have it: the one answer (`deps::inputs`) over the build's probe directories.
    pub(super) fn inputs(
        &self,
        roots: &Roots,
        (deps, seen): (&[PathBuf], &Seen),
        arch_list: &str,
    ) -> Option<deps::Inputs> {
        deps::inputs(
            roots,
            deps,
            seen,
            &self.settings.probe_dirs,
            &self.hashes,
            arch_list,
        )
    }

    /// What cicc job `job` read and probed, for its module's record.
    fn read(&self, job: &CiccJob, deps: &[PathBuf], seen: &Seen) -> Option<deps::Inputs> {
        self.inputs(job.side.roots, (deps, seen), &job.arch_list)
    }
}

/// A job's note when its output could not be stored (a full disk, a read-only cache): the next
/// build compiles it again, and says why here rather than missing silently.
pub(super) fn not_stored(what: &str, e: &std::io::Error) -> String {
    format!(
        "not cached: the cache could not store the {what} ({e}); the next build compiles it again"
    )
}

const NOT_STORED_HOST_SIDE: &str =
    "not cached: the cache could not store the stub and module ID; the next build compiles it again";

/// A compile that kept its preprocessed text but none was found: its PTX is keyed for direct
/// mode only, so preprocessor mode cannot serve an edit that leaves the text unchanged.
const KEPT_MISSING: &str = "nvcc kept no preprocessed source (`*.cpp1.ii`): a comment-only edit \
                            of an input compiles this job again";

/// The preprocessed source `nvcc --keep` left in `dir`.
fn kept_preprocessed(dir: &Path) -> Option<Vec<u8>> {
    let rd = std::fs::read_dir(dir).ok()?;
    let path = rd
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".cpp1.ii"))?;
    std::fs::read(path).ok()
}

/// The host side a compile wrote beside its PTX: the launch stub (every kernel's declared
/// signature) and, for a library source, the module ID. The stub names itself by the path cicc
/// was given (in its line markers): that temp path is replaced by the stable name the host
/// compile includes it by.
fn read_host_side(
    module: &Module,
    ptx: &Path,
    keep_dir: &Path,
) -> Result<Option<HostSideOut>, String> {
    let side = crate::plan::HostSide::of(ptx);
    let read =
        |p: &Path| std::fs::read(p).map_err(|e| format!("cicc wrote no {}: {e}", p.display()));
    // A kernels-only source's stub only names the typed launchers' types: a compiler that
    // writes none (a stand-in nvcc) gives an empty one, stored as such so that the cache
    // serves what a cache-off build makes.
    let stub = match module.host {
        true => read(&side.stub)?,
        false => std::fs::read(&side.stub).unwrap_or_default(),
    };
    let module_id = if module.host {
        let id_file = std::fs::read_dir(keep_dir)
            .map_err(|e| format!("nvcc kept no files in {}: {e}", keep_dir.display()))?
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with(".module_id"))
            .ok_or_else(|| format!("nvcc kept no module ID in {}", keep_dir.display()))?;
        read(&id_file)?
    } else {
        Vec::new()
    };
    let from = side.stub.to_string_lossy().into_owned();
    let to = crate::host::steps::HostFiles::new(Path::new(""), &module.source).stub_name;
    let stub = String::from_utf8_lossy(&stub)
        .replace(&from, &to)
        .into_bytes();
    Ok(Some(HostSideOut { stub, module_id }))
}

/// A cached cicc result's host side; `None` when the entry lacks it (the job then compiles).
fn cached_host_side(store: &Store, key: &Key, module: &Module) -> Option<Option<HostSideOut>> {
    let stub = store.get(Ns::Stub.dir(), key)?;
    let module_id = match module.host {
        true => store.get(Ns::ModuleId.dir(), key)?,
        false => Vec::new(),
    };
    Some(Some(HostSideOut { stub, module_id }))
}

/// Stores the host side before the PTX counts as cached; `false` when it could not be.
fn keep_host_side(store: &Store, key: &Key, side: &Option<HostSideOut>) -> bool {
    match side {
        None => true,
        Some(s) => {
            store.put(Ns::Stub.dir(), key, &s.stub).is_ok()
                && (s.module_id.is_empty()
                    || store.put(Ns::ModuleId.dir(), key, &s.module_id).is_ok())
        }
    }
}

/// A follower's run that ran no cicc: the lead's PTX retargeted, with the lead's compiler
/// output, and a log line that says so.
fn shared_run(lead: &JobOut, bytes: Vec<u8>, seconds: f64, (lead_arch, arch): (Arch, Arch)) -> Ran {
    let output = lead
        .log
        .as_ref()
        .map(|l| l.output.clone())
        .or_else(|| lead.replayed.clone())
        .unwrap_or_default();
    Ran {
        bytes,
        seconds,
        log: RunLog {
            command: format!(
                "(no cicc run: the PTX of compute_{} with `.target sm_{}`; the preprocessed \
                 source is identical)",
                lead_arch.sm_name(),
                arch.sm_name()
            ),
            output,
        },
    }
}
