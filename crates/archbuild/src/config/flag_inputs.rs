//! Inputs named inside flags. A flag can make a compiler read a file or search a directory
//! that no other setting names: `-I`/`-isystem` directories, `-include` files, nvcc's
//! `--options-file`, a host compiler's `@file`, the host compiler itself (`-ccbin`). The cache
//! key must hash such files and probe such directories like any other input, so this module
//! finds them in nvcc's command-line grammar (`-X v`, `-X=v`, `-Xv` for one-letter options,
//! comma-separated lists) and in `-Xcompiler` values (the host compiler's grammar).

use std::path::{Path, PathBuf};

use crate::base::env::Env;

/// What flags name besides themselves.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct FlagInputs {
    /// Files a compiler reads (options files, response files, forced includes), as given.
    pub files: Vec<PathBuf>,
    /// Directories the preprocessor searches, in order, as given.
    pub dirs: Vec<PathBuf>,
    /// The last `-ccbin`/`--compiler-bindir` value.
    pub ccbin: Option<String>,
}

/// nvcc options whose value is a directory searched for headers.
const NVCC_DIRS: &[&str] = &["-I", "--include-path", "-isystem", "--system-include"];
/// nvcc options whose value is a file a compile reads.
const NVCC_FILES: &[&str] = &["-include", "--pre-include", "-optf", "--options-file"];
/// nvcc options whose value is an options file (its words are flags too).
const NVCC_OPTION_FILES: &[&str] = &["-optf", "--options-file"];
/// Host-compiler options with a directory value, as gcc and clang spell them.
const HOST_DIRS: &[&str] = &["-I", "-isystem", "-iquote", "-idirafter"];
/// Host-compiler options with a file value.
const HOST_FILES: &[&str] = &["-include", "-imacros"];

/// The variables whose words nvcc gets besides a build's own flags: archbuild's
/// (`ARCHBUILD_NVCC_FLAGS`, split as a shell would) and nvcc's (split on white space, as nvcc
/// splits them).
pub const NVCC_FLAG_VARS: &[&str] = &[
    "ARCHBUILD_NVCC_FLAGS",
    "NVCC_PREPEND_FLAGS",
    "NVCC_APPEND_FLAGS",
];

/// The words of one of [`NVCC_FLAG_VARS`], split as a build splits them; `None` when
/// `ARCHBUILD_NVCC_FLAGS` leaves a quote open.
pub(crate) fn env_words(env: &Env, var: &str) -> Option<Vec<String>> {
    let value = env.var(var).unwrap_or_default();
    if var == "ARCHBUILD_NVCC_FLAGS" {
        // Shell words, so `-Xcompiler "-O2 -g"` stays one flag and its argument.
        shlex::split(&value)
    } else {
        Some(value.split_whitespace().map(str::to_owned).collect())
    }
}

/// Every file a compile with these nvcc flags reads or runs besides its sources, named inside
/// the flags or the environment's nvcc words ([`NVCC_FLAG_VARS`]): options files (and what
/// they name), forced includes, host-compiler response files, and a host compiler given as a
/// path (`-ccbin`, `NVCC_CCBIN`); relative ones resolved against `base`. The CLI refuses an
/// output that would replace one of them.
pub fn files_named_in_flags(flags: &[String], env: &Env, base: &Path) -> Vec<PathBuf> {
    let mut words = flags.to_vec();
    for var in NVCC_FLAG_VARS {
        words.extend(env_words(env, var).unwrap_or_default());
    }
    let found = scan(&words, base);
    let ccbins = found.ccbin.into_iter().chain(env.var("NVCC_CCBIN"));
    let programs = ccbins.filter(|c| Path::new(c).components().count() > 1);
    let mut files: Vec<PathBuf> = found
        .files
        .into_iter()
        .chain(programs.map(PathBuf::from))
        .map(|f| crate::base::paths::lexical(&base.join(f)))
        .collect();
    files.dedup();
    files
}

/// Scans nvcc flags; options files are read (relative to `base`) and scanned too, once each.
pub(crate) fn scan(flags: &[String], base: &Path) -> FlagInputs {
    let mut found = FlagInputs::default();
    let mut seen = Vec::new();
    scan_into(flags, base, &mut found, &mut seen, 0);
    let mut files = Vec::new();
    for f in found.files.drain(..) {
        if !files.contains(&f) {
            files.push(f);
        }
    }
    found.files = files;
    found
}

fn scan_into(
    flags: &[String],
    base: &Path,
    found: &mut FlagInputs,
    seen: &mut Vec<PathBuf>,
    depth: usize,
) {
    let mut i = 0;
    while i < flags.len() {
        let (name, value, used) = split_option(flags, i);
        i += used;
        let Some(value) = value else { continue };
        if NVCC_DIRS.contains(&name.as_str()) {
            found.dirs.extend(list(&value).map(PathBuf::from));
        } else if NVCC_FILES.contains(&name.as_str()) {
            for f in list(&value) {
                let path = PathBuf::from(f);
                found.files.push(path.clone());
                let is_options = NVCC_OPTION_FILES.contains(&name.as_str());
                if is_options && depth < 4 && !seen.contains(&path) {
                    seen.push(path.clone());
                    let text = std::fs::read_to_string(base.join(&path)).unwrap_or_default();
                    let words = shlex::split(&text).unwrap_or_default();
                    scan_into(&words, base, found, seen, depth + 1);
                }
            }
        } else if name == "-ccbin" || name == "--compiler-bindir" {
            found.ccbin = Some(value);
        } else if name == "-Xcompiler" || name == "--compiler-options" {
            host(&value, found);
        }
    }
}

/// The option at `i`: its name, its value (from `=`, the next word, or glued to a one-letter
/// option), and how many words it used.
fn split_option(flags: &[String], i: usize) -> (String, Option<String>, usize) {
    let f = &flags[i];
    if let Some((name, v)) = f.split_once('=') {
        if name.starts_with('-') {
            return (name.to_owned(), Some(v.to_owned()), 1);
        }
    }
    let takes_value = NVCC_DIRS
        .iter()
        .chain(NVCC_FILES)
        .chain(
            [
                "-ccbin",
                "--compiler-bindir",
                "-Xcompiler",
                "--compiler-options",
            ]
            .iter(),
        )
        .any(|n| n == f)
        || f == "-Xcicc"
        || f == "-Xptxas"
        || f == "--ptxas-options"
        || f == "-D"
        || f == "-U";
    if takes_value {
        return (f.clone(), flags.get(i + 1).cloned(), 2);
    }
    if let Some(dir) = f.strip_prefix("-I").filter(|d| !d.is_empty()) {
        return ("-I".into(), Some(dir.to_owned()), 1);
    }
    (f.clone(), None, 1)
}

/// An nvcc list value: comma-separated, `\,` keeping a comma.
fn list(value: &str) -> impl Iterator<Item = String> + '_ {
    let mut items = vec![String::new()];
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&',') => {
                items.last_mut().unwrap().push(',');
                chars.next();
            }
            ',' => items.push(String::new()),
            c => items.last_mut().unwrap().push(c),
        }
    }
    items.into_iter().filter(|s| !s.is_empty())
}

/// A `-Xcompiler` value: host-compiler words.
fn host(value: &str, found: &mut FlagInputs) {
    let words: Vec<String> = list(value).collect();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        i += 1;
        if let Some(file) = w.strip_prefix('@') {
            found.files.push(PathBuf::from(file));
            continue;
        }
        for opt in HOST_DIRS.iter().chain(HOST_FILES) {
            let value = if w == opt {
                i += 1;
                words.get(i - 1).cloned()
            } else if opt.len() == 2 {
                w.strip_prefix(opt)
                    .filter(|v| !v.is_empty())
                    .map(str::to_owned)
            } else {
                None
            };
            if let Some(v) = value {
                if HOST_DIRS.contains(opt) {
                    found.dirs.push(PathBuf::from(v));
                } else {
                    found.files.push(PathBuf::from(v));
                }
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn finds_directories_files_and_the_host_compiler_in_every_spelling() {
        let f = scan(
            &s(&[
                "-Ia",
                "-I",
                "b",
                "--include-path=c,d",
                "-isystem",
                "e",
                "-include",
                "pre.h",
                "-Xcompiler",
                "-Ix,-isystem,y,@resp.txt,-include,forced.h,-O2",
                "--compiler-options=-iquote,q",
                "-ccbin",
                "/opt/gcc",
                "-O3",
                "-DX=-Ifake",
            ]),
            Path::new("/nonexistent"),
        );
        let dirs: Vec<_> = f.dirs.iter().map(|p| p.to_str().unwrap()).collect();
        assert_eq!(dirs, ["a", "b", "c", "d", "e", "x", "y", "q"]);
        let files: Vec<_> = f.files.iter().map(|p| p.to_str().unwrap()).collect();
        assert_eq!(files, ["pre.h", "resp.txt", "forced.h"]);
        assert_eq!(f.ccbin.as_deref(), Some("/opt/gcc"));
    }

    #[test]
    fn options_files_are_read_and_scanned() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("opts"),
            "-I inner --options-file opts\n-ccbin clang",
        )
        .unwrap();
        let f = scan(&s(&["--options-file", "opts"]), dir.path());
        assert_eq!(f.files, vec![PathBuf::from("opts")]);
        assert_eq!(f.dirs, vec![PathBuf::from("inner")]);
        assert_eq!(f.ccbin.as_deref(), Some("clang"));
    }

    #[test]
    fn lists_keep_escaped_commas() {
        let v: Vec<String> = list(r"a\,b,c").collect();
        assert_eq!(v, ["a,b", "c"]);
    }
}
