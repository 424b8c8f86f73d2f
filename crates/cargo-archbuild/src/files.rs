//! Reading inputs and writing outputs the safe way: outputs go to a temporary file in the
//! destination directory and are renamed into place, so a failed or interrupted command never
//! leaves a half-written fat binary where a later step would trust it.

use std::io::Write;
use std::path::Path;

use crate::error::CliError;

/// The most a non-regular input (a pipe, a device) may yield: room for any fat binary or
/// kernel library one would pipe in, bounded where `/dev/zero` would feed forever. (Regular
/// files, such as a 1.5 GB libtorch_cuda, are read at their size.)
const MAX_STREAM_INPUT: u64 = 512 << 20;

/// Reads a whole input file. A regular file is read at its size; anything else (a pipe, a
/// device such as `/dev/zero`) at most [`MAX_STREAM_INPUT`] bytes, so no input can make the
/// command read without bound.
pub(crate) fn read_input(path: &Path) -> Result<Vec<u8>, CliError> {
    read_capped(path, MAX_STREAM_INPUT)
}

/// An input's bytes: a regular file mapped into memory, anything else read (capped).
pub(crate) enum Input {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for Input {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Input::Mapped(m) => m,
            Input::Read(v) => v,
        }
    }
}

/// Maps a regular input file (only the pages a reader touches are read: a listing of a large
/// library reads its headers, not its images); anything else is read as [`read_input`] does.
pub(crate) fn map_input(path: &Path) -> Result<Input, CliError> {
    let err = |source| CliError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(err)?;
    let meta = file.metadata().map_err(err)?;
    if !meta.is_file() || meta.len() == 0 {
        return read_input(path).map(Input::Read);
    }
    // SAFETY: the map is read-only and private to this process. Another process truncating the
    // file while it is mapped would make a read fault (SIGBUS); every tool that maps its
    // inputs (ripgrep, linkers) accepts that for a file the user names as input.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(err)?;
    Ok(Input::Mapped(map))
}

fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, CliError> {
    use std::io::Read;
    let err = |source| CliError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(err)?;
    if file.metadata().map_err(err)?.is_file() {
        return std::fs::read(path).map_err(err);
    }
    let mut bytes = Vec::new();
    file.take(cap + 1).read_to_end(&mut bytes).map_err(err)?;
    if bytes.len() as u64 > cap {
        return Err(err(std::io::Error::other(format!(
            "it is not a regular file and gave more than {} MiB without ending; pass a fat \
             binary, cubin, PTX, object, executable or library file",
            cap >> 20
        ))));
    }
    Ok(bytes)
}

/// Writes `bytes` to `path` atomically (temp file in the same directory, then rename).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    // The error names the output; tempfile's own would add the temporary file's path.
    let err = |source: std::io::Error| CliError::Write {
        path: path.to_path_buf(),
        source: without_temp_path(source),
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // 0666 less the umask, as nvcc creates its outputs (a bare temp file would be 0600).
    let mut tmp = tempfile::Builder::new()
        .prefix(".archbuild-")
        .suffix(".tmp")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(err)?;
    tmp.as_file_mut().write_all(bytes).map_err(err)?;
    tmp.as_file().sync_all().map_err(err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

/// The operating system's error under tempfile's "… at path TEMP" wrapper (creating and
/// renaming the temporary file report through it).
fn without_temp_path(e: std::io::Error) -> std::io::Error {
    match e.get_ref().map(ToString::to_string) {
        Some(text) if text.contains(" at path ") => {
            let os = text
                .split(" at path ")
                .next()
                .unwrap_or_default()
                .to_owned();
            std::io::Error::new(e.kind(), os)
        }
        _ => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("x.fatbin");
        write_atomic(&out, b"one").unwrap();
        write_atomic(&out, b"two").unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("x.fatbin")]);
    }

    #[test]
    fn endless_inputs_are_cut_off() {
        let e = read_capped(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        assert_eq!(e.exit_code(), crate::exit::INPUT);
    }

    #[test]
    fn outputs_honour_the_umask() {
        use std::os::unix::fs::PermissionsExt;
        let Some(umask) = archbuild_store_umask() else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("merged.fatbin");
        write_atomic(&out, b"x").unwrap();
        let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666 & !umask);
    }

    fn archbuild_store_umask() -> Option<u32> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|l| l.starts_with("Umask:"))?;
        u32::from_str_radix(line.trim_start_matches("Umask:").trim(), 8).ok()
    }

    #[test]
    fn missing_directory_is_a_write_error() {
        let dir = tempfile::tempdir().unwrap();
        let e = write_atomic(&dir.path().join("no/such/dir/x.fatbin"), b"x").unwrap_err();
        assert_eq!(e.exit_code(), crate::exit::OUTPUT);
    }
}
