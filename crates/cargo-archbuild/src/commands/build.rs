//! `cargo archbuild build`: build the kernels of the workspace's packages that have
//! `[package.metadata.archbuild]` (found with `cargo metadata`), as their build scripts would,
//! into `<target-dir>/<profile>/archbuild/<package>/`, with a progress bar over the compile jobs;
//! then summarise what each fat binary holds and what each local GPU will load from it.
//!
//! Cargo's `-p/--package`, `--workspace`, `--release`/`--profile` and `--manifest-path` select
//! the packages and the output directory as they do for `cargo build`.

use std::path::PathBuf;

use archbuild::{config::PackageConfig, Build};
use cargo_metadata::{Metadata, Package};
use serde::Serialize;

use crate::building::{
    cli_env_for, cli_env_with, no_gpu_note, print_summary, run_all, BuildOutcome, Pending,
};
use crate::cli::{BuildArgs, CompileOptions};
use crate::error::CliError;
use crate::shell::Shell;
use crate::workspace::{self, has_table};

#[derive(Debug, Serialize)]
struct BuildCommandReport<'a> {
    reason: &'static str,
    profile: String,
    packages: &'a [BuildOutcome],
}

pub(crate) fn run(args: &BuildArgs, shell: &mut Shell) -> Result<(), CliError> {
    let offline = args.compile.offline || args.cargo.frozen;
    let metadata =
        workspace::metadata(args.manifest_path.as_deref(), "build", &args.cargo, offline)?;
    let packages = select(&metadata, &args.packages)?;
    let profile_dir = match (&args.profile, args.release) {
        (Some(p), _) if p == "dev" || p == "test" => "debug".to_string(),
        (Some(p), _) if p == "bench" => "release".to_string(),
        (Some(p), _) => p.clone(),
        (None, true) => "release".to_string(),
        (None, false) => "debug".to_string(),
    };
    // Cargo's layout: `<target-dir>/<triple>/<profile>` with `--target`.
    let mut target_dir = PathBuf::from(metadata.target_directory.as_std_path());
    if let Some(t) = &args.cargo.target {
        target_dir.push(t);
    }
    let mut pending = Vec::new();
    for pkg in packages {
        let out = match &args.out_dir {
            Some(d) => d.join(pkg.name.as_str()),
            None => target_dir
                .join(&profile_dir)
                .join("archbuild")
                .join(pkg.name.as_str()),
        };
        let explicit = !args.packages.is_empty();
        let options = (&args.compile, args.no_provision, explicit);
        if let Some(mut p) = pending_build(pkg, out, options, shell)? {
            if let Some(t) = &args.cargo.target {
                // The host compiler for that target (`CXX_<triple>`), as a build script sees it.
                p.build.env(cli_env_with(offline, Some(t)));
            }
            pending.push(p);
        }
    }
    if pending.is_empty() {
        return Err(CliError::Cargo {
            message: "no workspace package lists kernels in [package.metadata.archbuild]".into(),
            help:
                "add `kernels = [\"kernels/name.cu\"]` to a package's [package.metadata.archbuild]"
                    .into(),
        });
    }
    let outcomes = run_all(pending, shell)?;
    if shell.is_json() {
        return shell.json(&BuildCommandReport {
            reason: "build-finished",
            profile: profile_dir,
            packages: &outcomes,
        });
    }
    let modules: usize = outcomes.iter().map(|o| o.report.modules.len()).sum();
    shell.status(
        "Finished",
        format!(
            "{modules} fat binar{} for {} package(s)",
            plural(modules),
            outcomes.len()
        ),
    );
    print_summary(&outcomes, Some(&no_gpu_note()), shell)
}

/// The build of one package's kernels into `out`, as its build script would run it; `None`
/// (with a note) for a package whose table lists no kernels when it was not named with `-p`.
pub(crate) fn pending_build(
    pkg: &Package,
    out: PathBuf,
    (compile, no_provision, explicit): (&CompileOptions, bool, bool),
    shell: &mut Shell,
) -> Result<Option<Pending>, CliError> {
    let manifest = pkg.manifest_path.as_std_path();
    let dir = manifest.parent().unwrap_or(manifest).to_path_buf();
    let config = PackageConfig::from_manifest(manifest)?;
    if config.as_ref().is_none_or(|c| !c.has_sources()) {
        if !explicit {
            // A table with only `archs` (e.g. host code compiled by the cc crate): nothing
            // for this command to build unless the package is named explicitly.
            shell.note(format!(
                "skipping `{}`: its [package.metadata.archbuild] lists no kernels",
                pkg.name
            ));
            return Ok(None);
        }
        return Err(CliError::Cargo {
            message: format!(
                "package `{}` has [package.metadata.archbuild] but lists no kernels for `cargo archbuild build`",
                pkg.name
            ),
            help: format!(
                "add `kernels = [\"kernels/name.cu\"]` to [package.metadata.archbuild] in {}",
                manifest.display()
            ),
        });
    }
    let mut b = Build::new();
    b.manifest_dir(&dir)
        .env(cli_env_for(compile.offline))
        .out_dir(&out)
        .rust_module(false)
        .quiet(true)
        .cargo_metadata(false)
        .provision(!no_provision);
    compile.apply(&mut b);
    let ships = config
        .as_ref()
        .and_then(PackageConfig::prebuilt_dir)
        .is_some_and(|d| d.is_dir());
    Ok(Some(Pending {
        label: pkg.name.to_string(),
        build: b,
        per_module: true,
        ships,
    }))
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        "y"
    } else {
        "ies"
    }
}

/// The packages to build: those named with `-p` (each must be a workspace member with
/// `[package.metadata.archbuild]`), else every workspace member that has the table.
pub(crate) fn select<'a>(
    metadata: &'a Metadata,
    specs: &[String],
) -> Result<Vec<&'a Package>, CliError> {
    if specs.is_empty() {
        let with: Vec<&Package> = metadata
            .workspace_packages()
            .into_iter()
            .filter(|p| has_table(p))
            .collect();
        if with.is_empty() {
            return Err(CliError::Cargo {
                message: "no package in this workspace has [package.metadata.archbuild]".into(),
                help: "add `[package.metadata.archbuild]` with `kernels = [\"kernels/name.cu\"]` to a package's \
                       Cargo.toml (see docs/getting-started.md), or use `cargo archbuild compile FILES`"
                    .into(),
            });
        }
        return Ok(with);
    }
    let mut out = Vec::new();
    for spec in specs {
        let pkg = workspace::member(metadata, spec)?;
        if !has_table(pkg) {
            return Err(CliError::Cargo {
                message: format!("package `{}` has no [package.metadata.archbuild]", pkg.name),
                help: format!(
                    "add `[package.metadata.archbuild]` with `kernels = [\"kernels/name.cu\"]` to {}",
                    pkg.manifest_path
                ),
            });
        }
        out.push(pkg);
    }
    Ok(out)
}
