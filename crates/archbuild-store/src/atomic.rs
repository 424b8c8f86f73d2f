//! Writing a file so that readers see the old content or the new, never a torn file: a temp
//! file in the same directory, then rename. A killed writer leaves only a `.tmp-*` file, which
//! nobody reads and eviction removes.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically, creating the parent directories.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_data().ok();
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
