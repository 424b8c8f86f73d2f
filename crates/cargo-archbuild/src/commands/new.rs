//! `cargo archbuild new PATH`: scaffold a kernel crate (Cargo.toml with
//! `[package.metadata.archbuild]`, a build.rs, one kernel, the loader wiring and a runnable
//! main) from the templates embedded in this binary, as `cargo new` and `maturin new` do; no
//! cargo-generate needed.
//!
//! The archbuild dependencies point at what works today: `--archbuild-path` (a checkout),
//! `--archbuild-git` (a repository, pinned with `--archbuild-rev`), `--archbuild-version` (the
//! published crates); without any, the checkout this CLI was installed from (`cargo install
//! --path`), if it is still there, else the published version.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::NewArgs;
use crate::error::CliError;
use crate::files::write_atomic;
use crate::shell::Shell;
use crate::templates;

#[derive(Debug, Serialize)]
struct NewReport {
    reason: &'static str,
    name: String,
    path: PathBuf,
    /// Where the archbuild crates come from: `path …`, `git …`, `version …`.
    archbuild: String,
    files: Vec<PathBuf>,
}

/// Where the generated crate gets `archbuild` and `archbuild-runtime` from.
enum Source {
    Path(PathBuf),
    Git { url: String, rev: Option<String> },
    Version(String),
}

impl Source {
    fn dependency(&self, krate: &str) -> String {
        match self {
            // The version too: `cargo package` ships a crate's path dependencies by version.
            Source::Path(root) => format!(
                "{krate} = {{ path = {:?}, version = \"{}\" }}",
                root.join("crates").join(krate).display().to_string(),
                published_requirement()
            ),
            Source::Git {
                url,
                rev: Some(rev),
            } => {
                format!("{krate} = {{ git = {url:?}, rev = {rev:?} }}")
            }
            Source::Git { url, rev: None } => format!("{krate} = {{ git = {url:?} }}"),
            Source::Version(v) => format!("{krate} = {v:?}"),
        }
    }

    fn describe(&self) -> String {
        match self {
            Source::Path(root) => format!("path {}", root.display()),
            Source::Git { url, rev } => format!("git {url} {}", rev.as_deref().unwrap_or("")),
            Source::Version(v) => format!("version {v}"),
        }
    }
}

pub(crate) fn run(args: &NewArgs, shell: &mut Shell) -> Result<(), CliError> {
    let name = match &args.name {
        Some(n) => n.clone(),
        None => args
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    check_name(&name)?;
    let source = source(args)?;
    let archs_line = match &args.archs {
        Some(list) => {
            // Checked now so a typo is reported here, with the accepted forms, not at build
            // time; `native` and `all` are resolved by the build, on the machine that builds.
            archbuild_arch::ArchList::check(list, "the --archs argument")?;
            format!("archs = {list:?}\n")
        }
        None => String::new(),
    };
    if std::fs::read_dir(&args.path).is_ok_and(|mut d| d.next().is_some()) {
        return Err(CliError::usage(
            format!(
                "destination `{}` already exists and is not empty",
                args.path.display()
            ),
            "choose a new directory name, or remove the existing one",
        ));
    }
    let crate_name = name.replace('-', "_");
    let values = [
        ("project-name", name.as_str()),
        ("crate_name", crate_name.as_str()),
        ("archbuild-dependency", &source.dependency("archbuild")),
        (
            "archbuild-runtime-dependency",
            &source.dependency("archbuild-runtime"),
        ),
        ("archs-line", archs_line.as_str()),
    ];
    let mut files = Vec::new();
    for (rel, text) in templates::KERNEL_CRATE {
        let text = templates::render(text, &values).map_err(CliError::internal)?;
        let path = args.path.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| CliError::Write {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        write_atomic(&path, text.as_bytes())?;
        files.push(PathBuf::from(rel));
    }
    if shell.is_json() {
        return shell.json(&NewReport {
            reason: "new",
            name,
            path: args.path.clone(),
            archbuild: source.describe(),
            files,
        });
    }
    shell.status(
        "Created",
        format!("kernel crate `{name}` in {}", args.path.display()),
    );
    shell.note(format!(
        "archbuild comes from {} (change it with --archbuild-path, --archbuild-git or \
         --archbuild-version)",
        source.describe()
    ));
    if let Some(root) = enclosing_workspace(&args.path) {
        shell.warn(format!(
            "{} is inside the workspace of {}: add it to that workspace's `members` (or to \
             `exclude`, and give the new crate an empty `[workspace]` table), or cargo will \
             refuse to build it",
            args.path.display(),
            root.display()
        ));
    }
    shell.println(format!(
        "next: cd {} && cargo build && cargo run",
        args.path.display()
    ))
}

/// The manifest of a workspace above `dir` (Cargo's own search: the nearest ancestor
/// `Cargo.toml` with a `[workspace]` table), which would claim the new crate.
fn enclosing_workspace(dir: &Path) -> Option<PathBuf> {
    // `..` taken away lexically, as Cargo normalizes a path: `repo/../k` is not inside `repo`.
    let mut normal = PathBuf::new();
    for c in std::path::absolute(dir).ok()?.components() {
        match c {
            std::path::Component::ParentDir => {
                normal.pop();
            }
            std::path::Component::CurDir => {}
            c => normal.push(c),
        }
    }
    normal.ancestors().skip(1).find_map(|a| {
        let manifest = a.join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).ok()?;
        text.lines()
            .any(|l| l.trim() == "[workspace]")
            .then_some(manifest)
    })
}

/// A valid Cargo package name that is also a usable crate name.
fn check_name(name: &str) -> Result<(), CliError> {
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        return Ok(());
    }
    Err(CliError::usage(
        format!("`{name}` is not a valid package name"),
        "use ASCII letters, digits, `-` and `_`, starting with a letter (e.g. `my-kernels`); \
         pass --name NAME to name the package differently from its directory",
    ))
}

fn source(args: &NewArgs) -> Result<Source, CliError> {
    if let Some(given) = &args.archbuild_path {
        let root = std::path::absolute(given).unwrap_or_else(|_| given.clone());
        if !root.join("crates/archbuild-runtime/Cargo.toml").is_file() {
            return Err(CliError::usage(
                format!(
                    "`--archbuild-path {}` is not an archbuild checkout (no crates/archbuild-runtime/Cargo.toml)",
                    given.display()
                ),
                "pass the directory of the archbuild repository (the one with crates/ and docs/)",
            ));
        }
        return Ok(Source::Path(root));
    }
    if let Some(url) = &args.archbuild_git {
        return Ok(Source::Git {
            url: url.clone(),
            rev: args.archbuild_rev.clone(),
        });
    }
    if let Some(v) = &args.archbuild_version {
        return Ok(Source::Version(v.clone()));
    }
    Ok(match installed_from() {
        Some(root) => Source::Path(root),
        None => Source::Version(published_requirement()),
    })
}

/// The checkout this binary was built from, when it is still there (`cargo install --path`).
fn installed_from() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.join("crates/archbuild-runtime/Cargo.toml")
        .is_file()
        .then(|| root.canonicalize().ok())
        .flatten()
}

/// `0.1` for version 0.1.x: the published crates this CLI matches.
pub(super) fn published_requirement() -> String {
    let v = env!("CARGO_PKG_VERSION");
    v.split('.').take(2).collect::<Vec<_>>().join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crate_beside_a_workspace_through_dot_dot_is_not_inside_it() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("repo");
        std::fs::create_dir_all(ws.join("crates")).unwrap();
        std::fs::write(ws.join("Cargo.toml"), "[workspace]\nmembers = []\n").unwrap();
        assert_eq!(enclosing_workspace(&ws.join("../my_kernels")), None);
        assert_eq!(
            enclosing_workspace(&ws.join("crates/../my_kernels")),
            Some(ws.join("Cargo.toml"))
        );
    }
}
