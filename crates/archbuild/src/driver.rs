//! Executing a plan: for each job, look it up in the cache, else run its command; then check
//! the results. This is where the cache keys are defined.
//!
//! * cicc phase: the *manifest key* hashes the toolkit (nvcc's version and build lines), the host
//!   compiler (path, size, mtime), `NVCC_PREPEND_FLAGS`/`NVCC_APPEND_FLAGS`/`NVCC_CCBIN`, the
//!   working directory, the source path, the virtual arch, nvcc flags, include dirs and
//!   defines. The *result key* adds every dependency nvcc reported for this arch with its
//!   content hash (see `deps`). Headers inside the toolkit are covered by its version.
//! * ptxas phase: the key hashes the toolkit, the PTX content, the arch and the ptxas flags —
//!   exactly ptxas's inputs — so a source edit that leaves the PTX unchanged skips ptxas. An
//!   alias keyed on the cicc result key points at it, so a rebuild finds the cubin without
//!   reading the PTX.
//!
//! Hits only check that the entry exists; payloads are read and verified when packing needs
//! them (`pack`), which an up-to-date output does not.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::builder::JobCallback;
use crate::cache::{Key, KeyBuilder, Store};
use crate::deps::{self, FileHashes};
use crate::env::Env;
use crate::error::{Error, Result};
use crate::exec::{run_graph, Limiter, Outcome};
use crate::plan::{cicc_command, ptxas_command, Job, Module, Phase, Settings};
use crate::process::Cmd;
use crate::report::JobRecord;
use crate::toolkit::Toolkit;

/// A job's output. Its bytes are read from the cache only when needed (packing), so a build
/// whose fat binaries are already up to date reads no image at all.
#[derive(Debug)]
pub(crate) struct JobOut {
    /// Where the output lives in the cache (`ptx` or `cubin` namespace), when cached.
    pub key: Option<Key>,
    bytes: OnceLock<Vec<u8>>,
    pub cached: bool,
    pub seconds: f64,
    /// Dependencies outside the toolkit (cicc jobs only).
    pub deps: Vec<PathBuf>,
}

impl JobOut {
    fn cached(key: Key, deps: Vec<PathBuf>) -> Self {
        Self {
            key: Some(key),
            bytes: OnceLock::new(),
            cached: true,
            seconds: 0.0,
            deps,
        }
    }

    fn fresh(key: Option<Key>, bytes: Vec<u8>, seconds: f64, deps: Vec<PathBuf>) -> Self {
        Self {
            key,
            bytes: OnceLock::from(bytes),
            cached: false,
            seconds,
            deps,
        }
    }

    /// The output, read (and verified) from the cache on first use; `None` when the entry is
    /// gone or corrupt (it is then deleted, and a rebuild recompiles it).
    pub fn bytes(&self, store: Option<&Store>, ns: &str) -> Option<&[u8]> {
        if let Some(b) = self.bytes.get() {
            return Some(b);
        }
        let b = store?.get(ns, self.key.as_ref()?)?;
        Some(self.bytes.get_or_init(|| b))
    }
}

/// A job whose process failed.
#[derive(Debug)]
pub(crate) struct Failure {
    pub command: String,
    pub status: String,
    pub output: String,
}

/// Everything a build's jobs share.
pub(crate) struct Compiler<'a> {
    pub tk: &'a Toolkit,
    pub settings: &'a Settings,
    pub modules: &'a [Module],
    pub jobs: &'a [Job],
    pub store: Option<Store>,
    pub hashes: FileHashes,
    base: Key,
    tmp: tempfile::TempDir,
    limiter: Limiter,
    pub spawned: AtomicUsize,
}

impl<'a> Compiler<'a> {
    pub fn new(
        tk: &'a Toolkit,
        settings: &'a Settings,
        modules: &'a [Module],
        jobs: &'a [Job],
        store: Option<Store>,
        env: &Env,
    ) -> Result<Self> {
        let tmp_parent = store
            .as_ref()
            .map(|s| s.dir().join("tmp"))
            .unwrap_or_else(std::env::temp_dir);
        std::fs::create_dir_all(&tmp_parent).map_err(|e| Error::io("create", &tmp_parent, e))?;
        let tmp = tempfile::Builder::new()
            .prefix(".tmp-build-")
            .tempdir_in(&tmp_parent)
            .map_err(|e| Error::io("create a temporary directory in", &tmp_parent, e))?;
        let mut b = KeyBuilder::new("base");
        b.str("toolkit", tk.identity())
            .str("host", &host_compiler_id(settings, env));
        for var in ["NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN"] {
            b.str(var, &env.var(var).unwrap_or_default());
        }
        Ok(Self {
            tk,
            settings,
            modules,
            jobs,
            store,
            hashes: FileHashes::default(),
            base: b.finish(),
            tmp,
            limiter: Limiter::new(env),
            spawned: AtomicUsize::new(0),
        })
    }

    pub fn uses_jobserver(&self) -> bool {
        self.limiter.uses_jobserver()
    }

    /// Runs every job on `workers` threads, calling `on_job` after each that succeeds.
    pub fn run(
        &self,
        workers: usize,
        on_job: Option<&JobCallback>,
    ) -> Vec<Outcome<JobOut, Failure>> {
        let deps: Vec<Option<usize>> = self.jobs.iter().map(|j| j.dep).collect();
        let priority = crate::plan::priorities(self.jobs);
        run_graph(&deps, &priority, workers, |j, input| {
            let result = self.run_job(j, input);
            if let (Ok(out), Some(cb)) = (&result, on_job) {
                (cb.0)(&self.record(j, out));
            }
            result
        })
    }

    /// The report line of a finished job.
    pub fn record(&self, j: usize, out: &JobOut) -> JobRecord {
        let job = &self.jobs[j];
        JobRecord {
            module: self.modules[job.module].name.clone(),
            phase: match job.phase {
                Phase::Cicc(_) => "cicc",
                Phase::Ptxas(_) => "ptxas",
            },
            target: job.label(),
            cached: out.cached,
            seconds: out.seconds,
        }
    }

    fn manifest_key(&self, module: &Module, arch: archbuild_arch::Arch) -> Key {
        let s = self.settings;
        let mut b = KeyBuilder::new("cicc");
        b.key("base", &self.base)
            .str("cwd", &s.base_dir.to_string_lossy())
            .str("source", &module.source.to_string_lossy())
            .str("arch", &arch.sm_name());
        for f in &s.nvcc_flags {
            b.str("flag", f);
        }
        for i in &s.includes {
            b.str("include", &i.to_string_lossy());
        }
        for d in &s.defines {
            b.str("define", d);
        }
        b.finish()
    }

    fn run_job(&self, j: usize, input: Option<&JobOut>) -> Result<JobOut, Failure> {
        let job = &self.jobs[j];
        let module = &self.modules[job.module];
        let store = self.store.as_ref();
        match job.phase {
            Phase::Cicc(arch) => {
                let mk = self.manifest_key(module, arch);
                if let Some(store) = store {
                    if let Some((rk, deps)) = deps::lookup(store, &mk, &self.hashes) {
                        if store.contains("ptx", &rk) {
                            let deps = deps.into_iter().filter(|d| !self.in_toolkit(d)).collect();
                            return Ok(JobOut::cached(rk, deps));
                        }
                    }
                }
                let out = self.tmp.path().join(format!("{j}.ptx"));
                let depfile = self.tmp.path().join(format!("{j}.d"));
                let cmd =
                    cicc_command(self.tk, self.settings, &module.source, arch, &out, &depfile);
                let started = SystemTime::now();
                let (bytes, seconds) = self.execute(&cmd, &out)?;
                let text = std::fs::read_to_string(&depfile).unwrap_or_default();
                let mut all = deps::parse_depfile(&text, &self.settings.base_dir);
                all.push(self.settings.base_dir.join(&module.source));
                let mut deps: Vec<PathBuf> =
                    all.into_iter().filter(|d| !self.in_toolkit(d)).collect();
                deps.sort();
                deps.dedup();
                let key = store.and_then(|s| self.remember(s, &mk, &deps, &bytes, started));
                Ok(JobOut::fresh(key, bytes, seconds, deps))
            }
            Phase::Ptxas(arch) => {
                let missing = || Failure {
                    command: job.label(),
                    status: "internal error".into(),
                    output: "the PTX this job needs is missing from the cache; build again".into(),
                };
                let input = input.ok_or_else(missing)?;
                // The alias maps "ptxas on the PTX stored under the cicc key" to the cubin's
                // content key, so a rebuild finds the cubin without reading the PTX.
                let alias = input.key.map(|k| self.ptxas_key("ptxas-alias", &k, arch));
                if let (Some(store), Some(alias)) = (store, &alias) {
                    if let Some(ck) = store.get("cubin-alias", alias).and_then(|b| key_from(&b)) {
                        if store.contains("cubin", &ck) {
                            return Ok(JobOut::cached(ck, vec![]));
                        }
                    }
                }
                let ptx = input.bytes(store, "ptx").ok_or_else(missing)?;
                let ck = self.ptxas_key("ptxas", &Key::of(ptx), arch);
                if let Some(store) = store {
                    if store.contains("cubin", &ck) {
                        if let Some(alias) = &alias {
                            let _ = store.put("cubin-alias", alias, &ck.0);
                        }
                        return Ok(JobOut::cached(ck, vec![]));
                    }
                }
                let input_path = self.tmp.path().join(format!("{j}.in.ptx"));
                let out = self.tmp.path().join(format!("{j}.cubin"));
                std::fs::write(&input_path, ptx).map_err(|e| Failure {
                    command: format!("write {}", input_path.display()),
                    status: "i/o error".into(),
                    output: e.to_string(),
                })?;
                let cmd = ptxas_command(self.tk, self.settings, arch, &input_path, &out);
                let (bytes, seconds) = self.execute(&cmd, &out)?;
                let mut key = None;
                if let Some(store) = store {
                    if store.put("cubin", &ck, &bytes).is_ok() {
                        key = Some(ck);
                        if let Some(alias) = &alias {
                            let _ = store.put("cubin-alias", alias, &ck.0);
                        }
                    }
                }
                Ok(JobOut::fresh(key, bytes, seconds, vec![]))
            }
        }
    }

    /// The key of a ptxas result: toolkit, input (PTX hash or cicc key), arch, ptxas flags.
    fn ptxas_key(&self, kind: &str, input: &Key, arch: archbuild_arch::Arch) -> Key {
        let mut b = KeyBuilder::new(kind);
        b.key("base", &self.base)
            .key("input", input)
            .str("arch", &arch.sm_name());
        for f in &self.settings.ptxas_flags {
            b.str("flag", f);
        }
        b.finish()
    }

    /// Caches a cicc result unless a dependency is unreadable or changed while compiling (the
    /// output might then belong to the old content); returns its key when cached.
    fn remember(
        &self,
        store: &Store,
        mk: &Key,
        deps: &[PathBuf],
        bytes: &[u8],
        started: SystemTime,
    ) -> Option<Key> {
        let mut hashed = Vec::with_capacity(deps.len());
        for d in deps {
            let fresh = std::fs::metadata(d)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t < started);
            match self.hashes.hash(d) {
                Some(h) if fresh => hashed.push((d.clone(), h)),
                _ => return None,
            }
        }
        let rk = deps::result_key(mk, &hashed);
        store.put("ptx", &rk, bytes).ok()?;
        deps::record(store, mk, &hashed, &rk);
        Some(rk)
    }

    fn in_toolkit(&self, p: &Path) -> bool {
        p.starts_with(self.tk.root())
    }

    /// Runs a command under a token; returns the output file's bytes and the wall time.
    fn execute(&self, cmd: &Cmd, out: &Path) -> Result<(Vec<u8>, f64), Failure> {
        let _token = self.limiter.acquire();
        let start = Instant::now();
        self.spawned.fetch_add(1, Ordering::SeqCst);
        let result = cmd.output();
        let seconds = start.elapsed().as_secs_f64();
        let fail = |status: String, output: String| Failure {
            command: cmd.display(),
            status,
            output,
        };
        let o = result.map_err(|e| fail("not started".into(), e.to_string()))?;
        let mut text = String::from_utf8_lossy(&o.stderr).into_owned();
        text.push_str(&String::from_utf8_lossy(&o.stdout));
        if !o.status.success() {
            return Err(fail(o.status.to_string(), text));
        }
        let bytes = std::fs::read(out).map_err(|e| {
            fail(
                o.status.to_string(),
                format!("{text}\nno output file {}: {e}", out.display()),
            )
        })?;
        Ok((bytes, seconds))
    }

    /// Temp paths, hidden from diagnostics so identical failures group together.
    pub fn tmp_dir(&self) -> &Path {
        self.tmp.path()
    }
}

fn key_from(bytes: &[u8]) -> Option<Key> {
    Some(Key(bytes.try_into().ok()?))
}

/// The host compiler nvcc will use (`-ccbin`, `NVCC_CCBIN`, else `gcc` on PATH), identified by
/// its resolved path, size and modification time.
fn host_compiler_id(s: &Settings, env: &Env) -> String {
    let mut ccbin = None;
    let mut it = s.nvcc_flags.iter();
    while let Some(f) = it.next() {
        for name in ["-ccbin", "--compiler-bindir"] {
            if f == name {
                ccbin = it.next().cloned();
            } else if let Some(v) = f.strip_prefix(&format!("{name}=")) {
                ccbin = Some(v.to_owned());
            }
        }
    }
    let ccbin = ccbin
        .or_else(|| env.var("NVCC_CCBIN"))
        .unwrap_or_else(|| "gcc".into());
    let mut path = PathBuf::from(&ccbin);
    if path.is_dir() {
        path = path.join("gcc");
    }
    if path.components().count() == 1 {
        let search = env.var_os("PATH").unwrap_or_default();
        if let Some(found) = std::env::split_paths(&search)
            .map(|d| d.join(&path))
            .find(|p| p.is_file())
        {
            path = found;
        }
    }
    let path = std::fs::canonicalize(&path).unwrap_or(path);
    let md = std::fs::metadata(&path);
    let size = md.as_ref().map(|m| m.len()).unwrap_or(0);
    let mtime = md
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{}:{size}:{mtime}", path.display())
}
