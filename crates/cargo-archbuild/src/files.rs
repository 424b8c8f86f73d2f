//! Reading inputs and writing outputs the safe way: outputs go to a temporary file in the
//! destination directory and are renamed into place (archbuild's one atomic writer,
//! `archbuild_config::stage`, flushed to disk before the rename), so a failed or interrupted
//! command never leaves a half-written fat binary where a later step would trust it. Every
//! output of every command goes through [`write_atomic`], which replaces only a regular file
//! this user may write (following a symbolic link to it) and refuses anything else; commands
//! refuse an output that is one of their inputs ([`refuse_input_as_output`]).

use std::path::{Path, PathBuf};

use archbuild_config::{stage, Durability};

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

/// Writes `bytes` to `path` atomically (temp file in the same directory, then rename), under
/// the rules every output follows (see [`output_target`]).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    write_all_atomic(&[(path, bytes)])
}

/// Writes several files that belong together (a fat binary and its record): every output is
/// checked and every temporary file written before the first rename, so a refused or failed
/// output leaves all of them as they were.
pub(crate) fn write_all_atomic(files: &[(&Path, &[u8])]) -> Result<(), CliError> {
    let targets = files
        .iter()
        .map(|(path, _)| output_target(path))
        .collect::<Result<Vec<_>, _>>()?;
    let mut staged = Vec::with_capacity(files.len());
    for ((path, bytes), target) in files.iter().zip(&targets) {
        let tmp = stage(target, bytes, Durability::Synced).map_err(|e| write_error(path, e))?;
        staged.push(tmp);
    }
    for ((path, _), tmp) in files.iter().zip(staged) {
        tmp.commit().map_err(|e| write_error(path, e))?;
    }
    Ok(())
}

/// The error for output `path`; tempfile's own would name the temporary file.
fn write_error(path: &Path, source: std::io::Error) -> CliError {
    CliError::Write {
        path: path.to_path_buf(),
        source: without_temp_path(source),
    }
}

/// The file an output path has archbuild write, or why it must not: a regular file (or none
/// yet) is replaced whole; a symbolic link is followed, so the file it points to gets the new
/// bytes and the link stays; anything else (a directory, a FIFO, a device such as `/dev/null`,
/// a socket) is refused, since renaming a file onto it would destroy it. An existing file must
/// be writable by this user: replacing a read-only file is not archbuild's to decide.
pub(crate) fn output_target(path: &Path) -> Result<PathBuf, CliError> {
    let target = follow_links(path).map_err(|source| write_error(path, source))?;
    let meta = match std::fs::symlink_metadata(&target) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(target),
        Err(source) => return Err(write_error(path, source)),
    };
    if meta.is_file() {
        // Opening for writing without truncating changes nothing, and asks the kernel the
        // question that matters (mode, ACLs, a read-only mount).
        std::fs::OpenOptions::new()
            .write(true)
            .open(&target)
            .map_err(|source| write_error(path, source))?;
        return Ok(target);
    }
    let kind = file_kind(&meta.file_type());
    let what = if target == path {
        format!("`{}` is {kind}", path.display())
    } else {
        format!(
            "`{}` is a symbolic link to `{}`, {kind}",
            path.display(),
            target.display()
        )
    };
    let help = if meta.is_dir() {
        format!(
            "name a file, e.g. `-o {}`",
            Path::new(path).join("kernels.fatbin").display()
        )
    } else {
        format!(
            "name a regular file (e.g. `-o kernels.fatbin`) and copy it on afterwards \
             (`cat kernels.fatbin > {}`)",
            path.display()
        )
    };
    Err(CliError::usage(
        format!(
            "{what}, not a regular file: archbuild writes an output by renaming a complete new \
             file onto it, which would destroy it"
        ),
        help,
    ))
}

/// Where `path`'s chain of symbolic links ends (the path itself when it is none): relative
/// links resolve against the directory holding them, as the kernel does.
fn follow_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut at = path.to_path_buf();
    // Linux gives up after 40 links (ELOOP); so does this.
    for _ in 0..40 {
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&at)?;
                at = match at.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(at),
        }
    }
    Err(std::io::Error::other(
        "too many levels of symbolic links (a cycle?)",
    ))
}

/// A non-regular file's kind in words, with its article.
fn file_kind(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// A file's identity (device and inode, links followed); `None` when it does not exist.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Refuses an output that is one of the files the command read: `inputs` are `(path as
/// shown, what it is to the command)`. Files are compared by identity, so a symbolic or hard
/// link to an input, or another spelling of its path, is caught too.
pub(crate) fn refuse_input_as_output<'a>(
    output: &Path,
    inputs: impl IntoIterator<Item = (&'a Path, &'a str)>,
) -> Result<(), CliError> {
    let Some(out) = file_id(output) else {
        return Ok(());
    };
    for (input, what) in inputs {
        if file_id(input) == Some(out) {
            return Err(CliError::usage(
                format!(
                    "the output `{}` is also an input (`{}`): writing it would replace the \
                     {what} with the fat binary",
                    output.display(),
                    display_path(input)
                ),
                "name another output file, e.g. `-o kernels.fatbin`",
            ));
        }
    }
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

/// A path relative to the current directory when it is below it (shorter lines).
pub(crate) fn display_path(p: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    p.strip_prefix(&cwd).unwrap_or(p).display().to_string()
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
        let Some(umask) = archbuild_config::current_umask() else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("merged.fatbin");
        write_atomic(&out, b"x").unwrap();
        let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666 & !umask);
    }

    #[test]
    fn files_written_together_are_all_written_or_none() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("m.fatbin");
        std::fs::write(&out, b"old").unwrap();
        // The second output is a directory: refused before the first is touched.
        let record = dir.path().join("m.fatbin.archbuild.json");
        std::fs::create_dir(&record).unwrap();
        let e = write_all_atomic(&[(&out, b"new"), (&record, b"{}")]).unwrap_err();
        assert_eq!(e.exit_code(), crate::exit::USAGE, "{e}");
        assert!(e.to_string().contains("is a directory"), "{e}");
        assert_eq!(std::fs::read(&out).unwrap(), b"old");
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, ["m.fatbin", "m.fatbin.archbuild.json"]);
    }

    #[test]
    fn a_chain_of_relative_links_is_followed_to_its_end_and_a_cycle_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::os::unix::fs::symlink("sub/b", dir.path().join("a")).unwrap();
        std::os::unix::fs::symlink("c.fatbin", dir.path().join("sub/b")).unwrap();
        let a = dir.path().join("a");
        // A dangling link is written through: the file it names is created.
        write_atomic(&a, b"x").unwrap();
        assert_eq!(
            std::fs::read(dir.path().join("sub/c.fatbin")).unwrap(),
            b"x"
        );
        assert!(std::fs::symlink_metadata(&a)
            .unwrap()
            .file_type()
            .is_symlink());
        std::os::unix::fs::symlink("loop", dir.path().join("loop")).unwrap();
        let e = write_atomic(&dir.path().join("loop"), b"x").unwrap_err();
        assert!(e.to_string().contains("too many levels"), "{e}");
    }

    #[test]
    fn missing_directory_is_a_write_error() {
        let dir = tempfile::tempdir().unwrap();
        let e = write_atomic(&dir.path().join("no/such/dir/x.fatbin"), b"x").unwrap_err();
        assert_eq!(e.exit_code(), crate::exit::OUTPUT);
    }
}
