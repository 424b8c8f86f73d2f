//! Header-only libraries a build compiles against (CUTLASS/CuTe, a newer CCCL), declared in
//! `[package.metadata.archbuild.headers]` or with [`Build::header_library`](crate::Build), and
//! pinned: a PyPI wheel by exact version (installed once into `<home>/headers/`, see
//! `install.rs`), a local directory, or a git checkout whose `HEAD` must be the pinned
//! commit. Each resolves to include directories (after the user's `-I`s, before the toolkit's)
//! and an identity — name, pin and the content hash of its tree — which enters every cicc key
//! (`jobs/keys.rs`, field `header-library`).

use std::path::{Path, PathBuf};

use crate::base::env::Env;
use crate::base::paths::Home;
use crate::base::process::Cmd;
use crate::base::pypi::InstallEvent;
use crate::base::shown::Shown;
use crate::error::{Error, Result};
use crate::headers::install::{self, known_layout, KNOWN_PACKAGES};
use crate::headers::tree::{self, Resolved};

/// A header-only library for the compile: where its headers come from and how they are pinned.
///
/// ```
/// use archbuild::HeaderLibrary;
/// let cutlass = HeaderLibrary::pypi("nvidia-cutlass", "4.2.0");
/// let mine = HeaderLibrary::path("mylib", "third_party/mylib/include");
/// let pinned = HeaderLibrary::git("cutlass", "third_party/cutlass/include", "e51efbfe");
/// assert_eq!(cutlass.name(), "nvidia-cutlass");
/// # let _ = (mine, pinned);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderLibrary {
    name: String,
    source: Source,
    include: Vec<PathBuf>,
    sha256: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    Pypi { package: String, version: String },
    Path { dir: PathBuf, rev: Option<String> },
}

impl HeaderLibrary {
    /// A PyPI package by exact version, e.g. `pypi("nvidia-cutlass", "4.2.0")`; the library is
    /// named after the package. Packages outside `archbuild::headers::KNOWN_PACKAGES` need [`include`](Self::include).
    pub fn pypi(package: &str, version: &str) -> Self {
        Self {
            name: package.to_owned(),
            source: Source::Pypi {
                package: package.to_owned(),
                version: version.to_owned(),
            },
            include: Vec::new(),
            sha256: None,
        }
    }

    /// A directory of headers you provide (relative: to the package directory); it is the
    /// include directory unless [`include`](Self::include) names some inside it.
    pub fn path(name: &str, dir: impl AsRef<Path>) -> Self {
        Self {
            name: name.to_owned(),
            source: Source::Path {
                dir: dir.as_ref().to_path_buf(),
                rev: None,
            },
            include: Vec::new(),
            sha256: None,
        }
    }

    /// [`path`](Self::path) inside a git checkout whose `HEAD` must be `rev` (a commit hash, at
    /// least 7 hex digits); the build is refused otherwise.
    pub fn git(name: &str, dir: impl AsRef<Path>, rev: &str) -> Self {
        let mut lib = Self::path(name, dir);
        if let Source::Path { rev: r, .. } = &mut lib.source {
            *r = Some(rev.to_owned());
        }
        lib
    }

    /// The SHA-256 of the PyPI wheel (64 hex digits), checked before it is installed.
    pub fn sha256(mut self, hex: &str) -> Self {
        self.sha256 = Some(hex.to_owned());
        self
    }

    /// An include directory, relative to the installed package (PyPI) or to the directory
    /// (path, git); several calls add several, in order.
    pub fn include(mut self, dir: impl AsRef<Path>) -> Self {
        self.include.push(dir.as_ref().to_path_buf());
        self
    }

    /// The library's name (a PyPI library's package name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Relative paths made absolute against the package directory.
    pub(crate) fn rooted(mut self, base: &Path) -> Self {
        if let Source::Path { dir, .. } = &mut self.source {
            *dir = crate::base::paths::lexical(&base.join(&*dir));
        }
        self
    }
}

/// The build's libraries: Cargo.toml's, then the build script's (which replace Cargo.toml's of
/// the same name), each installed or checked and hashed.
pub(crate) fn resolve_all(
    from_manifest: &[HeaderLibrary],
    from_build: &[HeaderLibrary],
    base: &Path,
    env: &Env,
    home: &Home,
    may_write: bool,
    progress: &mut dyn FnMut(&InstallEvent),
) -> Result<Vec<Resolved>> {
    let mut libs: Vec<HeaderLibrary> = Vec::new();
    for lib in from_manifest.iter().chain(from_build) {
        libs.retain(|l| l.name != lib.name);
        libs.push(lib.clone().rooted(base));
    }
    libs.iter()
        .map(|l| resolve(l, env, home, may_write, progress))
        .collect()
}

fn bad(name: &str, problem: impl Into<String>, fix: impl Into<String>) -> Error {
    Error::HeaderLibrary {
        name: name.to_owned(),
        problem: problem.into(),
        fix: fix.into(),
    }
}

/// One library, installed when `may_write` (a build) or found installed (a plan).
fn resolve(
    lib: &HeaderLibrary,
    env: &Env,
    home: &Home,
    may_write: bool,
    progress: &mut dyn FnMut(&InstallEvent),
) -> Result<Resolved> {
    check_declaration(lib)?;
    match &lib.source {
        Source::Pypi { package, version } => {
            resolve_pypi(lib, package, version, env, home, may_write, progress)
        }
        Source::Path { dir, rev } => resolve_path(lib, dir, rev.as_deref(), home, may_write),
    }
}

/// Refuses what is wrong whatever the source: `sha256` on a directory, an include directory
/// outside the library.
fn check_declaration(lib: &HeaderLibrary) -> Result<()> {
    let name = &lib.name;
    if let (Some(s), Source::Path { .. }) = (&lib.sha256, &lib.source) {
        return Err(bad(
            name,
            format!("`sha256 = \"{s}\"` pins a PyPI wheel, and this library is a directory"),
            "remove `sha256`; a directory is pinned by `rev` (a git checkout) and by the content \
             hash archbuild records",
        ));
    }
    for inc in &lib.include {
        if inc.is_absolute()
            || inc
                .components()
                .any(|c| matches!(c, std::path::Component::ParentDir))
        {
            return Err(bad(
                name,
                format!("include directory `{}` leaves the library", inc.display()),
                "name directories inside it, relative to its root (e.g. `include`)",
            ));
        }
    }
    Ok(())
}

/// A PyPI library: its wheel installed (or found installed), and its include directories.
fn resolve_pypi(
    lib: &HeaderLibrary,
    package: &str,
    version: &str,
    env: &Env,
    home: &Home,
    may_write: bool,
    progress: &mut dyn FnMut(&InstallEvent),
) -> Result<Resolved> {
    let name = &lib.name;
    let installed = match may_write {
        true => install::install(
            env,
            home,
            package,
            version,
            lib.sha256.as_deref(),
            progress,
        )?,
        false => install::find_installed(home, package, version, lib.sha256.as_deref())?
            .ok_or_else(|| {
                bad(
                    name,
                    format!("`{package}` {version} is not installed yet, and a plan installs nothing"),
                    "run the build once (`cargo build`, or `cargo archbuild build`), which installs it into archbuild's home",
                )
            })?,
    };
    let rel: Vec<String> = if lib.include.is_empty() {
        wheel_layout(name, package, version, &installed.dir)?
    } else {
        declared_include(lib)
    };
    let dirs = existing(name, &installed.dir, &rel)?;
    Ok(Resolved {
        name: name.clone(),
        pin: format!("pypi:{package}=={version}"),
        content: installed.content,
        dirs,
        rel_dirs: rel,
    })
}

/// The include directories archbuild knows for `package`'s wheel installed in `root`, for a
/// library that names none.
fn wheel_layout(name: &str, package: &str, version: &str, root: &Path) -> Result<Vec<String>> {
    known_layout(package, root).map_err(|layouts| {
        let known: Vec<&str> = KNOWN_PACKAGES.iter().map(|k| k.0).collect();
        bad(
            name,
            if layouts.is_empty() {
                format!(
                    "archbuild does not know where `{package}` keeps its headers \
                     (it knows {})",
                    known.join(", ")
                )
            } else {
                format!(
                    "`{package}` {version} has none of the layouts archbuild knows \
                     ({layouts})"
                )
            },
            format!(
                "say where they are with `include = \"dir/inside/the/wheel\"` \
                 (`.include(...)`); the wheel is installed in {}: {}",
                root.display(),
                top_level(root)
            ),
        )
    })
}

/// A directory library (a git checkout when `rev` is given): checked, and its headers hashed.
fn resolve_path(
    lib: &HeaderLibrary,
    dir: &Path,
    rev: Option<&str>,
    home: &Home,
    may_write: bool,
) -> Result<Resolved> {
    let name = &lib.name;
    if !dir.is_dir() {
        return Err(bad(
            name,
            format!("`{}` is not a directory", dir.display()),
            "point `path` at the library's include directory (relative paths: to the \
             package directory), or fetch the library there",
        ));
    }
    if let Some(rev) = rev {
        check_rev(name, dir, rev)?;
    }
    let rel: Vec<String> = if lib.include.is_empty() {
        vec![".".to_owned()]
    } else {
        declared_include(lib)
    };
    let dirs = existing(name, dir, &rel)?;
    let content = tree::local_content(home, &dirs, may_write).map_err(|e| {
        bad(
            name,
            format!("cannot read its headers: {e}"),
            "check the directory's permissions",
        )
    })?;
    Ok(Resolved {
        name: name.clone(),
        pin: rev.map_or_else(
            || "path".to_owned(),
            |r| format!("git:{}", r.to_lowercase()),
        ),
        content,
        dirs,
        rel_dirs: rel,
    })
}

/// The include directories the library names (`include`), as written.
fn declared_include(lib: &HeaderLibrary) -> Vec<String> {
    lib.include
        .iter()
        .map(|i| i.to_string_lossy().into_owned())
        .collect()
}

fn existing(name: &str, root: &Path, rel: &[String]) -> Result<Vec<PathBuf>> {
    rel.iter()
        .map(|r| {
            let d = if r == "." {
                root.to_path_buf()
            } else {
                root.join(r)
            };
            if d.is_dir() {
                Ok(d)
            } else {
                Err(bad(
                    name,
                    format!("include directory `{r}` is not in {}", root.display()),
                    format!("name a directory that exists there: {}", top_level(root)),
                ))
            }
        })
        .collect()
}

/// The top-level directories of `root`, for messages.
fn top_level(root: &Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(root)
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.path().is_dir())
                .map(|e| format!("`{}/`", e.file_name().to_string_lossy()))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    if names.is_empty() {
        "it holds no directory".into()
    } else {
        format!("it holds {}", names.join(", "))
    }
}

/// Refuses a checkout whose `HEAD` is not `rev`.
fn check_rev(name: &str, dir: &Path, rev: &str) -> Result<()> {
    let pin = rev.trim().to_ascii_lowercase();
    if pin.len() < 7 || pin.len() > 64 || !pin.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(bad(
            name,
            format!("`rev = \"{rev}\"` is not a commit hash"),
            "pin the commit by its hash, at least 7 hex digits (`git rev-parse HEAD` in the \
             checkout prints it); branch and tag names move, so they are not pins",
        ));
    }
    let head = git_head(dir).map_err(|why| {
        bad(
            name,
            format!(
                "`rev` pins a git commit, but {} is not in a readable git checkout ({why})",
                dir.display()
            ),
            "point `path` into the checkout (e.g. `git clone … third_party/cutlass`), or drop \
             `rev` to use the directory as it is",
        )
    })?;
    if head.starts_with(&pin) {
        return Ok(());
    }
    Err(bad(
        name,
        format!(
            "the checkout containing {} is at commit {head}, not at the pinned `rev = \"{rev}\"`",
            dir.display()
        ),
        format!(
            "check out the pinned commit (`git -C {} checkout {rev}`), or, if the new commit is \
             meant, pin it: `rev = \"{head}\"`",
            dir.display()
        ),
    ))
}

/// The commit `HEAD` of the checkout containing `dir`: `git rev-parse HEAD`, or, without git,
/// read from `.git` (a ref, a packed ref or a detached hash).
fn git_head(dir: &Path) -> std::result::Result<String, String> {
    let mut cmd = Cmd::new("git").args(["rev-parse", "--verify", "HEAD"]);
    cmd.cwd = Some(dir.to_path_buf());
    match cmd.output() {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout)
            .trim()
            .to_ascii_lowercase()),
        Ok(o) => {
            let err = String::from_utf8_lossy(&o.stderr);
            Err(err.lines().next().unwrap_or("git failed").trim().to_owned())
        }
        // No git program: read the files.
        Err(_) => read_head(dir),
    }
}

/// `HEAD`'s commit read from the `.git` above `dir` (a worktree's `gitdir:` file, a ref, a
/// packed ref or a detached hash), for machines without git.
fn read_head(dir: &Path) -> std::result::Result<String, String> {
    let root = dir
        .ancestors()
        .find(|a| a.join(".git").exists())
        .ok_or("no `.git` above it")?;
    let mut git_dir = root.join(".git");
    if git_dir.is_file() {
        let text = std::fs::read_to_string(&git_dir).map_err(|e| e.to_string())?;
        let target = text
            .trim()
            .strip_prefix("gitdir:")
            .ok_or("`.git` is a file without `gitdir:`")?;
        git_dir = root.join(target.trim());
    }
    let head = std::fs::read_to_string(git_dir.join("HEAD")).map_err(|e| e.to_string())?;
    let Some(name) = head.trim().strip_prefix("ref:").map(str::trim) else {
        return Ok(head.trim().to_ascii_lowercase());
    };
    // A worktree's refs live in the common directory.
    let common = std::fs::read_to_string(git_dir.join("commondir"))
        .map(|c| git_dir.join(c.trim()))
        .unwrap_or_else(|_| git_dir.clone());
    for d in [&git_dir, &common] {
        if let Ok(h) = std::fs::read_to_string(d.join(name)) {
            return Ok(h.trim().to_ascii_lowercase());
        }
        if let Ok(packed) = std::fs::read_to_string(d.join("packed-refs")) {
            if let Some(h) = packed
                .lines()
                .find_map(|l| l.strip_suffix(name).map(str::trim))
            {
                return Ok(h.to_ascii_lowercase());
            }
        }
    }
    Err(format!("`HEAD` names `{name}`, which has no commit"))
}

/// One entry of `[package.metadata.archbuild.headers]`: `"pkg" = "1.2"` (a PyPI package by
/// version), or a table with `pypi` + `version` (+ `sha256`), or `path` (+ `rev`); both take
/// `include` (a string or an array).
pub(crate) fn from_toml(
    name: &str,
    value: &toml::Value,
    dir: &Path,
) -> std::result::Result<HeaderLibrary, String> {
    const KEYS: &[&str] = &["pypi", "version", "sha256", "path", "rev", "include"];
    let table = match value {
        toml::Value::String(v) => return Ok(HeaderLibrary::pypi(name, v)),
        toml::Value::Table(t) => t,
        other => {
            return Err(format!(
                "`headers.{name}` must be a version (\"4.2.0\") or a table such as {{ pypi = \
                 \"nvidia-cutlass\", version = \"4.2.0\" }} or {{ path = \"third_party/x/include\" \
                 }}, found `{}`",
                Shown(other)
            ))
        }
    };
    let mut problems = Vec::new();
    let mut get = |k: &str| match table.get(k) {
        None => None,
        Some(toml::Value::String(s)) => Some(s.clone()),
        Some(other) => {
            problems.push(format!(
                "`headers.{name}.{k}` must be a string, found `{}`",
                Shown(other)
            ));
            None
        }
    };
    let (pypi, version, sha256, path, rev) = (
        get("pypi"),
        get("version"),
        get("sha256"),
        get("path"),
        get("rev"),
    );
    let include: Vec<String> = match table.get("include") {
        None => Vec::new(),
        Some(toml::Value::String(s)) => vec![s.clone()],
        Some(toml::Value::Array(a)) if a.iter().all(|v| v.is_str()) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        Some(other) => {
            problems.push(format!(
                "`headers.{name}.include` must be a string or an array of strings, found `{}`",
                Shown(other)
            ));
            Vec::new()
        }
    };
    for k in table.keys().filter(|k| !KEYS.contains(&k.as_str())) {
        problems.push(format!(
            "unknown key `headers.{name}.{k}`; known keys are {}",
            KEYS.join(", ")
        ));
    }
    let mut lib = match (path, pypi.or(version.as_ref().map(|_| name.to_owned()))) {
        (Some(_), Some(_)) => {
            problems.push(format!(
                "`headers.{name}` has both `path` and `pypi`/`version`: give one source"
            ));
            None
        }
        (Some(p), None) => Some(match rev {
            Some(r) => HeaderLibrary::git(name, dir.join(p), &r),
            None => HeaderLibrary::path(name, dir.join(p)),
        }),
        (None, Some(package)) => match version {
            Some(v) => {
                let mut l = HeaderLibrary::pypi(&package, &v);
                l.name = name.to_owned();
                if rev.is_some() {
                    problems.push(format!(
                        "`headers.{name}.rev` pins a git checkout; a PyPI package is pinned by \
                         `version` (and `sha256`)"
                    ));
                }
                Some(l)
            }
            None => {
                problems.push(format!(
                    "`headers.{name}` names PyPI package `{package}` without `version`: add the \
                     exact version, e.g. `version = \"4.2.0\"`"
                ));
                None
            }
        },
        (None, None) => {
            problems.push(format!(
                "`headers.{name}` has no source: add `pypi` + `version`, or `path` (+ `rev`)"
            ));
            None
        }
    };
    if let (Some(l), Some(s)) = (lib.as_mut(), sha256) {
        *l = l.clone().sha256(&s);
    }
    if !problems.is_empty() {
        return Err(problems.join("; "));
    }
    let mut lib = lib.ok_or_else(String::new)?;
    for i in include {
        lib = lib.include(i);
    }
    Ok(lib)
}

#[cfg(test)]
mod tests;
