//! Dependency lists and the "direct mode" lookup that lets an unchanged rebuild start no nvcc.
//!
//! The cicc phase runs with `-Xcompiler -MD,-MF,FILE`: the host compiler writes the files that
//! nvcc's *device* preprocessing pass for this target (`__CUDA_ARCH__` set) read — exactly the
//! inputs of the PTX. A header included only under `#if __CUDA_ARCH__ >= 800` is in
//! compute_80's list and not in compute_75's. The list costs nothing: the preprocessing runs
//! anyway (see `docs/build.md`).
//!
//! A *manifest* per (source, flags, target) records, for each result seen, every dependency's
//! content hash and the result's key. The next build hashes those files (each once per build)
//! and, when all match, knows the result key without running anything. Two more things must
//! match, or a new file could change the result while every recorded one is unchanged:
//!
//! * **probes** — paths the preprocessor looked at or could have looked at and that might
//!   appear later: every `__has_include`/`__has_include_next` name under every include
//!   directory and next to every including file, and for every header found through an include
//!   directory, the same name in each directory searched before it (a header created there
//!   would shadow it). Each probe records the file's hash or its absence.
//! * **toolkit headers** are recorded like any other dependency (a pip toolkit upgrades its
//!   header wheels on their own), only relative to the toolkit root.
//!
//! Paths are recorded *portably*: relative to the package directory (`b:`), relative to the
//! toolkit root (`t:`), or absolute for system headers (`a:`). Two checkouts at different
//! paths, with toolkits installed in different homes, therefore share manifests through a
//! remote cache.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::base::paths::lexical;
use crate::base::store::{Key, Ns, Store};
use crate::cache::observe::Seen;
use crate::cache::preprocessed::CLOCK;
use crate::cache::stat_memo::{Stamp, StatMemo};

/// Parses a make-style dependency file (`out: a.cu \` newline `  b.h`), resolving relative
/// paths against `cwd`. Escaped spaces (`\ `) are kept in names.
pub(crate) fn parse_depfile(text: &str, cwd: &Path) -> Vec<PathBuf> {
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    let mut out = Vec::new();
    for line in joined.lines() {
        // Skip the target (everything up to the first unescaped ": ").
        let Some(pos) = find_colon(line) else {
            continue;
        };
        let mut cur = String::new();
        let mut chars = line[pos + 1..].chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&' ') => {
                    cur.push(' ');
                    chars.next();
                }
                c if c.is_whitespace() => {
                    if !cur.is_empty() {
                        out.push(cwd.join(std::mem::take(&mut cur)));
                    }
                }
                c => cur.push(c),
            }
        }
        if !cur.is_empty() {
            out.push(cwd.join(cur));
        }
    }
    out.dedup();
    out
}

fn find_colon(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    (0..b.len()).find(|&i| b[i] == b':' && b.get(i + 1).is_none_or(|c| c.is_ascii_whitespace()))
}

/// The macro whose value only files that name it can observe (nvcc defines it as the whole
/// list of virtual archs of the compile).
pub(crate) const ARCH_LIST_MACRO: &str = "__CUDA_ARCH_LIST__";

/// Content hashes of files, each computed once per build (`None`: absent, unreadable or not a
/// regular file), and the kinds of paths only looked at.
#[derive(Debug, Default)]
pub(crate) struct FileHashes {
    // Keyed by the path's bytes: `Path`'s own hash walks its components, which a no-op build
    // of a CUTLASS source (thousands of paths, looked up many times) pays for measurably.
    map: Mutex<HashMap<OsString, Option<FileFacts>>>,
    kinds: Mutex<HashMap<OsString, &'static str>>,
    /// What earlier builds read, by each file's identity on disk (`stat_memo.rs`).
    memo: StatMemo,
}

/// A regular file's bytes; `None` for anything else. The file is opened without blocking and
/// checked before it is read: a FIFO among the paths a compile looked at (which the compiler
/// never opened) would otherwise wait for a writer forever.
fn read_regular(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let meta = f.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    f.read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// What one read of a file tells: its hash and the clock macro it names, if any.
#[derive(Debug, Clone, Copy)]
struct FileFacts {
    key: Key,
    clock: Option<&'static str>,
}

/// Why a compile with these flags must not be cached: a word names a clock macro
/// (`-DSTAMP=__TIME__`), whose value is the time of the build, as a source's would be.
pub(crate) fn clock_in_flags<'a>(words: impl IntoIterator<Item = &'a String>) -> Option<String> {
    words.into_iter().find_map(|w| {
        let token = CLOCK.iter().copied().find(|t| w.contains(t))?;
        Some(format!(
            "not cached, compiled on every build: the flag `{w}` uses `{token}`, whose value is \
             the time of the build"
        ))
    })
}

/// The clock macro a file's text names (`preprocessed::uses_clock`, which tokenises), after a
/// search for the names that rules out almost every file at memory speed; lines joined by a
/// backslash are joined first, as the preprocessor joins them.
fn clock_token(text: &[u8]) -> Option<&'static str> {
    let named = |t: &[u8]| {
        CLOCK
            .iter()
            .any(|n| memchr::memmem::find(t, n.as_bytes()).is_some())
    };
    let spliced;
    let joined = if memchr::memmem::find(text, b"\\\n").is_some()
        || memchr::memmem::find(text, b"\\\r\n").is_some()
    {
        spliced = crate::cache::preprocessed::join_lines(text);
        &spliced[..]
    } else {
        text
    };
    if !named(joined) {
        return None;
    }
    crate::cache::preprocessed::uses_clock(text)
}

impl FileHashes {
    /// Hashes that earlier builds' reads, remembered in `memo`, can stand for.
    pub(crate) fn with_memo(memo: StatMemo) -> Self {
        Self {
            map: Mutex::default(),
            kinds: Mutex::default(),
            memo,
        }
    }

    fn get(&self, path: &Path) -> Option<FileFacts> {
        if let Some(h) = self
            .map
            .lock()
            .ok()
            .and_then(|m| m.get(path.as_os_str()).copied())
        {
            return h;
        }
        let h = self.read(path);
        if let Ok(mut m) = self.map.lock() {
            m.insert(path.as_os_str().to_owned(), h);
        }
        h
    }

    /// One file's facts: remembered for its stamp, else read. The time is taken before the
    /// stamp and the stamp before the read, so a write after either moves the change time
    /// away from the stamp remembered (`stat_memo.rs`).
    fn read(&self, path: &Path) -> Option<FileFacts> {
        let read_at = std::time::SystemTime::now();
        let meta = std::fs::metadata(path).ok()?;
        if !meta.is_file() {
            return None;
        }
        let stamp = Stamp::of(&meta);
        if let Some(told) = self.memo.get(path, &stamp) {
            if let Some(key) = Key::from_hex(&told.hash) {
                let clock = CLOCK
                    .iter()
                    .copied()
                    .find(|t| told.clock.as_deref() == Some(t));
                return Some(FileFacts { key, clock });
            }
        }
        let b = read_regular(path)?;
        let facts = FileFacts {
            key: Key::of(&b),
            clock: clock_token(&b),
        };
        self.memo
            .remember(path, stamp, read_at, facts.key.hex(), facts.clock);
        Some(facts)
    }

    /// The hash of a file's content, `None` if it cannot be read or is not a regular file.
    pub(crate) fn hash(&self, path: &Path) -> Option<Key> {
        self.get(path).map(|f| f.key)
    }

    /// What is at `path` now, without reading it: `-` nothing, `f` a file, `d` a directory,
    /// `o` anything else (a FIFO, a socket, a device).
    fn kind(&self, path: &Path) -> &'static str {
        if let Some(k) = self
            .kinds
            .lock()
            .ok()
            .and_then(|m| m.get(path.as_os_str()).copied())
        {
            return k;
        }
        let k = match std::fs::metadata(path) {
            Err(_) => "-",
            Ok(m) if m.is_file() => "f",
            Ok(m) if m.is_dir() => "d",
            Ok(_) => "o",
        };
        if let Ok(mut m) = self.kinds.lock() {
            m.insert(path.as_os_str().to_owned(), k);
        }
        k
    }

    /// A path's state as a manifest records it: its content's hash when it is a readable
    /// regular file, else its kind.
    fn content_state(&self, path: &Path) -> String {
        self.hash(path)
            .map_or_else(|| self.kind(path).to_owned(), |h| h.hex())
    }

    /// The clock macro (`__DATE__`, `__TIME__`, `__TIMESTAMP__`) the file names, if any: found
    /// in the one read that hashes it, so checking every input of every job costs no I/O.
    pub(crate) fn clock(&self, path: &Path) -> Option<&'static str> {
        self.get(path).and_then(|f| f.clock)
    }
}

/// The roots that make recorded paths portable.
#[derive(Debug, Clone)]
pub(crate) struct Roots {
    pub base: PathBuf,
    pub toolkit: PathBuf,
    /// Where the toolkit and the header libraries lie on this machine (`keys::roots`). The
    /// preprocessed text names them (line markers, `__FILE__`), so a manifest recorded where
    /// they lie elsewhere is not used here: preprocessor mode checks the text instead.
    pub located: String,
}

impl Roots {
    /// `b:rel` under the package, `t:rel` under the toolkit, else `a:/abs`.
    pub(crate) fn portable(&self, p: &Path) -> String {
        let p = lexical(&self.base.join(p));
        if let Ok(r) = p.strip_prefix(&self.toolkit) {
            return format!("t:{}", r.display());
        }
        if let Ok(r) = p.strip_prefix(&self.base) {
            return format!("b:{}", r.display());
        }
        format!("a:{}", p.display())
    }

    /// The local path of a portable one.
    pub(crate) fn local(&self, s: &str) -> Option<PathBuf> {
        let (kind, rest) = s.split_once(':')?;
        Some(match kind {
            "b" => self.base.join(rest),
            "t" => self.toolkit.join(rest),
            "a" => PathBuf::from(rest),
            _ => return None,
        })
    }

    pub(crate) fn in_toolkit(&self, p: &Path) -> bool {
        lexical(&self.base.join(p)).starts_with(&self.toolkit)
    }
}

/// What a result depends on: every dependency with its hash, every probe with its state, and
/// the module's `__CUDA_ARCH_LIST__` when a dependency names it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Inputs {
    pub deps: Vec<(String, String)>,
    /// `(portable path, hash or "-" for absent)`.
    pub probes: Vec<(String, String)>,
    /// The arch list the result was preprocessed with, recorded only when some dependency
    /// names `__CUDA_ARCH_LIST__`: other results stay valid when an arch is added.
    #[serde(default)]
    pub arch_list: Option<String>,
    /// `Roots::located` when recorded; absent in older manifests, which then never hit.
    #[serde(default)]
    pub location: Option<String>,
    /// Whether `probes` are the paths the compile was seen to look at (`observe.rs`), not a
    /// prediction of them. A build that observes does not trust a predicted entry.
    #[serde(default)]
    pub observed: bool,
}

/// One result a manifest remembers.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
struct Entry {
    inputs: Inputs,
    result: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Manifest {
    entries: Vec<Entry>,
}

/// How many different results a manifest keeps (e.g. switching branches back and forth).
const MAX_ENTRIES: usize = 4;

/// Whether a recorded state still holds: a content hash against the content, a kind (`f`:
/// looked at, never read) against what is there now.
pub(crate) fn holds(hashes: &FileHashes, path: &Path, want: &str) -> bool {
    if want == "f" {
        hashes.kind(path) == "f"
    } else {
        hashes.content_state(path) == want
    }
}

/// Records the current state of `deps` (hashes) and of the paths the compile looked at:
/// those `seen` (observed), else those predicted from `include_dirs` and the text. `None` when
/// a dependency is unreadable (nothing is then recorded).
///
/// The arch list is recorded with every entry: a file can reach `__CUDA_ARCH_LIST__` without
/// naming it (token pasting, a `-D` value), and preprocessor mode, which keys on the text,
/// still serves the other archs' results without a compile when the list changes.
pub(crate) fn inputs(
    roots: &Roots,
    deps: &[PathBuf],
    seen: &Seen,
    include_dirs: &[PathBuf],
    hashes: &FileHashes,
    arch_list: &str,
) -> Option<Inputs> {
    let mut rec = Inputs {
        location: Some(roots.located.clone()),
        arch_list: Some(arch_list.to_owned()),
        observed: matches!(seen, Seen::Observed(_)),
        ..Inputs::default()
    };
    for d in deps {
        let h = hashes.hash(d)?;
        rec.deps.push((roots.portable(d), h.hex()));
    }
    let mut probes: BTreeMap<String, String> = BTreeMap::new();
    match seen {
        Seen::Observed(paths) => {
            let read: std::collections::HashSet<&PathBuf> = deps.iter().collect();
            for (p, opened) in paths.iter().filter(|(p, _)| !read.contains(p)) {
                let state = if *opened {
                    hashes.content_state(p)
                } else {
                    match hashes.kind(p) {
                        "f" => "f".to_owned(),
                        _ => hashes.content_state(p),
                    }
                };
                probes.entry(roots.portable(p)).or_insert(state);
            }
        }
        Seen::Predicted(_) => {
            for p in probe_paths(roots, deps, include_dirs) {
                let key = roots.portable(&p);
                probes
                    .entry(key)
                    .or_insert_with(|| hashes.content_state(&p));
            }
        }
    }
    rec.probes = probes.into_iter().collect();
    Some(rec)
}

/// The paths whose appearance or change could alter what the preprocessor reads.
fn probe_paths(roots: &Roots, deps: &[PathBuf], include_dirs: &[PathBuf]) -> Vec<PathBuf> {
    let dirs: Vec<PathBuf> = include_dirs
        .iter()
        .map(|d| lexical(&roots.base.join(d)))
        .collect();
    let user: Vec<PathBuf> = deps
        .iter()
        .map(|d| lexical(&roots.base.join(d)))
        .filter(|d| !d.starts_with(&roots.toolkit) && !is_system(d))
        .collect();
    let includer_dirs: Vec<PathBuf> = {
        let mut v: Vec<PathBuf> = user
            .iter()
            .filter_map(|d| d.parent().map(Path::to_path_buf))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let mut out = Vec::new();
    // Shadowing: a header found through include dir k could be shadowed by the same name in
    // any includer's directory (quoted includes look there first) or in include dirs 0..k.
    for d in &user {
        for (k, dir) in dirs.iter().enumerate() {
            let Ok(name) = d.strip_prefix(dir) else {
                continue;
            };
            for earlier in includer_dirs.iter().chain(&dirs[..k]) {
                let candidate = earlier.join(name);
                if candidate != *d {
                    out.push(candidate);
                }
            }
        }
    }
    // `__has_include("x")`: the answer depends on whether x exists anywhere it is searched.
    for d in &user {
        let Ok(text) = std::fs::read_to_string(d) else {
            continue;
        };
        for name in has_include_names(&text) {
            for dir in includer_dirs.iter().chain(&dirs) {
                out.push(dir.join(&name));
            }
        }
    }
    out
}

/// The names tested by `__has_include(...)` / `__has_include_next(...)` in a source.
pub(crate) fn has_include_names(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("__has_include") {
        rest = &rest[i + "__has_include".len()..];
        let r = rest.strip_prefix("_next").unwrap_or(rest).trim_start();
        let Some(r) = r.strip_prefix('(') else {
            continue;
        };
        let r = r.trim_start();
        let close = match r.chars().next() {
            Some('"') => '"',
            Some('<') => '>',
            _ => continue,
        };
        if let Some(end) = r[1..].find(close) {
            let name = &r[1..1 + end];
            if !name.is_empty() && !name.contains('\n') {
                names.push(name.to_owned());
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

fn is_system(p: &Path) -> bool {
    p.starts_with("/usr") || p.starts_with("/lib")
}

/// Finds the result key for the current state of the inputs, if a manifest entry matches;
/// returns it with the dependency paths.
pub(crate) fn lookup(
    store: &Store,
    manifest_key: &Key,
    roots: &Roots,
    hashes: &FileHashes,
    arch_list: &str,
    observing: bool,
) -> Lookup {
    let Some(bytes) = store.get(Ns::Deps.dir(), manifest_key) else {
        return Lookup::Unknown;
    };
    let Ok(manifest) = serde_json::from_slice::<Manifest>(&bytes) else {
        return Lookup::Unknown;
    };
    for e in &manifest.entries {
        if observing && !e.inputs.observed {
            continue;
        }
        if let Ok(deps) = matches(e, roots, hashes, arch_list) {
            if let Some(key) = Key::from_hex(&e.result) {
                return Lookup::Hit(key, deps, Box::new(e.inputs.clone()));
            }
        }
    }
    // The newest entry's differences say why this build cannot reuse the last one's result.
    let changed = manifest
        .entries
        .first()
        .map(|e| match matches(e, roots, hashes, arch_list) {
            Ok(_) => vec!["the paths the compile looked at, which were predicted".to_owned()],
            Err(changed) => changed,
        })
        .unwrap_or_default();
    Lookup::Changed(changed)
}

/// The dependencies' local paths when every recorded input is in its recorded state; else the
/// inputs (portable paths) that are not, and `__CUDA_ARCH_LIST__` when the arch list differs.
fn matches(
    e: &Entry,
    roots: &Roots,
    hashes: &FileHashes,
    arch_list: &str,
) -> Result<Vec<PathBuf>, Vec<String>> {
    let mut changed = Vec::new();
    if e.inputs
        .arch_list
        .as_deref()
        .is_some_and(|l| l != arch_list)
    {
        changed.push("__CUDA_ARCH_LIST__".to_owned());
    }
    if e.inputs.location.as_deref() != Some(roots.located.as_str()) {
        changed.push("where the toolkit or a header library lies".to_owned());
    }
    let mut deps = Vec::with_capacity(e.inputs.deps.len());
    for (path, hex) in &e.inputs.deps {
        match roots.local(path) {
            Some(local) if hashes.hash(&local).is_some_and(|h| h.hex() == *hex) => {
                deps.push(local);
            }
            _ => changed.push(path.clone()),
        }
    }
    for (path, want) in &e.inputs.probes {
        let same = roots
            .local(path)
            .is_some_and(|local| holds(hashes, &local, want));
        if !same {
            changed.push(path.clone());
        }
    }
    if changed.is_empty() {
        Ok(deps)
    } else {
        Err(changed)
    }
}

/// What direct mode found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// The result key, with the dependencies' local paths and the entry's inputs (what the
    /// compile that made it read and probed).
    Hit(Key, Vec<PathBuf>, Box<Inputs>),
    /// A manifest exists but no entry matches: the inputs (portable paths) that differ from the
    /// newest entry's; empty when the manifest has no entry (`mark_known`).
    Changed(Vec<String>),
    /// No manifest: this (source, flags, target) was never built here or remotely.
    Unknown,
}

#[cfg(test)]
impl Lookup {
    /// The result key and the dependencies' local paths of a hit.
    pub(crate) fn hit(self) -> Option<(Key, Vec<PathBuf>)> {
        match self {
            Lookup::Hit(key, deps, _) => Some((key, deps)),
            _ => None,
        }
    }
}

impl Inputs {
    /// What several compiles read and probed together (a module's cicc jobs, for its record):
    /// every dependency, and every probe of a path that is no dependency.
    pub(crate) fn union<'a>(all: impl IntoIterator<Item = &'a Inputs>) -> Inputs {
        let mut out = Inputs::default();
        for i in all {
            out.deps.extend(i.deps.iter().cloned());
            out.probes.extend(i.probes.iter().cloned());
            out.observed |= i.observed;
        }
        let read: std::collections::HashSet<String> =
            out.deps.iter().map(|(p, _)| p.clone()).collect();
        out.probes.retain(|(p, _)| !read.contains(p));
        out.deps.sort();
        out.deps.dedup();
        out.probes.sort();
        out.probes.dedup();
        out
    }
}

/// Records that these inputs produce `result`.
pub(crate) fn record(store: &Store, manifest_key: &Key, inputs: Inputs, result: &Key) {
    let mut manifest: Manifest = store
        .get("deps", manifest_key)
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let entry = Entry {
        inputs,
        result: result.hex(),
    };
    manifest.entries.retain(|e| e != &entry);
    manifest.entries.insert(0, entry);
    manifest.entries.truncate(MAX_ENTRIES);
    if let Ok(bytes) = serde_json::to_vec(&manifest) {
        let _ = store.put(Ns::Deps.dir(), manifest_key, &bytes);
    }
}

/// Records that this job was built before without recording how: an input was newer than the
/// compile's start (edited while it ran, or stamped in the future by another machine's clock, as
/// an unpacked archive is), so no entry can say which content the result belongs to. An empty
/// manifest serves nothing in direct mode; it only tells the next build that preprocessor mode,
/// which keys on the text itself, is worth a try.
pub(crate) fn mark_known(store: &Store, manifest_key: &Key) {
    if store.get(Ns::Deps.dir(), manifest_key).is_none() {
        if let Ok(bytes) = serde_json::to_vec(&Manifest::default()) {
            let _ = store.put(Ns::Deps.dir(), manifest_key, &bytes);
        }
    }
}

#[cfg(test)]
#[path = "deps_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "deps_observed_tests.rs"]
mod observed_tests;
