//! The identity of a header library's files: a content hash (BLAKE3 over every file's relative
//! path and content, in sorted order) and a cheap stat fingerprint (path, size, mtime, ctime),
//! so a build re-reads the content only when some file's metadata changed. Markers that keep
//! both live in archbuild's home: inside each installed library, and under `headers/local/`
//! for directories the user provides.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::paths::Home;

/// The marker file at the root of an installed library; not part of its tree.
pub(crate) const MARKER: &str = ".archbuild-header.json";

/// A tree's content hash and its stat fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TreeId {
    /// BLAKE3 over every file's relative path and content, hex.
    pub content: String,
    /// BLAKE3 over every file's relative path, size, mtime and ctime, hex.
    pub stat: String,
    pub files: usize,
}

/// How trees are hashed; a marker of older rules is checked by those once (`hash_with`).
/// 2: pip's install record (`*.dist-info/` at a root) is not part of a tree.
pub(crate) const TREE_RULES: u32 = 2;

/// Every regular file (or link to one) under `dirs`, as `(label, path)`, sorted by label
/// (`<index>/<relative path>`); the marker at a root is skipped, and so is pip's record of the
/// install (a `*.dist-info` directory at a root) unless `with_metadata`: it names the wheel's
/// path on this machine (`direct_url.json`), so two installs of one wheel would differ. The
/// wheel itself is pinned by version and SHA-256, and every header is hashed. A link to a
/// directory is not followed (a cycle would never end); its target names it.
fn files(
    dirs: &[PathBuf],
    with_metadata: bool,
) -> io::Result<Vec<(String, PathBuf, Option<String>)>> {
    let mut out = Vec::new();
    for (i, root) in dirs.iter().enumerate() {
        let mut stack = vec![(root.clone(), String::new())];
        while let Some((dir, rel)) = stack.pop() {
            for e in std::fs::read_dir(&dir)? {
                let e = e?;
                let name = e.file_name().to_string_lossy().into_owned();
                if rel.is_empty()
                    && (name == MARKER || (!with_metadata && name.ends_with(".dist-info")))
                {
                    continue;
                }
                let rel_name = if rel.is_empty() {
                    name
                } else {
                    format!("{rel}/{name}")
                };
                let path = e.path();
                let ft = e.file_type()?;
                if ft.is_dir() {
                    stack.push((path, rel_name));
                } else if ft.is_symlink() && path.is_dir() {
                    let target = std::fs::read_link(&path)?;
                    out.push((
                        format!("{i}/{rel_name}"),
                        path,
                        Some(target.to_string_lossy().into_owned()),
                    ));
                } else {
                    out.push((format!("{i}/{rel_name}"), path, None));
                }
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// The stat fingerprint of the files under `dirs`: it changes when a file is added, removed,
/// resized or written (its ctime moves even when its mtime is set back).
pub(crate) fn stat(dirs: &[PathBuf]) -> io::Result<(String, usize)> {
    use std::os::unix::fs::MetadataExt;
    let list = files(dirs, false)?;
    let mut h = blake3::Hasher::new();
    for (label, path, link) in &list {
        h.update(label.as_bytes()).update(b"\0");
        match link {
            Some(t) => h.update(t.as_bytes()),
            None => {
                let md = std::fs::metadata(path)?;
                h.update(
                    format!(
                        "{} {}.{} {}.{} {}",
                        md.len(),
                        md.mtime(),
                        md.mtime_nsec(),
                        md.ctime(),
                        md.ctime_nsec(),
                        md.ino()
                    )
                    .as_bytes(),
                )
            }
        };
        h.update(b"\n");
    }
    Ok((h.finalize().to_hex().to_string(), list.len()))
}

/// The content hash and stat fingerprint of the files under `dirs`.
pub(crate) fn hash(dirs: &[PathBuf]) -> io::Result<TreeId> {
    hash_with(dirs, false)
}

/// `hash`, with pip's install record hashed too when `with_metadata` (rules 1).
pub(crate) fn hash_with(dirs: &[PathBuf], with_metadata: bool) -> io::Result<TreeId> {
    let list = files(dirs, with_metadata)?;
    let (stat, _) = stat(dirs)?;
    let mut h = blake3::Hasher::new();
    for (label, path, link) in &list {
        h.update(label.as_bytes()).update(b"\0");
        match link {
            Some(t) => {
                h.update(b"link:").update(t.as_bytes());
            }
            None => {
                let bytes = std::fs::read(path)?;
                h.update(blake3::hash(&bytes).to_hex().as_bytes());
            }
        }
        h.update(b"\n");
    }
    Ok(TreeId {
        content: h.finalize().to_hex().to_string(),
        stat,
        files: list.len(),
    })
}

/// Reads a marker; `None` when absent or unreadable.
pub(crate) fn read_marker<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// The content hash of a directory the user provides, re-read only when its stat fingerprint
/// differs from the one remembered in `<home>/headers/local/` (remembered only when
/// `may_write`). A home that cannot be written only costs the shortcut.
pub(crate) fn local_content(home: &Home, dirs: &[PathBuf], may_write: bool) -> io::Result<String> {
    let joined: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    let id = blake3::hash(joined.join("\0").as_bytes()).to_hex();
    let marker = home
        .root()
        .join("headers/local")
        .join(format!("{}.json", &id[..32]));
    let (stat, _) = stat(dirs)?;
    if let Some(m) = read_marker::<TreeId>(&marker).filter(|m| m.stat == stat) {
        return Ok(m.content);
    }
    let tree = hash(dirs)?;
    if let Some(bytes) = serde_json::to_vec_pretty(&tree).ok().filter(|_| may_write) {
        let _ = crate::base::paths::write_atomic(&marker, &bytes);
    }
    Ok(tree.content)
}

/// A library ready for the compile: its include directories and its identity for the keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resolved {
    pub name: String,
    /// `pypi:nvidia-cutlass==4.2.0`, `path`, `git:<rev>`.
    pub pin: String,
    /// BLAKE3 of the tree (`tree::hash`), hex.
    pub content: String,
    /// Absolute include directories, in order.
    pub dirs: Vec<PathBuf>,
    /// The same, relative to the library's root (what the key holds).
    pub rel_dirs: Vec<String>,
}

impl Resolved {
    /// The key's value: the pin, the content and the include directories inside the library;
    /// not its name (a label) nor where it is on this machine.
    pub(crate) fn key_value(&self) -> String {
        format!(
            "{} content={} include={}",
            self.pin,
            self.content,
            self.rel_dirs.join(",")
        )
    }
}
