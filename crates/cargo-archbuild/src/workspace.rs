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
/// would take them; `--target-dir` reaches it as `CARGO_TARGET_DIR`, which it honours.
pub(crate) fn metadata(
    manifest_path: Option<&Path>,
    command: &'static str,
    flags: &CargoFlags,
    offline: bool,
) -> Result<Metadata, CliError> {
    let mut cmd = MetadataCommand::new();
    cmd.other_options(flags.metadata_args(offline));
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
