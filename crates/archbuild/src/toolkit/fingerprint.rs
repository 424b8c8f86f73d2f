//! Content identities of the programs that shape a build's outputs, for cache keys that stay
//! sound when a component changes on its own (a pip toolkit whose `nvidia-nvvm` or ptxas wheel
//! is upgraded while `nvcc --version` prints the same, a rebuilt host compiler) and that do not
//! depend on where the toolkit is installed, so two machines share entries.
//!
//! Hashing ~250 MB of binaries costs about half a second, so each file's hash is remembered in
//! the local tier of the store, keyed by its path, size, modification time and inode: an
//! unchanged rebuild reads a few stamps and hashes nothing.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use crate::base::store::{Key, KeyBuilder, Store};
use crate::toolkit::nvcc::Toolkit;

/// The files of a toolkit that shape what archbuild produces: the compiler driver and its
/// configuration, the device front end and its libdevice, the assembler, and the tools nvcc
/// runs on the way (cudafe++, fatbinary).
fn toolkit_files(tk: &Toolkit) -> Vec<(String, PathBuf)> {
    let root = tk.root();
    let mut files: Vec<(String, PathBuf)> = [
        "bin/nvcc",
        "bin/nvcc.profile",
        "bin/ptxas",
        "bin/fatbinary",
        "bin/cudafe++",
        "nvvm/bin/cicc",
    ]
    .iter()
    .map(|rel| (rel.to_string(), root.join(rel)))
    .collect();
    // The tools archbuild runs are found next to nvcc, which need not be under `root/bin`.
    files[0].1 = tk.nvcc().to_path_buf();
    files[2].1 = tk.tool("ptxas");
    if let Ok(rd) = std::fs::read_dir(root.join("nvvm/libdevice")) {
        let mut bc: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        bc.sort();
        for p in bc {
            let name = format!(
                "nvvm/libdevice/{}",
                p.file_name().unwrap_or_default().to_string_lossy()
            );
            files.push((name, p));
        }
    }
    files
}

/// The toolkit's identity: its version text and the content of every file that shapes
/// outputs (absent files count as absent).
pub(crate) fn toolkit(tk: &Toolkit, store: Option<&Store>) -> Key {
    let mut b = KeyBuilder::new("toolkit-content");
    b.str("version", tk.identity());
    for (name, path) in toolkit_files(tk) {
        match file_hash(&path, store) {
            Some(h) => b.key(&name, &h),
            None => b.str(&name, "absent"),
        };
    }
    b.finish()
}

/// A file's content hash, remembered by stamp in the local store.
pub(crate) fn file_hash(path: &Path, store: Option<&Store>) -> Option<Key> {
    let path = std::fs::canonicalize(path).ok()?;
    let md = std::fs::metadata(&path).ok()?;
    let mtime = md
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    let memo = KeyBuilder::new("file-stamp")
        .str("path", &path.to_string_lossy())
        .str("len", &md.len().to_string())
        .str("mtime", &mtime.to_string())
        .str("inode", &format!("{}:{}", md.dev(), md.ino()))
        .finish();
    if let Some(k) = store
        .and_then(|s| s.get_local("stamp", &memo))
        .and_then(|b| b.try_into().ok().map(Key))
    {
        return Some(k);
    }
    // BLAKE3 (SIMD) hashes the toolkit in a fraction of SHA-256's time; this runs once per
    // file per machine, on a first build that is otherwise all compiling.
    let mut hasher = blake3::Hasher::new();
    hasher
        .update_reader(std::fs::File::open(&path).ok()?)
        .ok()?;
    let h = Key(*hasher.finalize().as_bytes());
    if let Some(s) = store {
        let _ = s.put_local("stamp", &memo, &h.0);
    }
    Some(h)
}
