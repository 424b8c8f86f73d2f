//! What a kernel crate hands its dependents' build scripts. Cargo passes a build script's
//! metadata to the build scripts of the crates that depend on it *when the crate declares
//! `links = "…"`*, as `DEP_<LINKS>_<KEY>` (the `-sys` crates' way to hand over include
//! directories and versions). archbuild prints these keys (`docs/cargo.md`, "Metadata for
//! dependents"):
//!
//! | key | value |
//! |---|---|
//! | `ARCHS` | the resolved arch list, canonical (`7.5 8.6+PTX`) |
//! | `TARGETS` | every target of the build's fat binaries (`sm_75 sm_86 compute_86`) |
//! | `TOOLKIT` | the CUDA release that compiled them |
//! | `FATBIN_DIR` | the directory of the build's fat binaries |
//! | `FATBIN_<MODULE>` | each module's fat binary |
//! | `RUST_MODULE` | the generated Rust module, when written |
//! | `LIB`, `LIB_DIR` | a host library's static archive and its directory |
//! | `INCLUDE` | every header library's include directories, joined as `PATH` is |
//! | `HEADERS` | the header libraries' names |
//! | `INCLUDE_<NAME>`, `VERSION_<NAME>` | one header library's directories and version |
//!
//! `<MODULE>` and `<NAME>` are upper-cased with every other character than a letter or digit as
//! `_`, as Cargo names the variables.

use std::path::{Path, PathBuf};

use crate::base::env::Syntax;
use crate::headers::tree::Resolved;
use crate::report::BuildReport;

/// The metadata lines of a finished build, in the package's directive syntax.
pub(crate) fn lines(report: &BuildReport, headers: &[Resolved], syntax: Syntax) -> Vec<String> {
    let mut kv: Vec<(String, String)> = Vec::new();
    let mut put = |k: &str, v: String| kv.push((k.to_owned(), v));
    put("ARCHS", report.archs.to_string());
    let mut targets: Vec<&str> = Vec::new();
    for t in report.modules.iter().flat_map(|m| &m.targets) {
        if !targets.contains(&t.as_str()) {
            targets.push(t);
        }
    }
    put("TARGETS", targets.join(" "));
    put("TOOLKIT", report.toolkit.clone());
    if let Some(dir) = report.modules.first().and_then(|m| m.fatbin.parent()) {
        put("FATBIN_DIR", display(dir));
    }
    for m in &report.modules {
        put(&format!("FATBIN_{}", key(&m.name)), display(&m.fatbin));
    }
    if let Some(rs) = &report.rust_module {
        put("RUST_MODULE", display(rs));
    }
    if let Some(lib) = &report.library {
        put("LIB", display(&lib.archive));
        if let Some(dir) = lib.archive.parent() {
            put("LIB_DIR", display(dir));
        }
    }
    let all: Vec<&PathBuf> = headers.iter().flat_map(|h| &h.dirs).collect();
    if !all.is_empty() {
        put("INCLUDE", joined(&all));
        let names: Vec<&str> = headers.iter().map(|h| h.name.as_str()).collect();
        put("HEADERS", names.join(" "));
    }
    for h in headers {
        let dirs: Vec<&PathBuf> = h.dirs.iter().collect();
        put(&format!("INCLUDE_{}", key(&h.name)), joined(&dirs));
        put(&format!("VERSION_{}", key(&h.name)), version(&h.pin));
    }
    kv.into_iter()
        .map(|(k, v)| syntax.metadata(&k, v))
        .collect()
}

/// A key as Cargo's variable names have it.
fn key(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            c if c.is_ascii_alphanumeric() => c.to_ascii_uppercase(),
            _ => '_',
        })
        .collect()
}

fn display(p: &Path) -> String {
    p.display().to_string()
}

/// Directories joined as `PATH` joins them (a dependent splits them with
/// `std::env::split_paths`).
fn joined(dirs: &[&PathBuf]) -> String {
    std::env::join_paths(dirs.iter().copied())
        .map(|j| j.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A pin's version: `pypi:nvidia-cutlass==4.2.0` → `4.2.0`; a directory's pin (`path`,
/// `git:<rev>`) as it is.
fn version(pin: &str) -> String {
    pin.rsplit_once("==").map_or(pin, |(_, v)| v).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_named_as_cargo_names_the_variables_and_versions_come_from_pins() {
        assert_eq!(key("nvidia-cutlass"), "NVIDIA_CUTLASS");
        assert_eq!(key("add.v2"), "ADD_V2");
        assert_eq!(version("pypi:nvidia-cutlass==4.2.0"), "4.2.0");
        assert_eq!(version("git:1a2b3c"), "git:1a2b3c");
        assert_eq!(
            Syntax::for_rust_version(Some("1.70")).metadata("ARCHS", "8.6"),
            "cargo:ARCHS=8.6"
        );
        assert_eq!(
            Syntax::for_rust_version(None).metadata("ARCHS", "8.6"),
            "cargo::metadata=ARCHS=8.6"
        );
        assert_eq!(
            Syntax::for_rust_version(Some("1.80.1")),
            Syntax::Double { error: false }
        );
    }
}
