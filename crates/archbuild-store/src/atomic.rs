//! Writing a file so that readers see the old content or the new, never a torn file: a temp
//! file in the same directory, then rename. A killed writer leaves only a `.tmp-*` file, which
//! nobody reads and eviction removes. Files are created with mode 0666 less the process's
//! umask, as compilers create their outputs (a temp file alone would be 0600, and a fat binary
//! written for a team's shared directory would be unreadable to the team).

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Writes `bytes` to `path` atomically, creating the parent directories.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_data().ok();
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The process's umask, from `/proc/self/status` (Linux 4.7 and newer); `None` elsewhere.
pub fn current_umask() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("Umask:"))?;
    u32::from_str_radix(line.trim_start_matches("Umask:").trim(), 8).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_honour_the_umask_like_a_compiler() {
        let Some(umask) = current_umask() else {
            // CI runs on Linux, where the umask is always there: skipping would assert nothing.
            assert!(
                std::env::var_os("CI").is_none(),
                "no /proc/self/status umask"
            );
            return println!("skipped: no /proc/self/status umask on this system");
        };
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.fatbin");
        std::fs::write(&p, b"old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        write_atomic(&p, b"new").unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666 & !umask, "umask {umask:o}");
    }
}
