//! Dependency lists and the "direct mode" lookup that lets an unchanged rebuild start no nvcc.
//!
//! The cicc phase runs with `-Xcompiler -MD,-MF,FILE`: the host compiler writes the files that
//! nvcc's *device* preprocessing pass for this target (`__CUDA_ARCH__` set) read — exactly the
//! inputs of the PTX. A header included only under `#if __CUDA_ARCH__ >= 800` is in
//! compute_80's list and not in compute_75's; a header under `#ifndef __CUDA_ARCH__` is in
//! none (no PTX depends on it). So the per-arch unsoundness of caches that scan dependencies
//! once per source cannot happen, and the list costs nothing: the preprocessing runs anyway
//! (see `docs/build.md` for the measurements and the alternatives).
//!
//! A *manifest* per (source, flags, target) records, for each result seen, every dependency's
//! content hash and the result's key. The next build hashes those files (each once per build)
//! and, when all match, knows the result key without running anything.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::cache::{Key, KeyBuilder, Store};

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

/// Content hashes of files, each computed once per build.
#[derive(Debug, Default)]
pub(crate) struct FileHashes {
    map: Mutex<HashMap<PathBuf, Option<Key>>>,
}

impl FileHashes {
    /// The hash of a file's content, `None` if it cannot be read.
    pub fn hash(&self, path: &Path) -> Option<Key> {
        if let Some(h) = self.map.lock().ok().and_then(|m| m.get(path).copied()) {
            return h;
        }
        let h = std::fs::read(path).ok().map(|b| Key::of(&b));
        if let Ok(mut m) = self.map.lock() {
            m.insert(path.to_path_buf(), h);
        }
        h
    }
}

/// One result a manifest remembers: the dependencies with their hashes, and the result key.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
struct Entry {
    deps: Vec<(PathBuf, String)>,
    result: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Manifest {
    entries: Vec<Entry>,
}

/// How many different results a manifest keeps (e.g. switching branches back and forth).
const MAX_ENTRIES: usize = 4;

/// The result key for a set of dependencies with their hashes.
pub(crate) fn result_key(manifest_key: &Key, deps: &[(PathBuf, Key)]) -> Key {
    let mut b = KeyBuilder::new("cicc-result");
    b.key("manifest", manifest_key);
    for (p, h) in deps {
        b.str("dep", &p.to_string_lossy()).key("hash", h);
    }
    b.finish()
}

/// Finds the result key for the current content of the dependencies, if a manifest entry
/// matches; returns it with the dependency paths.
pub(crate) fn lookup(
    store: &Store,
    manifest_key: &Key,
    hashes: &FileHashes,
) -> Option<(Key, Vec<PathBuf>)> {
    let bytes = store.get("deps", manifest_key)?;
    let manifest: Manifest = serde_json::from_slice(&bytes).ok()?;
    'entries: for e in manifest.entries {
        let mut deps = Vec::with_capacity(e.deps.len());
        for (path, hex) in &e.deps {
            match hashes.hash(path) {
                Some(h) if h.hex() == *hex => deps.push((path.clone(), h)),
                _ => continue 'entries,
            }
        }
        let key = result_key(manifest_key, &deps);
        if key.hex() == e.result {
            return Some((key, deps.into_iter().map(|(p, _)| p).collect()));
        }
    }
    None
}

/// Records that these dependencies (with these hashes) produce `result`.
pub(crate) fn record(store: &Store, manifest_key: &Key, deps: &[(PathBuf, Key)], result: &Key) {
    let mut manifest: Manifest = store
        .get("deps", manifest_key)
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let entry = Entry {
        deps: deps.iter().map(|(p, h)| (p.clone(), h.hex())).collect(),
        result: result.hex(),
    };
    manifest.entries.retain(|e| e != &entry);
    manifest.entries.insert(0, entry);
    manifest.entries.truncate(MAX_ENTRIES);
    if let Ok(bytes) = serde_json::to_vec(&manifest) {
        let _ = store.put("deps", manifest_key, &bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_make_syntax() {
        let text =
            "out.ptx : a.cu \\\n    /usr/include/x.h \\\n    my\\ dir/h.cuh \\\n    common.cuh\n";
        let deps = parse_depfile(text, Path::new("/src"));
        assert_eq!(
            deps,
            [
                "/src/a.cu",
                "/usr/include/x.h",
                "/src/my dir/h.cuh",
                "/src/common.cuh"
            ]
            .map(PathBuf::from)
        );
    }

    #[test]
    fn manifest_hits_only_on_identical_content() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join("cache"));
        let h = dir.path().join("h.cuh");
        std::fs::write(&h, "one").unwrap();
        let mk = Key::of(b"manifest");
        let hashes = FileHashes::default();
        let deps = vec![(h.clone(), hashes.hash(&h).unwrap())];
        let result = result_key(&mk, &deps);
        record(&store, &mk, &deps, &result);
        assert_eq!(
            lookup(&store, &mk, &FileHashes::default()).map(|r| r.0),
            Some(result)
        );
        std::fs::write(&h, "two").unwrap();
        assert_eq!(lookup(&store, &mk, &FileHashes::default()), None);
        std::fs::remove_file(&h).unwrap();
        assert_eq!(lookup(&store, &mk, &FileHashes::default()), None);
    }
}
