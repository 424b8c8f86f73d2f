//! `cargo archbuild ci`: write the GitHub Actions workflow that splits the arch list into
//! shards, builds each shard on its own runner (one fat binary per kernel file, as build.rs
//! makes them), merges and checks the shards against the fleet, and makes the release build
//! from the merged fat binaries (`ARCHBUILD_PREBUILT`), as `maturin generate-ci` does for wheels.
//!
//! The workflow comes from the template embedded in this binary; the values given here are
//! checked (a package with kernels, a valid arch list and fleet, a shard count) before anything
//! is written, and the file is written atomically. `-o -` prints it instead. The workflow
//! installs this CLI from where the kernel crate gets archbuild, and a workspace that a CI
//! checkout could not build (archbuild by an absolute path, or one outside the repository) is
//! refused (see `ci_source`).

use std::path::PathBuf;

use serde::Serialize;

use crate::cli::CiArgs;
use crate::error::CliError;
use crate::files::write_atomic;
use crate::shell::Shell;
use crate::{templates, workspace};

use super::ci_source;

#[derive(Debug, Serialize)]
struct CiReport {
    reason: &'static str,
    path: PathBuf,
    kernel_crate: String,
    archs: String,
    fleet: String,
    shards: usize,
    install: String,
}

/// The default fleet the merged fat binaries are checked against: an RTX 2080, 3090, 4090 and
/// an H100 behind a CUDA 12.4 driver.
const DEFAULT_FLEET: &str = "7.5,8.6,8.9,9.0@13.0";

pub(crate) fn run(args: &CiArgs, shell: &mut Shell) -> Result<(), CliError> {
    if args.shards == 0 {
        return Err(CliError::usage(
            "`--shards 0` makes no build jobs",
            "pass --shards 1 or more (one build job per shard)",
        ));
    }
    let metadata = workspace::metadata(
        args.manifest_path.as_deref(),
        "ci",
        &crate::cli::CargoFlags::default(),
        false,
    );
    let kernel_crate = match (&args.kernel_crate, &metadata) {
        (Some(name), Ok(m)) => workspace::member(m, name)?.name.to_string(),
        (Some(name), Err(_)) => name.clone(),
        (None, Ok(m)) => only_kernel_crate(m)?,
        (None, Err(e)) => {
            return Err(CliError::usage(
                format!("no package to build: {e}"),
                "run `cargo archbuild ci` in the workspace of your kernel crate, or pass \
                 --kernel-crate NAME",
            ))
        }
    };
    let archs = args.archs.clone().unwrap_or_default();
    // Checked here, where a typo is cheap to fix; resolved on the CI runner (blank: the default).
    if !archs.trim().is_empty() {
        archbuild_arch::ArchList::check(&archs, "the --archs argument")?;
    }
    let fleet = args.fleet.clone().unwrap_or_else(|| DEFAULT_FLEET.into());
    archbuild_runtime::gpus::parse_sim(&fleet).map_err(|why| {
        CliError::usage(
            format!("invalid --fleet `{fleet}`: {why}"),
            "write GPUs as compute capabilities separated by commas, then optionally the \
             oldest driver's CUDA version after `@`, e.g. `7.5,8.6,9.0@12.4`",
        )
    })?;
    let shards = args.shards.to_string();
    let given = [
        ("archs", archs.as_str()),
        ("kernel-crate", kernel_crate.as_str()),
        ("fleet", fleet.as_str()),
        ("shards", shards.as_str()),
        ("install", args.install.as_deref().unwrap_or("")),
    ];
    check_values(&given)?;
    let install = install(args, &metadata, &kernel_crate)?;
    check_values(&[
        ("install", install.args.as_str()),
        ("cli-hash-files", install.hash_files.as_str()),
    ])?;
    let values = [
        ("archs", archs.as_str()),
        ("kernel-crate", kernel_crate.as_str()),
        ("fleet", fleet.as_str()),
        ("shards", shards.as_str()),
        ("install", install.args.as_str()),
        ("cli-hash-files", install.hash_files.as_str()),
    ];
    let text = templates::render(templates::WORKFLOW, &values).map_err(CliError::internal)?;
    let path = match &args.output {
        Some(p) if p.as_os_str() == "-" => {
            if shell.is_json() {
                return shell.json(&serde_json::json!({"reason": "ci", "workflow": text}));
            }
            return shell.println(text.trim_end());
        }
        Some(p) => p.clone(),
        None => match &metadata {
            Ok(m) => m
                .workspace_root
                .as_std_path()
                .join(".github/workflows/archbuild.yml"),
            Err(_) => PathBuf::from(".github/workflows/archbuild.yml"),
        },
    };
    if path.exists() && !args.force {
        return Err(CliError::usage(
            format!("`{}` already exists", path.display()),
            "pass --force to replace it, or -o PATH to write elsewhere (-o - prints it)",
        ));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| CliError::Write {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    write_atomic(&path, text.as_bytes())?;
    if shell.is_json() {
        return shell.json(&CiReport {
            reason: "ci",
            path,
            kernel_crate,
            archs,
            fleet,
            shards: args.shards,
            install: install.args,
        });
    }
    shell.status("Wrote", path.display());
    if args.install.is_none() {
        shell.note(format!(
            "the workflow installs cargo-archbuild with `cargo install --locked {}`, from \
             where `{kernel_crate}` gets archbuild (--install changes it)",
            install.args
        ));
    }
    Ok(())
}

/// Values that go into the workflow between double quotes: nothing that ends the string or
/// starts an Actions expression.
fn check_values(values: &[(&str, &str)]) -> Result<(), CliError> {
    for (what, value) in values {
        if value.contains(['"', '\\', '\n', '\r']) || value.contains("${{") {
            return Err(CliError::usage(
                format!("the {what} value `{value}` cannot go into the workflow"),
                "leave out double quotes, backslashes, line breaks and `${{`",
            ));
        }
    }
    Ok(())
}

/// How the workflow installs this CLI: `--install` as given, else from where the kernel crate
/// gets archbuild. Either way, a dependency on archbuild by a path that a CI checkout would
/// not have is refused first: no install makes such a workflow pass.
fn install(
    args: &CiArgs,
    metadata: &Result<cargo_metadata::Metadata, CliError>,
    kernel_crate: &str,
) -> Result<ci_source::Install, CliError> {
    if let Ok(m) = metadata {
        ci_source::check_paths(m)?;
    }
    if let Some(given) = &args.install {
        // A path install's sources are this repository's (which of them, the CLI cannot say).
        let sources = if given.split_whitespace().any(|a| a == "--path") {
            ", '**/Cargo.toml', '**/*.rs'"
        } else {
            ""
        };
        return Ok(ci_source::Install {
            args: given.clone(),
            hash_files: format!("'**/Cargo.lock'{sources}"),
        });
    }
    match metadata {
        Ok(m) => {
            let root = ci_source::repository_root(m.workspace_root.as_std_path());
            ci_source::install(workspace::member(m, kernel_crate)?, root)
        }
        Err(e) => Err(CliError::usage(
            format!("no workspace to take cargo-archbuild's source from: {e}"),
            "run `cargo archbuild ci` in the workspace of your kernel crate, or pass --install \
             with what `cargo install --locked` takes to get cargo-archbuild, e.g. --install \
             \"--git URL --rev COMMIT cargo-archbuild\"",
        )),
    }
}

/// The one workspace member that lists kernels; several or none is an error naming them.
fn only_kernel_crate(m: &cargo_metadata::Metadata) -> Result<String, CliError> {
    let with: Vec<String> = m
        .workspace_packages()
        .into_iter()
        .filter(|p| {
            archbuild::config::PackageConfig::from_manifest(p.manifest_path.as_std_path())
                .ok()
                .flatten()
                .is_some_and(|c| c.has_sources())
        })
        .map(|p| p.name.to_string())
        .collect();
    match with.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(CliError::Cargo {
            message: "no workspace package lists kernels in [package.metadata.archbuild]".into(),
            help: "add `kernels = [\"kernels/name.cu\"]` to your kernel crate's \
                   [package.metadata.archbuild], or pass --kernel-crate NAME"
                .into(),
        }),
        several => Err(CliError::usage(
            format!("several packages list kernels: {}", several.join(", ")),
            "pass --kernel-crate NAME for the one this workflow builds",
        )),
    }
}
