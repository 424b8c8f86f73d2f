//! The job runner: each job looked up in the cache or run, with its toolkit and facts.
pub(crate) use super::host::HostObject;
use super::{cicc, keys};

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicUsize;
use std::sync::OnceLock;
use std::time::Instant;

use crate::base::process::{Cmd, Ended, Spawns};
use crate::base::store::{Key, Ns, Store};
use crate::cache::deps::{FileHashes, Roots};
use crate::cache::stat_memo::StatMemo;
use crate::error::{Error, Result};
use crate::plan::exec::{run_graph, Input, Limiter, Outcome};
use crate::plan::{ptxas_command, Emit, Job, Module, Phase, Settings, PTXAS_IN, PTXAS_OUT};
use crate::prepare::spec::JobCallback;
use crate::report::{JobRecord, Served};
use crate::toolkit::makers::{ByMaker, Maker};
use crate::toolkit::nvcc::Toolkit;

/// A job's output. Its bytes are read from the cache only when needed (packing), so a build
/// whose fat binaries are already up to date reads no image at all.
#[derive(Debug)]
pub(crate) struct JobOut {
    /// Where the output lives in the cache (`ptx` or `cubin` namespace), when cached.
    pub key: Option<Key>,
    pub(super) bytes: OnceLock<Vec<u8>>,
    /// How it was served: the one state a job's record and checks read.
    pub served: Served,
    pub seconds: f64,
    /// Dependencies outside the toolkit (cicc jobs only).
    pub deps: Vec<PathBuf>,
    /// The command that ran and what it printed; `None` when served from the cache.
    pub log: Option<RunLog>,
    /// What the compiler printed when this cached output was made (replayed, so a rebuild shows
    /// the warnings a fresh build shows); `None` when it printed nothing.
    pub replayed: Option<String>,
    /// cicc jobs: the hash of the preprocessed text the PTX was compiled from, when known.
    pub ii: Option<Key>,
    /// cicc jobs: the launch stub (every kernel's declared signature) and, for a host
    /// library's source, the module ID its host side needs.
    pub host_side: Option<HostSideOut>,
    /// cicc jobs: what the compile read and probed (`deps::inputs`, as its manifest entry has
    /// it); `None` when an input was unreadable. The module's record is their union.
    pub read: Option<crate::cache::deps::Inputs>,
}

/// The host-side files a cicc job wrote: the typed launchers read the stub
/// (`report/signature.rs`); a host library source's host compile includes it (`host/steps.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HostSideOut {
    /// The stub `.cudafe1.cpp` includes, naming itself by its stable name.
    pub stub: Vec<u8>,
    /// The module ID cicc generated; `cudafe++` reads it. Empty for a kernels-only source.
    pub module_id: Vec<u8>,
}

/// A compiler process that ran: its command line and its output (warnings, `-Xptxas -v`).
#[derive(Debug, Clone)]
pub(crate) struct RunLog {
    pub command: String,
    pub output: String,
}

impl JobOut {
    /// An output served from the cache (`Served::Hit` or `Served::Preprocessed`).
    pub(super) fn cached(served: Served, key: Key, deps: Vec<PathBuf>) -> Self {
        Self {
            key: Some(key),
            bytes: OnceLock::new(),
            served,
            seconds: 0.0,
            deps,
            log: None,
            replayed: None,
            ii: None,
            host_side: None,
            read: None,
        }
    }

    /// An output a process made (`Served::Compiled` or `Served::Shared`).
    pub(super) fn fresh(served: Served, key: Option<Key>, ran: Ran, deps: Vec<PathBuf>) -> Self {
        Self {
            key,
            bytes: OnceLock::from(ran.bytes),
            served,
            seconds: ran.seconds,
            deps,
            log: Some(ran.log),
            replayed: None,
            ii: None,
            host_side: None,
            read: None,
        }
    }

    /// Adds what the compiler printed when the cached output was made. Logs are kept in the
    /// local tier only: a lookup that missed would otherwise cost a remote request per job.
    pub(super) fn with_log(mut self, store: &Store) -> Self {
        if let Some(key) = &self.key {
            self.replayed = store
                .get_local(Ns::Log.dir(), key)
                .map(|b| String::from_utf8_lossy(&b).into_owned());
        }
        self
    }

    /// The output, read (and verified) from the cache on first use; `None` when the entry is
    /// gone or corrupt (it is then deleted, and a rebuild recompiles it).
    pub(crate) fn bytes(&self, store: Option<&Store>, ns: Ns) -> Option<&[u8]> {
        if let Some(b) = self.bytes.get() {
            return Some(b);
        }
        let b = store?.get(ns.dir(), self.key.as_ref()?)?;
        Some(self.bytes.get_or_init(|| b))
    }
}

/// A process that ran and wrote its output file.
pub(super) struct Ran {
    pub(super) bytes: Vec<u8>,
    pub(super) seconds: f64,
    pub(super) log: RunLog,
}

/// A job whose process failed.
#[derive(Debug)]
pub(crate) struct Failure {
    pub command: String,
    pub status: Status,
    pub output: String,
}

/// Why a job failed, matched on (not on its words) to tell a killed compiler, a broken toolkit
/// and an entry that left the cache from a source's errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// The process ran and ended so (or left no output file).
    Ended(Ended),
    /// The process could not be started.
    NotStarted,
    /// The job's input left the cache while the build ran (`cache clean`, eviction by a
    /// concurrent build): the build runs once more, which recompiles it.
    Vanished,
    /// A library source's compile left no stub or module ID.
    NoHostSide,
    /// A file the job writes could not be written.
    Io,
    /// nvcc planned host steps archbuild cannot split.
    UnexpectedPlan,
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Status::Ended(e) => e.fmt(f),
            Status::NotStarted => f.write_str("not started"),
            Status::Vanished => f.write_str("cache entry vanished"),
            Status::NoHostSide => f.write_str("no host-side output"),
            Status::Io => f.write_str("i/o error"),
            Status::UnexpectedPlan => f.write_str("unexpected plan"),
        }
    }
}

/// What another toolkit (the PTX or the legacy one) gives the jobs it runs: its own facts (its
/// fingerprint), roots (its include directory is "the toolkit" for them) and settings keys.
pub(super) struct OtherSide<'a> {
    pub(super) tk: &'a Toolkit,
    pub(super) facts: keys::Facts,
    pub(super) roots: Roots,
    pub(super) cicc_base: Key,
    pub(super) ptxas_base: Key,
}

impl<'a> OtherSide<'a> {
    pub(super) fn new(tk: &'a Toolkit, settings: &Settings, store: Option<&Store>) -> Self {
        let roots = keys::roots(settings, tk);
        let facts = keys::Facts::of_toolkit(tk, settings, &roots, store);
        Self {
            tk,
            cicc_base: keys::settings_key(settings, &facts, keys::Stage::Cicc).finish(),
            ptxas_base: keys::settings_key(settings, &facts, keys::Stage::Ptxas).finish(),
            facts,
            roots,
        }
    }
}

/// One job's toolkit and what its keys are made of (`JobRunner::side`).
#[derive(Clone, Copy)]
pub(super) struct Side<'s> {
    pub tk: &'s Toolkit,
    pub facts: &'s keys::Facts,
    pub roots: &'s Roots,
    pub cicc_base: &'s Key,
    pub ptxas_base: &'s Key,
}

/// Everything a build's jobs share.
pub(crate) struct JobRunner<'a> {
    pub tk: &'a Toolkit,
    pub settings: &'a Settings,
    pub modules: &'a [Module],
    /// Each module's translation units (`Module::units`), which its jobs compile.
    pub(super) units: Vec<Vec<Module>>,
    pub jobs: &'a [Job],
    pub store: Option<Store>,
    pub hashes: FileHashes,
    pub roots: Roots,
    /// The settings part of every cicc job's key, and of every ptxas job's (`keys.rs`).
    pub(super) cicc_base: Key,
    pub(super) ptxas_base: Key,
    pub(super) tmp: tempfile::TempDir,
    pub(super) limiter: Limiter,
    /// This machine's processes when launched ones run on a cluster (`plan/dist.rs`).
    pub(super) local: Option<crate::plan::exec::Slots>,
    /// The build's one count of processes started (shared with its preparation).
    pub(super) spawns: Spawns,
    /// cicc jobs whose PTX a follower may take: they keep their preprocessed text.
    pub(super) leads: HashSet<usize>,
    pub(super) facts: &'a keys::Facts,
    /// The PTX and legacy toolkits' parts, for the jobs they run (`plan::Maker`).
    pub(super) others: ByMaker<Option<OtherSide<'a>>>,
    pub(super) verify: crate::config::verification::Verify,
    /// Cache hits compiled again and compared (`ARCHBUILD_VERIFY`); their processes are not
    /// the build's and are not counted.
    pub verified: AtomicUsize,
    /// The first hit that differed from its fresh compile.
    pub mismatch: std::sync::Mutex<Option<Error>>,
    /// In a build script: a line on stderr per finished job (Cargo shows it with `-vv`).
    pub(super) progress: bool,
    /// Why no job of this build is cached: a flag, a define or a file named by a flag (an
    /// options file) uses a clock macro.
    pub(super) flag_clock: Option<String>,
    /// Followers waiting for their lead's PTX (`cicc.rs`).
    pub(super) parked: std::sync::Mutex<std::collections::HashMap<usize, cicc::Parked>>,
}

impl<'a> JobRunner<'a> {
    pub(crate) fn new(
        p: &'a crate::prepare::Prepared,
        jobs: &'a [Job],
        store: Option<Store>,
        facts: &'a keys::Facts,
    ) -> Result<Self> {
        let (tk, settings, modules, env) = (p.toolkits.main(), &p.settings, &p.modules[..], &p.env);
        // Temp files go into the cache (same file system as the entries), or, when the cache
        // cannot be written (a read-only or full cache still serves its entries), the system's
        // temp directory.
        let in_cache = store.as_ref().and_then(|s| {
            let dir = s.dir().join("tmp");
            std::fs::create_dir_all(&dir).ok()?;
            tempfile::Builder::new()
                .prefix(".tmp-build-")
                .tempdir_in(&dir)
                .ok()
        });
        let tmp = match in_cache {
            Some(t) => t,
            None => {
                let sys = std::env::temp_dir();
                tempfile::Builder::new()
                    .prefix(".archbuild-build-")
                    .tempdir_in(&sys)
                    .map_err(|e| Error::io("create a temporary directory in", &sys, e))?
            }
        };
        let cicc_base = keys::settings_key(settings, facts, keys::Stage::Cicc).finish();
        let ptxas_base = keys::settings_key(settings, facts, keys::Stage::Ptxas).finish();
        let others = ByMaker::from_fn(|m| match m {
            Maker::Build => None,
            _ => p
                .toolkits
                .found(m)
                .map(|tk| OtherSide::new(tk, settings, store.as_ref())),
        });
        let memo = store.as_ref().map(|s| StatMemo::load(s.dir()));
        Ok(Self {
            tk,
            settings,
            modules,
            units: modules.iter().map(Module::units).collect(),
            jobs,
            store,
            hashes: FileHashes::with_memo(memo.unwrap_or_default()),
            roots: keys::roots(settings, tk),
            cicc_base,
            ptxas_base,
            tmp,
            limiter: Limiter::new(env),
            local: matches!(p.cluster, crate::plan::dist::Cluster::Up { .. })
                .then(|| crate::plan::exec::Slots::new(p.local_workers)),
            spawns: p.spawns.clone(),
            leads: jobs
                .iter()
                .filter(|j| matches!(j.phase, Phase::Cicc(_)))
                .filter_map(|j| j.dep)
                .collect(),
            facts,
            others,
            verify: p.verify,
            verified: AtomicUsize::new(0),
            mismatch: std::sync::Mutex::new(None),
            progress: p.env.cargo_metadata() && !p.quiet,
            flag_clock: flag_clock(settings),
            parked: std::sync::Mutex::new(std::collections::HashMap::new()),
        })
    }

    pub(crate) fn uses_jobserver(&self) -> bool {
        self.limiter.uses_jobserver()
    }

    /// Runs every job on `workers` threads, calling `on_job` after each that succeeds.
    pub(crate) fn run(
        &self,
        workers: usize,
        on_job: Option<&JobCallback>,
    ) -> Vec<Outcome<JobOut, Failure>> {
        let deps: Vec<Option<usize>> = self.jobs.iter().map(|j| j.dep).collect();
        let waits: Vec<Vec<usize>> = self.jobs.iter().map(|j| j.links.clone()).collect();
        // A follower's cicc job starts with its lead's: it waits for the lead's PTX only when
        // their preprocessed texts turn out identical (`cicc.rs`).
        let early: Vec<bool> = self
            .jobs
            .iter()
            .map(|j| matches!(j.phase, Phase::Cicc(_)) && j.dep.is_some())
            .collect();
        let priority = crate::plan::priorities(self.jobs);
        let finished = AtomicUsize::new(0);
        run_graph(&deps, &waits, &early, &priority, workers, |j, input| {
            let done = input.done();
            let result = self.run_job(j, input);
            if let Ok(Some(out)) = &result {
                self.verify_hit(j, done, out);
                if on_job.is_some() || self.progress {
                    let record = self.record(j, out);
                    if let Some(cb) = on_job {
                        (cb.0)(&record);
                    }
                    if self.progress {
                        let n = finished.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                        eprintln!("archbuild: [{n}/{}] {}", self.jobs.len(), record.line());
                    }
                }
            }
            result
        })
    }

    /// The report line of a finished job.
    pub(crate) fn record(&self, j: usize, out: &JobOut) -> JobRecord {
        let job = &self.jobs[j];
        JobRecord {
            module: self.modules[job.module].name.clone(),
            phase: job.phase.kind(),
            target: job.label(),
            served: out.served.clone(),
            seconds: out.seconds,
            command: out.log.as_ref().map(|l| l.command.clone()),
            output: out
                .log
                .as_ref()
                .map(|l| l.output.trim_end().to_owned())
                .or_else(|| out.replayed.clone())
                .filter(|o| !o.is_empty()),
        }
    }

    /// Runs job `j`; `Ok(None)`: a follower that waits for its lead's PTX (it runs again).
    pub(super) fn run_job(
        &self,
        j: usize,
        input: Input<'_, JobOut>,
    ) -> Result<Option<JobOut>, Failure> {
        let job = &self.jobs[j];
        let module = self.unit(j);
        match (job.phase, input) {
            (Phase::Cicc(arch), Input::None) => self.run_cicc(j, module, arch, Emit::Ptx).map(Some),
            (Phase::Lto(arch), _) => self.run_cicc(j, module, arch, Emit::LtoIr).map(Some),
            (Phase::Cicc(arch), lead) => self.run_follower(j, module, arch, lead),
            (Phase::Ptxas(arch), input) => self.run_ptxas(j, arch, input.done()).map(Some),
            (Phase::Link(target), Input::All(inputs)) => {
                self.run_link(j, target, &inputs).map(Some)
            }
            (Phase::Link(_), _) => Err(Failure {
                command: job.label(),
                status: Status::UnexpectedPlan,
                output: "a device link ran without its inputs".into(),
            }),
        }
    }

    /// The translation unit job `j` compiles: its module, or with relocatable device code one
    /// file of it.
    pub(super) fn unit(&self, j: usize) -> &Module {
        let job = &self.jobs[j];
        &self.units[job.module][job.unit]
    }

    /// A ptxas job: the cubin by the alias of its PTX's cicc key, then by the PTX's content,
    /// then ptxas.
    pub(super) fn run_ptxas(
        &self,
        j: usize,
        arch: archbuild_arch::Arch,
        input: Option<&JobOut>,
    ) -> Result<JobOut, Failure> {
        let job = &self.jobs[j];
        let store = self.store.as_ref();
        let missing = || Failure {
            command: job.label(),
            status: Status::Vanished,
            output: "the PTX this job needs is missing from the cache".into(),
        };
        let input = input.ok_or_else(missing)?;
        // The alias maps "ptxas on the PTX stored under the cicc key" to the cubin's
        // content key, so a rebuild finds the cubin without reading the PTX.
        let side = self.side(j);
        let alias = input
            .key
            .map(|k| keys::ptxas_job("ptxas-alias", side.ptxas_base, &k, arch));
        if let (Some(store), Some(alias)) = (store, &alias) {
            if let Some(ck) = store
                .get(Ns::CubinAlias.dir(), alias)
                .and_then(|b| key_from(&b))
            {
                if store.contains(Ns::Cubin.dir(), &ck) {
                    return Ok(JobOut::cached(Served::Hit, ck, vec![]).with_log(store));
                }
            }
        }
        let ptx = input.bytes(store, Ns::Ptx).ok_or_else(missing)?;
        let ck = keys::ptxas_job("ptxas", side.ptxas_base, &Key::of(ptx), arch);
        if let Some(store) = store {
            if store.contains(Ns::Cubin.dir(), &ck) {
                if let Some(alias) = &alias {
                    let _ = store.put(Ns::CubinAlias.dir(), alias, &ck.0);
                }
                return Ok(JobOut::cached(Served::Hit, ck, vec![]).with_log(store));
            }
        }
        let dir = self.tmp.path().join(j.to_string());
        let input_path = dir.join(PTXAS_IN);
        let out = dir.join(PTXAS_OUT);
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&input_path, ptx))
            .map_err(|e| Failure {
                command: format!("write {}", input_path.display()),
                status: Status::Io,
                output: e.to_string(),
            })?;
        let cmd = ptxas_command(side.tk, self.settings, arch, &dir);
        let ran = self.execute(&cmd, &out)?;
        let bytes = &ran.bytes;
        let mut key = None;
        let mut note = None;
        if let Some(store) = store {
            match store.put(Ns::Cubin.dir(), &ck, bytes) {
                Ok(()) => {
                    keep_log(store, &ck, &ran);
                    key = Some(ck);
                    if let Some(alias) = &alias {
                        let _ = store.put(Ns::CubinAlias.dir(), alias, &ck.0);
                    }
                }
                Err(e) => note = Some(cicc::not_stored("cubin", &e)),
            }
        }
        Ok(JobOut::fresh(Served::compiled(note), key, ran, vec![]))
    }

    /// Job `j`'s toolkit, with its facts, roots and settings keys: the PTX or the legacy
    /// toolkit's for the jobs they run, else the build's.
    pub(super) fn side(&self, j: usize) -> Side<'_> {
        let other = self
            .jobs
            .get(j)
            .and_then(|job| self.others[job.maker].as_ref());
        match other {
            Some(s) => Side {
                tk: s.tk,
                facts: &s.facts,
                roots: &s.roots,
                cicc_base: &s.cicc_base,
                ptxas_base: &s.ptxas_base,
            },
            None => Side {
                tk: self.tk,
                facts: self.facts,
                roots: &self.roots,
                cicc_base: &self.cicc_base,
                ptxas_base: &self.ptxas_base,
            },
        }
    }

    /// The dependencies a job reports: those outside the toolkit.
    pub(super) fn outside_toolkit(&self, deps: Vec<PathBuf>) -> Vec<PathBuf> {
        outside(&self.roots, deps)
    }

    /// Runs a command of the build under a token; returns the output file's bytes, the wall
    /// time and what the process printed.
    pub(super) fn execute(&self, cmd: &Cmd, out: &Path) -> Result<Ran, Failure> {
        self.execute_in(cmd, out, Some(&self.spawns))
    }

    /// [`JobRunner::execute`], counting the process in the build's report when `spawns` is
    /// given (verification runs are not the build's).
    pub(super) fn execute_in(
        &self,
        cmd: &Cmd,
        out: &Path,
        spawns: Option<&Spawns>,
    ) -> Result<Ran, Failure> {
        // With a cluster, a launched process waits on a build server: it takes neither a
        // jobserver token nor a local slot; this machine's own processes take both.
        let remote = self.local.is_some()
            && self.settings.launcher.as_deref() == Some(cmd.program.as_path());
        let _token = (!remote).then(|| self.limiter.acquire());
        let _slot = self.local.as_ref().filter(|_| !remote).map(|s| s.acquire());
        let start = Instant::now();
        let result = match spawns {
            Some(s) => cmd.output_counted(s),
            None => cmd.output(),
        };
        let seconds = start.elapsed().as_secs_f64();
        let fail = |status: Status, output: String| Failure {
            command: cmd.display(),
            status,
            output,
        };
        let o = result.map_err(|e| fail(Status::NotStarted, e.to_string()))?;
        let mut text = String::from_utf8_lossy(&o.stderr).into_owned();
        text.push_str(&String::from_utf8_lossy(&o.stdout));
        let ended = Status::Ended(o.status);
        if !o.status.success() {
            return Err(fail(ended, text));
        }
        let bytes = std::fs::read(out).map_err(|e| {
            fail(
                ended,
                format!("{text}\nno output file {}: {e}", out.display()),
            )
        })?;
        let log = RunLog {
            command: cmd.display(),
            output: text,
        };
        Ok(Ran {
            bytes,
            seconds,
            log,
        })
    }

    /// What an `nvcc --dryrun` command prints (its plan, on stderr), counting the process when
    /// `spawns` is given.
    pub(super) fn dryrun(&self, cmd: &Cmd, spawns: Option<&Spawns>) -> Result<String, Failure> {
        let o = match spawns {
            Some(s) => cmd.output_counted(s),
            None => cmd.output(),
        };
        let o = o.map_err(|e| Failure {
            command: cmd.display(),
            status: Status::NotStarted,
            output: e.to_string(),
        })?;
        let text = String::from_utf8_lossy(&o.stderr).into_owned();
        if !o.status.success() {
            return Err(Failure {
                command: cmd.display(),
                status: Status::Ended(o.status),
                output: text,
            });
        }
        Ok(text)
    }

    /// Temp paths, hidden from diagnostics so identical failures group together.
    pub(crate) fn tmp_dir(&self) -> &Path {
        self.tmp.path()
    }
}

/// Why a build's flags make every job uncacheable: a word of the nvcc flags (any source,
/// `NVCC_PREPEND_FLAGS`/`NVCC_APPEND_FLAGS` included), a define, or a file a flag names (an
/// options file, a response file) uses a clock macro.
fn flag_clock(settings: &Settings) -> Option<String> {
    let defines: Vec<String> = settings.defines.iter().map(|d| format!("-D{d}")).collect();
    let words = settings.all_nvcc_flags();
    crate::cache::deps::clock_in_flags(words.iter().chain(&defines)).or_else(|| {
        let hashes = FileHashes::default();
        settings.flag_inputs.files.iter().find_map(|f| {
            let path = settings.base_dir.join(f);
            let token = hashes.clock(&path)?;
            Some(format!(
                "not cached, compiled on every build: {} (named by a flag) uses `{token}`, \
                 whose value is the time of the build",
                f.display()
            ))
        })
    })
}

/// Remembers what a compile printed, beside its output in the cache.
pub(super) fn keep_log(store: &Store, key: &Key, ran: &Ran) {
    let text = ran.log.output.trim_end();
    if !text.is_empty() {
        let _ = store.put_local(Ns::Log.dir(), key, text.as_bytes());
    }
}

fn key_from(bytes: &[u8]) -> Option<Key> {
    Some(Key(bytes.try_into().ok()?))
}

/// `deps` without those inside the toolkit `roots` name.
pub(super) fn outside(roots: &Roots, deps: Vec<PathBuf>) -> Vec<PathBuf> {
    deps.into_iter().filter(|d| !roots.in_toolkit(d)).collect()
}
