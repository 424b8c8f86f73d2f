//! A host library's outputs: the static archive of its host objects, and the lines that tell
//! Cargo to link it and the CUDA runtime its launches call.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::base::env::Syntax;
use crate::base::process::Cmd;
use crate::error::{Error, Result};
use crate::toolkit::nvcc::Toolkit;

/// How a host library links the CUDA runtime (`cudart`), as nvcc's `-cudart` and the `cc`
/// crate's `.cudart(…)` name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Cudart {
    /// `libcudart_static.a`, with the system libraries it needs (`dl`, `rt`, `pthread`): the
    /// program runs without the toolkit installed (nvcc's default).
    #[default]
    Static,
    /// `libcudart.so`: the program needs the CUDA runtime library at run time.
    Shared,
    /// Nothing: the caller links a runtime itself.
    None,
}

impl FromStr for Cudart {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "static" => Ok(Cudart::Static),
            "shared" => Ok(Cudart::Shared),
            "none" => Ok(Cudart::None),
            _ => Err(Error::Config {
                what: "CUDA runtime linkage",
                origin: "Library::cudart".into(),
                value: s.to_owned(),
                hint: "accepted: `static` (nvcc's default), `shared` or `none`".into(),
            }),
        }
    }
}

impl std::fmt::Display for Cudart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Cudart::Static => "static",
            Cudart::Shared => "shared",
            Cudart::None => "none",
        })
    }
}

/// What `Library` adds to a build's spec.
#[derive(Debug, Clone, Default)]
pub(crate) struct LibrarySpec {
    /// The archive's name (`lib<name>.a`), when not the build's.
    pub archive: Option<String>,
    /// nvcc flags for the host side only (`-O3`, `-Xcompiler -Wall`): they do not reach cicc,
    /// so they leave the device jobs' cache entries shared with kernel builds of the same flags.
    pub host_flags: Vec<String>,
    /// `None`: Cargo.toml's `cudart`, else static.
    pub cudart: Option<Cudart>,
}

/// A library build as resolved: the builder's settings over Cargo.toml's.
#[derive(Debug, Clone)]
pub(crate) struct ResolvedLibrary {
    pub archive: String,
    /// Cargo.toml's `host-flags`, then the builder's.
    pub host_flags: Vec<String>,
    pub cudart: Cudart,
}

/// Whether a build is a library build and how: `Library` (the spec) or Cargo.toml's `library`
/// key make it one; the builder's settings win over Cargo.toml's.
pub(crate) fn resolve(
    spec: Option<&LibrarySpec>,
    pkg: Option<&crate::config::manifest::PackageConfig>,
    name: &str,
) -> Result<Option<ResolvedLibrary>> {
    let pkg_name = pkg.and_then(|p| p.library.clone());
    if spec.is_none() && pkg_name.is_none() {
        return Ok(None);
    }
    let archive = spec
        .and_then(|s| s.archive.clone())
        .or(pkg_name)
        .unwrap_or_else(|| name.to_owned());
    let mut host_flags: Vec<String> = pkg.map(|p| p.host_flags.clone()).unwrap_or_default();
    host_flags.extend(spec.map(|s| s.host_flags.clone()).unwrap_or_default());
    let cudart = match (
        spec.and_then(|s| s.cudart),
        pkg.and_then(|p| p.cudart.as_deref()),
    ) {
        (Some(c), _) => c,
        (None, Some(word)) => parse_cudart(word, "Cargo.toml's `cudart`")?,
        (None, None) => Cudart::default(),
    };
    Ok(Some(ResolvedLibrary {
        archive,
        host_flags,
        cudart,
    }))
}

/// A `cudart` word, or the error naming where it came from and what is accepted.
pub(crate) fn parse_cudart(word: &str, origin: &str) -> Result<Cudart> {
    word.parse::<Cudart>().map_err(|_| Error::Config {
        what: "CUDA runtime linkage",
        origin: origin.to_owned(),
        value: word.to_owned(),
        hint: "accepted: `static` (nvcc's default), `shared` or `none`".into(),
    })
}

/// Writes `lib<name>.a` in `dir` from `(member name, object)` pairs, unless the archive there
/// already holds exactly these (a stamp beside it records their hash). Runs `ar` (binutils'
/// deterministic mode: no timestamps, owners or modes) on a temp copy, then renames it into
/// place. Returns the archive's path and whether `ar` ran.
pub(crate) fn write_archive(
    dir: &Path,
    name: &str,
    objects: &[(String, Vec<u8>)],
) -> Result<(PathBuf, bool)> {
    let archive = dir.join(format!("lib{name}.a"));
    let stamp_path = dir.join(format!("lib{name}.a.stamp"));
    let mut h = crate::base::store::KeyBuilder::new("host-archive-1");
    for (member, bytes) in objects {
        h.str("member", member);
        h.field("object", bytes);
    }
    let stamp = h.finish().hex();
    if archive.is_file() && std::fs::read_to_string(&stamp_path).is_ok_and(|s| s == stamp) {
        return Ok((archive, false));
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    let tmp = tempfile::Builder::new()
        .prefix(".archbuild-ar-")
        .tempdir_in(dir)
        .map_err(|e| Error::io("create a temporary directory in", dir, e))?;
    let mut args: Vec<std::ffi::OsString> = vec!["crsD".into(), "out.a".into()];
    for (member, bytes) in objects {
        let p = tmp.path().join(member);
        std::fs::write(&p, bytes).map_err(|e| Error::io("write", &p, e))?;
        args.push(member.into());
    }
    let mut cmd = Cmd::new("ar").args(args);
    cmd.cwd = Some(tmp.path().to_path_buf());
    let out = cmd.output()?;
    if !out.status.success() {
        return Err(Error::Compile(format!(
            "cannot archive the host objects of `{name}`: `{}` failed ({}): {}; archbuild \
             archives host objects with binutils' `ar`: install binutils",
            cmd.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let built = tmp.path().join("out.a");
    std::fs::rename(&built, &archive).map_err(|e| Error::io("write", &archive, e))?;
    crate::base::paths::write_atomic(&stamp_path, stamp.as_bytes())
        .map_err(|e| Error::io("write", &stamp_path, e))?;
    Ok((archive, true))
}

/// The directives that link the archive and the CUDA runtime, in link order, in the package's
/// syntax.
/// A relocatable library (`relocatable`) also links the device runtime, `libcudadevrt.a`, as
/// nvcc's link of relocatable code does.
pub(crate) fn link_lines(
    dir: &Path,
    (name, relocatable): (&str, bool),
    cudart: Cudart,
    tk: &Toolkit,
    syntax: Syntax,
) -> Vec<String> {
    let search = |d: &Path| syntax.line("rustc-link-search", format!("native={}", d.display()));
    let lib = |l: &str| syntax.line("rustc-link-lib", l);
    let mut lines = vec![search(dir), lib(&format!("static={name}"))];
    let lib_dir = runtime_dir(tk.root());
    if let (true, Some(d)) = (relocatable, &lib_dir) {
        if d.join("libcudadevrt.a").is_file() {
            lines.push(search(d));
            lines.push(lib("static=cudadevrt"));
        }
    }
    match (cudart, lib_dir) {
        (Cudart::None, _) => {}
        (Cudart::Static, Some(d)) => {
            lines.push(search(&d));
            lines.push(lib("static=cudart_static"));
            for sys in ["dl", "rt", "pthread"] {
                lines.push(lib(&format!("dylib={sys}")));
            }
        }
        (Cudart::Shared, Some(d)) => {
            lines.push(search(&d));
            // PyPI's runtime wheel ships `libcudart.so.13` without the `libcudart.so` link.
            if d.join("libcudart.so").exists() {
                lines.push(lib("dylib=cudart"));
            } else if let Some(v) = versioned_cudart(&d) {
                lines.push(lib(&format!("dylib:+verbatim={v}")));
            }
        }
        (_, None) => lines.push(lib("dylib=cudart")),
    }
    // The host side is C++ compiled by the host compiler.
    lines.push(lib("dylib=stdc++"));
    lines
}

/// The toolkit directory holding the CUDA runtime libraries: `lib/` (PyPI wheels), `lib64/`
/// (Linux installers) or `targets/<arch>/lib`.
fn runtime_dir(root: &Path) -> Option<PathBuf> {
    [
        "lib",
        "lib64",
        "targets/x86_64-linux/lib",
        "targets/sbsa-linux/lib",
    ]
    .iter()
    .map(|d| root.join(d))
    .find(|d| d.join("libcudart_static.a").is_file() || versioned_cudart(d).is_some())
}

fn versioned_cudart(dir: &Path) -> Option<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("libcudart.so"))
        .collect();
    names.sort();
    names.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_linkage_words_parse_and_others_name_the_accepted_ones() {
        assert_eq!("static".parse::<Cudart>().unwrap(), Cudart::Static);
        assert_eq!(" Shared".parse::<Cudart>().unwrap(), Cudart::Shared);
        assert_eq!("none".parse::<Cudart>().unwrap(), Cudart::None);
        let e = "dynamic".parse::<Cudart>().unwrap_err().to_string();
        insta::assert_snapshot!(e);
    }

    #[test]
    fn an_unchanged_archive_is_not_written_again_and_a_changed_one_is() {
        let dir = tempfile::tempdir().unwrap();
        let objs = vec![("a.o".to_string(), b"not an object".to_vec())];
        let (path, ran) = match write_archive(dir.path(), "x", &objs) {
            Ok(r) => r,
            Err(e) => {
                assert!(e.to_string().contains("binutils"), "{e}");
                return;
            }
        };
        assert!(ran && path.is_file());
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.starts_with(b"!<arch>\n"));
        assert!(!write_archive(dir.path(), "x", &objs).unwrap().1);
        let objs2 = vec![("a.o".to_string(), b"changed".to_vec())];
        assert!(write_archive(dir.path(), "x", &objs2).unwrap().1);
        assert_ne!(std::fs::read(&path).unwrap(), bytes);
    }
}
