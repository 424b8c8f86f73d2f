//! Where the workflow of `cargo archbuild ci` gets archbuild from. A CI job has the
//! repository's checkout and nothing else of this machine, at another path: every dependency on
//! an archbuild crate must come from a version, a git repository or a relative path inside the
//! repository (anything else is refused before a workflow is written), and the CLI is installed
//! from where the kernel crate's `archbuild` comes from, so it exists (a `cargo-archbuild` of
//! this version need not be on crates.io) and matches the build driver its build script runs.

use std::path::{Component, Path, PathBuf};

use cargo_metadata::{Dependency, Metadata, MetadataCommand, Package};

use crate::error::CliError;

/// The crates of archbuild a workspace may depend on.
const ARCHBUILD_CRATES: &[&str] = &[
    "archbuild",
    "archbuild-runtime",
    "archbuild-arch",
    "archbuild-config",
    "archbuild-fatbin",
    "archbuild-store",
];

/// How the workflow installs cargo-archbuild.
#[derive(Debug)]
pub(crate) struct Install {
    /// What `cargo install --locked` takes: `--git URL --rev COMMIT cargo-archbuild`,
    /// `cargo-archbuild --version ^0.1`, `--path crates/cargo-archbuild`.
    pub args: String,
    /// The `hashFiles` patterns of the cached binary's key: what, changed, may change the CLI
    /// (the lock file: a newer archbuild; installed from this repository, its sources too).
    pub hash_files: String,
}

/// The repository a CI run checks out: the nearest directory at or above `workspace_root`
/// with a `.git`, else the workspace root (a repository's root once it is one).
pub(crate) fn repository_root(workspace_root: &Path) -> &Path {
    workspace_root
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(workspace_root)
}

/// Refuses a workspace member's dependency on an archbuild crate by a path that a checkout of
/// the repository at another place would not have: an absolute one, or one that leaves the
/// repository. Cargo itself says where each path leads from such a place: the workspace is
/// read again through a link to the repository from a temporary directory, and a relative
/// path inside the repository then leads into the link, while the others do not.
pub(crate) fn check_paths(metadata: &Metadata) -> Result<(), CliError> {
    let path_deps = |m: &Metadata| -> Vec<(String, String, PathBuf)> {
        m.workspace_packages()
            .iter()
            .flat_map(|p| p.dependencies.iter().map(move |d| (p, d)))
            .filter(|(_, d)| ARCHBUILD_CRATES.contains(&d.name.as_str()))
            .filter_map(|(p, d)| {
                let path = d.path.as_ref()?.as_std_path().to_path_buf();
                Some((p.name.to_string(), d.name.clone(), path))
            })
            .collect()
    };
    let mut here = path_deps(metadata);
    if here.is_empty() {
        return Ok(());
    }
    let workspace = metadata.workspace_root.as_std_path();
    let root = repository_root(workspace);
    // Deeper than the repository, so that no relative path leads to one place from both.
    let temp = tempfile::tempdir().map_err(|e| CliError::internal(e.to_string()))?;
    let deep: PathBuf = root.components().map(|_| "d").collect();
    let link = temp.path().join(deep).join("checkout");
    std::fs::create_dir_all(link.parent().unwrap_or(temp.path()))
        .and_then(|()| std::os::unix::fs::symlink(root, &link))
        .map_err(|e| CliError::internal(format!("a link to {}: {e}", root.display())))?;
    let inside = workspace.strip_prefix(root).unwrap_or(Path::new(""));
    let moved = MetadataCommand::new()
        .no_deps()
        .manifest_path(link.join(inside).join("Cargo.toml"))
        .exec()
        .map_err(|source| CliError::Metadata {
            command: "ci",
            source,
        })?;
    // The same dependencies in the same order (sorted stably: a package's in its manifest's).
    let mut there = path_deps(&moved);
    here.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    there.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    let root_shown = root.display();
    let refused: Vec<(&str, &str, String)> = here
        .iter()
        .zip(&there)
        .filter(|(_, (_, _, moved))| !moved.starts_with(&link))
        .map(|((package, dep, path), (_, _, moved))| {
            // A path that did not move with the repository was written absolute.
            let place = if moved == path {
                format!("the absolute path `{}`", path.display())
            } else {
                format!(
                    "the path `{}`, outside the repository at `{root_shown}`",
                    path.display()
                )
            };
            (package.as_str(), dep.as_str(), place)
        })
        .collect();
    let Some(((package, dep, place), more)) = refused.split_first() else {
        return Ok(());
    };
    let also: Vec<String> = more
        .iter()
        .map(|(p, d, place)| format!("`{p}`'s `{d}`, by {place}"))
        .collect();
    let also = if also.is_empty() {
        String::new()
    } else {
        format!(" (nor {})", also.join("; "))
    };
    Err(CliError::Cargo {
        message: format!(
            "`{package}` depends on `{dep}` by {place}, which a CI checkout of the repository \
             does not have{also}"
        ),
        help: format!(
            "the workflow takes archbuild by version, by git, or by a relative path inside the \
             repository: depend on it by version (`{dep} = \"{}\"`) or git (`{dep} = {{ git = \
             \"URL\", rev = \"COMMIT\" }}`) in Cargo.toml, then run `cargo archbuild ci` again",
            super::new::published_requirement()
        ),
    })
}

/// How the workflow installs cargo-archbuild for `kernel`: from where its `archbuild` (else
/// its `archbuild-runtime`) comes from. `root` is the repository's (see [`repository_root`]);
/// a path dependency is one inside it ([`check_paths`] refused the others).
pub(crate) fn install(kernel: &Package, root: &Path) -> Result<Install, CliError> {
    let no_source = |why: String| {
        CliError::usage(
            why,
            "pass --install with what `cargo install --locked` takes to get cargo-archbuild, \
             e.g. --install \"--git URL --rev COMMIT cargo-archbuild\"",
        )
    };
    let lock = "'**/Cargo.lock'".to_owned();
    let Some(dep) = ["archbuild", "archbuild-runtime"]
        .iter()
        .find_map(|name| kernel.dependencies.iter().find(|d| d.name == *name))
    else {
        return Err(no_source(format!(
            "`{}` has no archbuild dependency to take cargo-archbuild's source from",
            kernel.name
        )));
    };
    if let Some(path) = &dep.path {
        // Inside the repository, in words a workflow can hold (`'` would end `hashFiles`' string).
        let cli = path
            .as_std_path()
            .strip_prefix(root)
            .ok()
            .filter(|rel| rel.components().all(|c| matches!(c, Component::Normal(_))))
            .and_then(Path::parent)
            .map(|dir| dir.join("cargo-archbuild"))
            .filter(|cli| {
                cli.to_str().is_some_and(|s| {
                    s.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "._/-".contains(c))
                })
            });
        let Some(cli) = cli.filter(|cli| root.join(cli).join("Cargo.toml").is_file()) else {
            return Err(no_source(format!(
                "`{}` takes `{}` from `{path}`, beside which there is no cargo-archbuild in \
                 the repository for the workflow to install",
                kernel.name, dep.name
            )));
        };
        let shown = cli.display();
        let sources = cli.parent().unwrap_or(Path::new("")).join("**");
        return Ok(Install {
            args: format!("--path {shown}"),
            hash_files: format!("'{}', {lock}", sources.display()),
        });
    }
    let source = dep.source.as_ref().map(|s| s.repr.as_str()).unwrap_or("");
    let args = if let Some(git) = source.strip_prefix("git+") {
        git_args(git)
    } else if source.starts_with("registry+") || source.starts_with("sparse+") {
        registry_args(dep)
    } else {
        return Err(no_source(format!(
            "`{}` takes `{}` from `{source}`, which cargo-archbuild cannot be installed from",
            kernel.name, dep.name
        )));
    };
    Ok(Install {
        args,
        hash_files: lock,
    })
}

/// `--git URL [--rev R | --tag T | --branch B] cargo-archbuild` for a git source
/// (`URL?rev=R`, as `cargo metadata` writes it, without `git+`).
fn git_args(source: &str) -> String {
    let source = source.split('#').next().unwrap_or(source);
    let (url, query) = source.split_once('?').unwrap_or((source, ""));
    let mut args = vec!["--git".to_owned(), url.to_owned()];
    for (key, value) in query.split('&').filter_map(|kv| kv.split_once('=')) {
        if matches!(key, "rev" | "tag" | "branch") {
            args.push(format!("--{key}"));
            args.push(percent_decoded(value));
        }
    }
    args.push("cargo-archbuild".into());
    args.join(" ")
}

/// `[--index URL] cargo-archbuild [--version REQ]` for a registry dependency.
fn registry_args(dep: &Dependency) -> String {
    let mut args = Vec::new();
    if let Some(index) = &dep.registry {
        args.extend(["--index".to_owned(), index.clone()]);
    }
    args.push("cargo-archbuild".to_owned());
    let req = dep.req.to_string();
    if req != "*" {
        args.extend(["--version".to_owned(), req]);
    }
    args.join(" ")
}

/// `%2F` and the like decoded, as a git reference in a source URL may be written.
fn percent_decoded(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = (bytes[i] == b'%')
            .then(|| s.get(i + 1..i + 3))
            .flatten()
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match hex {
            Some(b) => {
                out.push(b);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_git_source_gives_cargo_install_s_git_arguments() {
        assert_eq!(
            git_args("https://example.invalid/archbuild?rev=0123abc"),
            "--git https://example.invalid/archbuild --rev 0123abc cargo-archbuild"
        );
        assert_eq!(
            git_args("https://example.invalid/archbuild?branch=release%2F0.1#0123abc"),
            "--git https://example.invalid/archbuild --branch release/0.1 cargo-archbuild"
        );
        assert_eq!(
            git_args("https://example.invalid/archbuild"),
            "--git https://example.invalid/archbuild cargo-archbuild"
        );
    }

    #[test]
    fn the_repository_is_the_nearest_directory_with_git() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("repo/ws");
        std::fs::create_dir_all(&ws).unwrap();
        if !dir.path().ancestors().any(|d| d.join(".git").exists()) {
            assert_eq!(repository_root(&ws), ws);
        }
        std::fs::create_dir_all(dir.path().join("repo/.git")).unwrap();
        assert_eq!(repository_root(&ws), dir.path().join("repo"));
    }
}
