//! The Cargo workspace a command runs in, via `cargo metadata`: shared by `build` (which
//! packages to build) and `matrix` (whose `[package.metadata.archbuild] archs` a build would
//! use, so the CI shards match what the build scripts compile).

use std::path::Path;

use archbuild::config::PackageConfig;
use cargo_metadata::{Metadata, MetadataCommand, Package};

use crate::cli::CargoFlags;
use crate::error::CliError;

/// `cargo metadata` (`--no-deps` unless the lock file is to be checked) for the workspace at `manifest_path` (or the current directory),
/// with Cargo's flags (`--locked`, `--offline`, `--features`, `--target`, …) as `cargo build`
/// would take them, for the one platform a build resolves (`--filter-platform`: the target, else
/// the host); `--target-dir` reaches it as `CARGO_TARGET_DIR`, which it honours.
pub(crate) fn metadata(
    manifest_path: Option<&Path>,
    command: &'static str,
    flags: &CargoFlags,
    offline: bool,
) -> Result<Metadata, CliError> {
    let mut cmd = MetadataCommand::new();
    cmd.other_options(flags.metadata_args(offline, host_triple));
    // `--locked` asserts the lock file is current, which only a resolve checks.
    if !(flags.locked || flags.frozen) {
        cmd.no_deps();
    }
    if let Some(m) = manifest_path {
        cmd.manifest_path(m);
    }
    if let Some(dir) = &flags.target_dir {
        let cwd = std::env::current_dir().unwrap_or_default();
        cmd.env("CARGO_TARGET_DIR", cwd.join(dir));
    }
    cmd.exec()
        .map_err(|source| CliError::Metadata { command, source })
}

/// The host's target triple, as Cargo learns it: the `host:` line of `rustc -vV`, run as
/// `RUSTC` when that is set. `None` when rustc cannot say (then `cargo metadata` resolves for
/// every platform, and reports a missing rustc itself where it needs one).
fn host_triple() -> Option<String> {
    let rustc = std::env::var_os("RUSTC")
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "rustc".into());
    let out = std::process::Command::new(rustc).arg("-vV").output().ok()?;
    out.status
        .success()
        .then(|| host_line(&String::from_utf8_lossy(&out.stdout)))
        .flatten()
}

/// The triple of `rustc -vV`'s `host: x86_64-unknown-linux-gnu` line.
fn host_line(version: &str) -> Option<String> {
    version
        .lines()
        .find_map(|l| l.strip_prefix("host:"))
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
}

/// Whether a package has a `[package.metadata.archbuild]` table.
pub(crate) fn has_table(p: &Package) -> bool {
    p.metadata.get("archbuild").is_some_and(|v| v.is_object())
}

/// The workspace member named by `spec` (`name` or `name@version`), or an error listing the
/// members that have `[package.metadata.archbuild]`.
pub(crate) fn member<'a>(metadata: &'a Metadata, spec: &str) -> Result<&'a Package, CliError> {
    let name = spec.split('@').next().unwrap_or(spec);
    let members = metadata.workspace_packages();
    members
        .iter()
        .copied()
        .find(|p| p.name.as_str() == name)
        .ok_or_else(|| {
            let names: Vec<&str> = members
                .iter()
                .filter(|p| has_table(p))
                .map(|p| p.name.as_str())
                .collect();
            CliError::Cargo {
                message: format!("package `{spec}` is not a member of this workspace"),
                help: if names.is_empty() {
                    "no member has [package.metadata.archbuild] yet".into()
                } else {
                    format!("packages with kernels: {}", names.join(", "))
                },
            }
        })
}

/// The `archs` a build would take from Cargo.toml, for `matrix` and other planning commands.
///
/// With `-p`, that package's. Without it: the current package (as Cargo picks it) if it sets
/// `archs`, else the one value every workspace member that sets `archs` agrees on; members that
/// disagree are an error naming them, since no single matrix fits both. Outside a Cargo
/// workspace there is no manifest (CMake projects use `CUDAARCHS`), unless `-p` or
/// `--manifest-path` asked for one.
pub(crate) fn manifest_archs(
    package: Option<&str>,
    manifest_path: Option<&Path>,
    command: &'static str,
) -> Result<Option<String>, CliError> {
    let metadata = match metadata(manifest_path, command, &CargoFlags::default(), false) {
        Ok(m) => m,
        Err(e) if package.is_some() || manifest_path.is_some() => return Err(e),
        Err(_) => return Ok(None),
    };
    let archs_of = |p: &Package| -> Result<Option<String>, CliError> {
        if !has_table(p) {
            return Ok(None);
        }
        let config = PackageConfig::from_manifest(p.manifest_path.as_std_path())?;
        Ok(config
            .and_then(|c| c.archs)
            .filter(|a| !a.trim().is_empty()))
    };
    if let Some(spec) = package {
        return archs_of(member(&metadata, spec)?);
    }
    if let Some(current) = current_package(metadata.workspace_packages(), manifest_path) {
        if let Some(a) = archs_of(current)? {
            return Ok(Some(a));
        }
    }
    let mut found: Vec<(String, String)> = Vec::new();
    for p in metadata.workspace_packages() {
        if let Some(a) = archs_of(p)? {
            found.push((p.name.to_string(), a));
        }
    }
    match found.as_slice() {
        [] => Ok(None),
        [(_, first), rest @ ..] if rest.iter().all(|(_, a)| a == first) => Ok(Some(first.clone())),
        _ => {
            let listed: Vec<String> = found
                .iter()
                .map(|(n, a)| format!("`{n}` (`{a}`)"))
                .collect();
            Err(CliError::Cargo {
                message: format!(
                    "workspace packages set different arch lists: {}",
                    listed.join(", ")
                ),
                help: format!(
                    "pass -p PACKAGE to `cargo archbuild {command}`, or --archs to choose the list"
                ),
            })
        }
    }
}

/// The package Cargo would call "current": the one whose Cargo.toml is `manifest_path`, or the
/// nearest Cargo.toml above the working directory. (`cargo metadata --no-deps` reports no root
/// package, so this is worked out here.)
fn current_package<'a>(
    members: Vec<&'a Package>,
    manifest_path: Option<&Path>,
) -> Option<&'a Package> {
    let wanted = match manifest_path {
        Some(m) => m.canonicalize().ok()?,
        None => {
            let cwd = std::env::current_dir().ok()?;
            cwd.ancestors()
                .map(|d| d.join("Cargo.toml"))
                .find(|m| m.is_file())?
                .canonicalize()
                .ok()?
        }
    };
    members.into_iter().find(|p| {
        p.manifest_path
            .as_std_path()
            .canonicalize()
            .is_ok_and(|m| m == wanted)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_triple_is_rustc_s_host_line() {
        let v = "rustc 1.91.0 (f8297e351 2025-10-28)\nbinary: rustc\nhost: x86_64-unknown-linux-gnu\nrelease: 1.91.0\n";
        assert_eq!(host_line(v).as_deref(), Some("x86_64-unknown-linux-gnu"));
        assert_eq!(host_line("rustc 1.91.0\n"), None);
        // This machine's rustc answers (the tests run under Cargo, which found one).
        assert!(host_triple().is_some_and(|t| t.contains('-')));
    }

    /// `cargo metadata` resolves for one platform, as `cargo build` does: the `--target`
    /// given, else the host's (asked for only then).
    #[test]
    fn metadata_resolves_for_the_target_else_the_host() {
        let host = || Some("x86_64-unknown-linux-gnu".to_owned());
        let flags = CargoFlags::default();
        assert_eq!(
            flags.metadata_args(true, host),
            ["--offline", "--filter-platform", "x86_64-unknown-linux-gnu"]
        );
        let cross = CargoFlags {
            target: Some("aarch64-unknown-linux-gnu".into()),
            ..CargoFlags::default()
        };
        let asked = std::cell::Cell::new(false);
        let args = cross.metadata_args(false, || {
            asked.set(true);
            host()
        });
        assert_eq!(args, ["--filter-platform", "aarch64-unknown-linux-gnu"]);
        assert!(!asked.get(), "the host is asked for only without --target");
        assert_eq!(flags.metadata_args(false, || None), Vec::<String>::new());
    }
}
