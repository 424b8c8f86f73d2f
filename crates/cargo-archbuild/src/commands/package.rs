//! `cargo archbuild package`: build each package's kernels for its list and write the fat
//! binaries, with their build records, into the directory its `[package.metadata.archbuild]`
//! names with `prebuilt = "DIR"`, so that `cargo package` ships them and a dependent's build
//! takes them instead of compiling (`docs/publishing.md`). Prints each file's size against the
//! package's budget (`prebuilt-budget`, default crates.io's 10 MiB upload limit) and fails past it.

use std::path::{Path, PathBuf};

use archbuild::config::PackageConfig;
use archbuild::record::record_path;
use serde::Serialize;

use crate::building::{run_all, BuildOutcome, BUILD_NAME};
use crate::cli::PackageArgs;
use crate::error::CliError;
use crate::files::{display_path, write_all_atomic};
use crate::shell::{human_bytes, Shell};
use crate::workspace;

/// What one package's directory received.
#[derive(Debug, Serialize)]
struct Packaged {
    package: String,
    dir: PathBuf,
    files: Vec<PackagedFile>,
    bytes: u64,
    budget: u64,
    compression: String,
}

#[derive(Debug, Serialize)]
struct PackagedFile {
    module: String,
    fatbin: PathBuf,
    bytes: u64,
}

#[derive(Debug, Serialize)]
struct PackageReport<'a> {
    reason: &'static str,
    packages: &'a [Packaged],
}

pub(crate) fn run(args: &PackageArgs, shell: &mut Shell) -> Result<(), CliError> {
    let metadata = workspace::metadata(
        args.manifest_path.as_deref(),
        "package",
        &args.cargo,
        args.compile.offline || args.cargo.frozen,
    )?;
    let packages = super::build::select(&metadata, &args.packages)?;
    let target_dir = PathBuf::from(metadata.target_directory.as_std_path());
    if args.check {
        return check(&packages, &target_dir, args, shell);
    }
    let mut pending = Vec::new();
    let mut dests = Vec::new();
    for pkg in packages {
        let manifest = pkg.manifest_path.as_std_path();
        let config = PackageConfig::from_manifest(manifest)?;
        let Some(config) = config else { continue };
        let Some(dir) = own_dir(&config, manifest)? else {
            if args.packages.is_empty() {
                shell.note(format!(
                    "skipping `{}`: its [package.metadata.archbuild] names no `prebuilt` directory",
                    pkg.name
                ));
                continue;
            }
            return Err(no_prebuilt_key(&pkg.name, manifest));
        };
        // A fresh directory per run: nothing of an earlier run (a module since removed) can
        // reach the package.
        let out = target_dir.join("archbuild-package").join(pkg.name.as_str());
        if out.exists() {
            std::fs::remove_dir_all(&out).map_err(|e| write_error(&out, e))?;
        }
        if let Some(mut p) = super::build::pending_build(
            pkg,
            out,
            (&args.compile, args.no_provision, !args.packages.is_empty()),
            shell,
        )? {
            // Made anew: the directory's current files are what this command replaces.
            p.build.packaged(false);
            // What ships is small unless the author set a compression.
            p.build.smallest_compression();
            p.ships = false;
            let budget = config.prebuilt_budget()?;
            if let Some(estimate) = super::package_budget::estimate(&mut p.build, &dir) {
                super::package_budget::check(&p.label, estimate, budget)?;
            }
            pending.push(p);
            dests.push((dir, budget));
        }
    }
    if pending.is_empty() {
        return Err(CliError::Cargo {
            message:
                "no workspace package names a `prebuilt` directory in [package.metadata.archbuild]"
                    .into(),
            help: "add `prebuilt = \"prebuilt\"` (and `kernels = [...]`) to the kernel crate's \
                   [package.metadata.archbuild]; see docs/publishing.md"
                .into(),
        });
    }
    let outcomes = run_all(pending, shell)?;
    let mut done = Vec::new();
    for (outcome, (dir, budget)) in outcomes.iter().zip(dests) {
        done.push(ship(outcome, &dir, budget, shell)?);
    }
    if shell.is_json() {
        return shell.json(&PackageReport {
            reason: "package-finished",
            packages: &done,
        });
    }
    Ok(())
}

/// `--check`: each package's shipped fat binaries taken as a dependent's build takes them,
/// compiling nothing; the first package whose files do not match fails, naming each file and
/// what differs.
fn check(
    packages: &[&cargo_metadata::Package],
    target_dir: &Path,
    args: &PackageArgs,
    shell: &mut Shell,
) -> Result<(), CliError> {
    let mut checked = 0;
    for pkg in packages {
        let manifest = pkg.manifest_path.as_std_path();
        let Some(config) = PackageConfig::from_manifest(manifest)? else {
            continue;
        };
        let Some(dir) = own_dir(&config, manifest)? else {
            if !args.packages.is_empty() {
                return Err(no_prebuilt_key(&pkg.name, manifest));
            }
            continue;
        };
        let out = target_dir
            .join("archbuild-package-check")
            .join(pkg.name.as_str());
        let report = archbuild::Build::new()
            .manifest_dir(manifest.parent().unwrap_or(Path::new(".")))
            .out_dir(&out)
            .cargo_metadata(false)
            .quiet(true)
            .try_check_shipped(BUILD_NAME)?;
        checked += 1;
        shell.status(
            "Checked",
            format!(
                "{}: {} fat binar{} in {} match the sources, settings and targets ({} \
                 processes, nothing compiled)",
                pkg.name,
                report.prebuilt.len(),
                if report.prebuilt.len() == 1 {
                    "y"
                } else {
                    "ies"
                },
                display_path(&dir),
                report.processes_started
            ),
        );
    }
    if checked == 0 {
        return Err(CliError::Cargo {
            message: "no workspace package names a `prebuilt` directory to check".into(),
            help: "add `prebuilt = \"prebuilt\"` to the kernel crate's \
                   [package.metadata.archbuild] and run `cargo archbuild package`"
                .into(),
        });
    }
    Ok(())
}

fn no_prebuilt_key(name: &str, manifest: &Path) -> CliError {
    CliError::Cargo {
        message: format!(
            "package `{name}` names no `prebuilt` directory to package fat binaries into"
        ),
        help: format!(
            "add `prebuilt = \"prebuilt\"` to [package.metadata.archbuild] in {}",
            manifest.display()
        ),
    }
}

/// Copies one build's fat binaries and records into the package's directory (atomically, each
/// file), removes the ones of modules the build no longer makes, and checks the budget.
fn ship(
    outcome: &BuildOutcome,
    dir: &Path,
    budget: u64,
    shell: &mut Shell,
) -> Result<Packaged, CliError> {
    let report = &outcome.report;
    // A dependent builds the package's own list; one from the author's shell would ship files
    // that no dependent's default build takes.
    if let archbuild::config::ArchSource::Var(var) = &report.source {
        return Err(CliError::Cargo {
            message: format!(
                "the arch list of `{}` comes from {var} (`{}`) in this shell, and a package \
                 ships the list its dependents build by default, from Cargo.toml",
                outcome.label, report.archs
            ),
            help: format!(
                "unset {var} to ship the package's `archs`, or set that list in \
                 [package.metadata.archbuild] `archs` (or pass --archs to ship another list \
                 knowingly)"
            ),
        });
    }
    std::fs::create_dir_all(dir).map_err(|e| write_error(dir, e))?;
    let mut files = Vec::new();
    let mut contents = Vec::new();
    for m in &report.modules {
        let bytes = crate::files::read_input(&m.fatbin)?;
        // What ships names no path outside the package (the author's machine).
        let record = archbuild::record::Record::read(&record_path(&m.fatbin))?.for_package();
        let record = serde_json::to_vec_pretty(&record)
            .map_err(|e| CliError::internal(format!("a record does not serialise: {e}")))?;
        let to = dir.join(format!("{}.fatbin", m.name));
        files.push(PackagedFile {
            module: m.name.clone(),
            fatbin: to.clone(),
            bytes: bytes.len() as u64,
        });
        contents.push((record_path(&to), record));
        contents.push((to, bytes));
    }
    let total: u64 = files.iter().map(|f| f.bytes).sum();
    if total > budget {
        return Err(CliError::Cargo {
            message: format!(
                "the fat binaries of `{}` take {} ({} bytes), over the package's budget of {}",
                outcome.label,
                human_bytes(total),
                total,
                human_bytes(budget)
            ),
            help: "narrow the arch list (`archs`), choose `compression = \"size\"`, or raise \
                   `prebuilt-budget` in [package.metadata.archbuild] (crates.io refuses packages \
                   over 10 MiB)"
                .into(),
        });
    }
    let refs: Vec<(&Path, &[u8])> = contents
        .iter()
        .map(|(p, b)| (p.as_path(), b.as_slice()))
        .collect();
    for (path, _) in &refs {
        refuse_foreign(path)?;
    }
    write_all_atomic(&refs)?;
    remove_stale(dir, &files)?;
    let compression = report.compression.clone();
    for f in &files {
        shell.status(
            "Packaged",
            format!("{} ({})", display_path(&f.fatbin), human_bytes(f.bytes)),
        );
    }
    shell.status(
        "Finished",
        format!(
            "{}: {} fat binar{} in {}, {} of a {} budget (crates.io's limit is 10 MiB; \
             compression: {compression}); `cargo package` ships them",
            outcome.label,
            files.len(),
            if files.len() == 1 { "y" } else { "ies" },
            display_path(dir),
            human_bytes(total),
            human_bytes(budget)
        ),
    );
    Ok(Packaged {
        package: outcome.label.clone(),
        dir: dir.to_path_buf(),
        files,
        bytes: total,
        budget,
        compression,
    })
}

/// Removes the files an earlier `package` wrote for modules this build no longer makes: a
/// fat binary and its record go only together, and only when the record says it is that
/// module's as `package` writes it (package settings, the module's name, the file's hash).
/// Anything else in the directory — a hand-kept fat binary, a record of another tool — stays.
fn remove_stale(dir: &Path, keep: &[PackagedFile]) -> Result<(), CliError> {
    let entries = std::fs::read_dir(dir).map_err(|source| CliError::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(module) = name.strip_suffix(".fatbin") else {
            continue;
        };
        if keep.iter().any(|f| f.module == module) {
            continue;
        }
        let fatbin = e.path();
        if ours(&fatbin, module) {
            for path in [record_path(&fatbin), fatbin] {
                std::fs::remove_file(&path).map_err(|e| write_error(&path, e))?;
            }
        }
    }
    Ok(())
}

/// Whether `fatbin` is a regular file `package` wrote for `module`: its record, a regular file
/// too, names the module, carries package settings, and describes these very bytes.
fn ours(fatbin: &Path, module: &str) -> bool {
    let regular = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_file());
    let record_file = record_path(fatbin);
    if !regular(fatbin) || !regular(&record_file) {
        return false;
    }
    let Ok(record) = archbuild::record::Record::read(&record_file) else {
        return false;
    };
    let Ok(bytes) = std::fs::read(fatbin) else {
        return false;
    };
    record.module == module && record.packaged.is_some() && record.describes(fatbin, &bytes).is_ok()
}

/// Refuses to write `path` when something that is not a regular file is there: a symbolic link
/// (writing would change the file it points to, another package's perhaps), a directory, a
/// FIFO. `package` writes only files of its own.
fn refuse_foreign(path: &Path) -> Result<(), CliError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(_) => return Ok(()),
    };
    if meta.file_type().is_file() {
        return Ok(());
    }
    let what = if meta.file_type().is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    };
    Err(CliError::Cargo {
        message: format!(
            "{} is {what}; `cargo archbuild package` writes only its own files",
            path.display()
        ),
        help: "remove it (or move it out of the package's `prebuilt` directory) and run \
               `cargo archbuild package` again"
            .into(),
    })
}

/// The package's `prebuilt` directory, when it names one that `package` may fill: a directory
/// of its own, inside the package, reached through no symbolic link. The package's root (`""`,
/// `"."`) holds files that are not archbuild's; a directory outside the package (`/abs`,
/// `../x`) is one `cargo package` never ships; a link may lead into another crate.
fn own_dir(config: &PackageConfig, manifest: &Path) -> Result<Option<PathBuf>, CliError> {
    use std::path::Component;
    let Some(written) = config.prebuilt.as_deref() else {
        return Ok(None);
    };
    let root = manifest.parent().unwrap_or(Path::new("."));
    let refuse = |why: String| CliError::Cargo {
        message: format!(
            "`prebuilt = \"{written}\"` in {}: {why}",
            manifest.display()
        ),
        help: "name a directory of its own inside the package, such as `prebuilt = \"prebuilt\"` \
               (docs/publishing.md)"
            .into(),
    };
    let rel = Path::new(written.trim());
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(p) => parts.push(p),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(refuse(
                    "it is outside the package, and `cargo package` ships only files inside it"
                        .into(),
                ))
            }
        }
    }
    if parts.is_empty() {
        return Err(refuse(
            "it is the package's root, whose files are not archbuild's to replace or remove".into(),
        ));
    }
    let mut dir = root.to_path_buf();
    for p in parts {
        dir.push(p);
        let link = std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink());
        if link {
            let to = std::fs::read_link(&dir).unwrap_or_default();
            return Err(refuse(format!(
                "{} is a symbolic link (to {}), and archbuild writes only into the package's \
                 own directories",
                dir.display(),
                to.display()
            )));
        }
    }
    Ok(Some(dir))
}

fn write_error(path: &Path, source: std::io::Error) -> CliError {
    CliError::Write {
        path: path.to_path_buf(),
        source,
    }
}
