//! Installing a header library's PyPI wheel into `<home>/headers/<package>-<version>/`, once:
//! `pip download --no-deps` fetches the wheel (its SHA-256 checked against the pin when one is
//! given, and recorded), `pip install --no-deps --no-index --target` unpacks it into a private
//! `.tmp-*` directory, whose content hash is recorded in a marker before it is renamed into
//! place. An exclusive lock (`<package>-<version>.lock`) makes concurrent builds install once.
//! pip reads its own configuration (`PIP_INDEX_URL`, `PIP_FIND_LINKS`, `PIP_NO_INDEX`, proxies)
//! as for the toolkit (`toolkit/provision.rs`). Each later build compares the tree's stat fingerprint
//! with the marker's and re-hashes only when it differs: edited or tampered headers are refused.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::base::env::Env;
use crate::base::paths::Home;
use crate::base::process::Cmd;
use crate::error::{Error, Result};
use crate::headers::tree::{self, MARKER};

/// PyPI packages whose include directories archbuild knows, each with its layouts in the
/// order tried (the first whose directories all exist is used).
pub const KNOWN_PACKAGES: &[(&str, &[&[&str]])] = &[
    (
        "nvidia-cutlass",
        &[&[
            "cutlass_library/source/include",
            // `cutlass/util/*`: packed strides, device memory, reference kernels, which CUTLASS
            // 3.x GEMMs and the examples include.
            "cutlass_library/source/tools/util/include",
        ]],
    ),
    (
        "nvidia-cuda-cccl",
        &[&["nvidia/cu13/include/cccl"], &["nvidia/cuda_cccl/include"]],
    ),
];

/// The include directories of a known package: the first layout whose directories all exist;
/// `Err` with the layouts tried (empty for an unknown package).
pub(crate) fn known_layout(package: &str, root: &Path) -> std::result::Result<Vec<String>, String> {
    let norm = package.to_ascii_lowercase().replace('_', "-");
    let Some((_, layouts)) = KNOWN_PACKAGES.iter().find(|k| k.0 == norm) else {
        return Err(String::new());
    };
    layouts
        .iter()
        .find(|l| l.iter().all(|d| root.join(d).is_dir()))
        .map(|l| l.iter().map(|d| d.to_string()).collect())
        .ok_or_else(|| {
            layouts
                .iter()
                .map(|l| l.join(" + "))
                .collect::<Vec<_>>()
                .join("; ")
        })
}

/// Progress of installing a header library, for a progress bar or log lines.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeaderEvent {
    /// Another process holds the lock and is installing; waiting for it.
    Waiting { lock: PathBuf },
    /// Downloading and unpacking the wheel.
    Installing {
        package: String,
        version: String,
        dir: PathBuf,
    },
    /// A line pip printed.
    Pip(String),
    /// Installed and hashed.
    Installed { dir: PathBuf, millis: u64 },
}

impl std::fmt::Display for HeaderEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Waiting { lock } => write!(
                f,
                "waiting for another process to finish installing a header library ({})",
                lock.display()
            ),
            Self::Installing {
                package,
                version,
                dir,
            } => write!(
                f,
                "installing header library {package} {version} from PyPI into {} (once)",
                dir.display()
            ),
            Self::Pip(line) => write!(f, "pip: {line}"),
            Self::Installed { dir, millis } => {
                write!(
                    f,
                    "installed {} ({:.1} s)",
                    dir.display(),
                    *millis as f64 / 1000.0
                )
            }
        }
    }
}

/// Prints each event as an `archbuild: …` line on stderr.
pub fn stderr_progress(event: &HeaderEvent) {
    eprintln!("archbuild: {event}");
}

/// What an installed library's marker records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstalledHeaders {
    pub package: String,
    /// The version as declared (`4.2.0`).
    pub version: String,
    /// The wheel's file name (`nvidia_cutlass-4.2.0.0-py3-none-any.whl`).
    pub wheel: String,
    pub wheel_sha256: String,
    /// BLAKE3 of the installed tree (`tree::hash`), hex.
    pub content: String,
    pub files: usize,
    #[serde(skip)]
    pub dir: PathBuf,
    /// The include directories of a known package (`KNOWN_PACKAGES`), absolute;
    /// empty for another package, whose declaration names them.
    #[serde(skip)]
    pub include: Vec<PathBuf>,
    /// The tree's stat fingerprint when last verified.
    stat: String,
    /// The rules `content` was hashed by (`tree::TREE_RULES`; absent: 1).
    #[serde(default = "rules_1")]
    tree: u32,
}

fn rules_1() -> u32 {
    1
}

/// Where header libraries are installed: `<home>/headers/`.
pub fn headers_dir(home: &Home) -> PathBuf {
    home.root().join("headers")
}

/// Every library installed in `home`, by directory name (for `doctor` and `toolkit list`).
pub fn installed(home: &Home) -> Vec<InstalledHeaders> {
    let mut out: Vec<InstalledHeaders> = std::fs::read_dir(headers_dir(home))
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| {
                    let mut m: InstalledHeaders = tree::read_marker(&e.path().join(MARKER))?;
                    m.dir = e.path();
                    m.include = known_layout(&m.package, &m.dir)
                        .map(|l| l.iter().map(|d| m.dir.join(d)).collect())
                        .unwrap_or_default();
                    Some(m)
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort_by(|a, b| a.dir.cmp(&b.dir));
    out
}

fn install_error(
    package: &str,
    version: &str,
    problem: impl Into<String>,
    tried: impl Into<String>,
    fix: impl Into<String>,
    pip_said: impl Into<String>,
) -> Error {
    Error::HeaderInstall {
        library: format!("{package} {version}"),
        problem: format!("{}; tried {}", problem.into(), tried.into()),
        fix: fix.into(),
        pip_said: pip_said.into(),
    }
}

fn check_declaration(package: &str, version: &str, sha256: Option<&str>) -> Result<()> {
    let name_ok = package
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && package
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
    let version_ok = version.chars().next().is_some_and(|c| c.is_ascii_digit())
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".+!-".contains(c));
    let problem = if !name_ok {
        format!("`{package}` is not a PyPI package name")
    } else if !version_ok {
        format!(
            "`{version}` is not an exact version (a pin is one version, such as `4.2.0`, not a \
             range)"
        )
    } else if sha256.is_some_and(|s| s.len() != 64 || !s.chars().all(|c| c.is_ascii_hexdigit())) {
        format!(
            "`sha256 = \"{}\"` is not a SHA-256 (64 hex digits)",
            sha256.unwrap_or("")
        )
    } else {
        return Ok(());
    };
    Err(Error::HeaderLibrary {
        name: package.to_owned(),
        problem,
        fix: "declare a PyPI package by name and exact version (`version = \"4.2.0\"`), with the \
              wheel's SHA-256 as printed by `sha256sum` if you pin it"
            .into(),
    })
}

/// `package==version` as installed and unchanged, if it is; installs nothing.
pub(crate) fn find_installed(
    home: &Home,
    package: &str,
    version: &str,
    sha256: Option<&str>,
) -> Result<Option<InstalledHeaders>> {
    check_declaration(package, version, sha256)?;
    let stem = format!("{}-{version}", package.to_ascii_lowercase());
    verified(&headers_dir(home).join(stem), package, version, sha256)
}

/// Installs `package==version` (or finds it installed and unchanged) and returns its marker.
pub(crate) fn install(
    env: &Env,
    home: &Home,
    package: &str,
    version: &str,
    sha256: Option<&str>,
    progress: &mut dyn FnMut(&HeaderEvent),
) -> Result<InstalledHeaders> {
    check_declaration(package, version, sha256)?;
    let base = headers_dir(home);
    let stem = format!("{}-{version}", package.to_ascii_lowercase());
    let final_dir = base.join(&stem);
    if let Some(m) = verified(&final_dir, package, version, sha256)? {
        return Ok(m);
    }
    crate::toolkit::provision::refuse_offline(env, || {
        format!("installing the header library {package} {version} from PyPI")
    })?;
    std::fs::create_dir_all(&base).map_err(|e| Error::io("create", &base, e))?;
    let lock_path = base.join(format!("{stem}.lock"));
    let _lock = crate::toolkit::provision::lock(&lock_path, &mut || {
        progress(&HeaderEvent::Waiting {
            lock: lock_path.clone(),
        })
    })?;
    if let Some(m) = verified(&final_dir, package, version, sha256)? {
        return Ok(m);
    }
    let spec = format!("{package}=={version}");
    let tried = format!(
        "`pip download --no-deps --only-binary=:all: {spec}` with {}",
        pip_index(env)
    );
    let python = crate::toolkit::provision::find_python(env).map_err(|e| {
        install_error(
            package,
            version,
            "Python with pip is needed to fetch the wheel and none was found",
            &tried,
            "install Python 3 with pip or set ARCHBUILD_PYTHON, or use headers you have: a \
             directory (`path = \"…/include\"`)",
            e.to_string(),
        )
    })?;
    crate::toolkit::provision::check_pip(&python, env).map_err(|e| {
        install_error(
            package,
            version,
            "pip does not work",
            &tried,
            "install pip (`python3 -m ensurepip --upgrade`), or use headers you have: a \
             directory (`path = \"…/include\"`)",
            e.to_string(),
        )
    })?;

    // We hold the lock: any temp directory is a leftover of a killed install.
    let prefix = format!(".tmp-{stem}-");
    if let Ok(rd) = std::fs::read_dir(&base) {
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    let tmp = base.join(format!("{prefix}{}", std::process::id()));
    let (download, tree) = (tmp.join("wheel"), tmp.join("tree"));
    progress(&HeaderEvent::Installing {
        package: package.to_owned(),
        version: version.to_owned(),
        dir: final_dir.clone(),
    });
    let start = Instant::now();
    let result = (|| {
        pip(
            &python,
            env,
            &["download", "--no-deps", "--only-binary=:all:", "-d"],
            &download,
            &spec,
            progress,
        )
        .map_err(|(status, said)| {
            let (problem, fix) = classify(package, version, &said);
            install_error(
                package,
                version,
                format!("pip failed ({status}): {problem}"),
                &tried,
                fix,
                said,
            )
        })?;
        let wheel = single_wheel(&download).ok_or_else(|| {
            install_error(
                package,
                version,
                "pip downloaded no single wheel",
                &tried,
                "check that the package publishes a wheel for this version",
                "",
            )
        })?;
        let bytes = std::fs::read(&wheel).map_err(|e| Error::io("read", &wheel, e))?;
        let got = sha256_hex(&bytes);
        if let Some(want) = sha256 {
            if !got.eq_ignore_ascii_case(want) {
                return Err(install_error(
                    package,
                    version,
                    format!(
                        "the wheel's SHA-256 is {got}, and the pin says {}",
                        want.to_ascii_lowercase()
                    ),
                    &tried,
                    "check where pip found the wheel (PIP_INDEX_URL, PIP_FIND_LINKS); if this \
                     wheel is the one meant, pin its hash",
                    "",
                ));
            }
        }
        let wheel_arg = wheel.display().to_string();
        pip(
            &python,
            env,
            &[
                "install",
                "--no-deps",
                "--no-index",
                "--no-compile",
                "--target",
            ],
            &tree,
            &wheel_arg,
            progress,
        )
        .map_err(|(status, said)| {
            install_error(
                package,
                version,
                format!("pip could not unpack the wheel ({status})"),
                format!("`pip install --no-deps --no-index --target … {wheel_arg}`"),
                "see pip's output below",
                said,
            )
        })?;
        let id =
            tree::hash(std::slice::from_ref(&tree)).map_err(|e| Error::io("hash", &tree, e))?;
        let marker = InstalledHeaders {
            package: package.to_owned(),
            version: version.to_owned(),
            wheel: wheel
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            wheel_sha256: got,
            content: id.content,
            files: id.files,
            dir: final_dir.clone(),
            include: Vec::new(),
            stat: id.stat,
            tree: tree::TREE_RULES,
        };
        write_marker(&tree, &marker)?;
        if final_dir.exists() {
            // No valid marker (checked above under the lock): an incomplete directory.
            std::fs::remove_dir_all(&final_dir).map_err(|e| Error::io("remove", &final_dir, e))?;
        }
        std::fs::rename(&tree, &final_dir)
            .map_err(|e| Error::io("rename into place", &final_dir, e))?;
        Ok(marker)
    })();
    let _ = std::fs::remove_dir_all(&tmp);
    let marker = result?;
    progress(&HeaderEvent::Installed {
        dir: final_dir,
        millis: start.elapsed().as_millis() as u64,
    });
    Ok(marker)
}

/// The installed library when its marker is there and its tree unchanged; an error when the
/// tree changed since it was installed, or the pinned wheel hash is not the installed one.
fn verified(
    dir: &Path,
    package: &str,
    version: &str,
    sha256: Option<&str>,
) -> Result<Option<InstalledHeaders>> {
    let Some(mut m) = tree::read_marker::<InstalledHeaders>(&dir.join(MARKER)) else {
        return Ok(None);
    };
    m.dir = dir.to_path_buf();
    let refuse = |problem: String, fix: String| Error::HeaderLibrary {
        name: package.to_owned(),
        problem,
        fix,
    };
    let reinstall = format!(
        "delete {} to install it again from the wheel (`rm -r {}`)",
        dir.display(),
        dir.display()
    );
    if let Some(want) = sha256.filter(|w| !w.eq_ignore_ascii_case(&m.wheel_sha256)) {
        return Err(refuse(
            format!(
                "{package} {version} is installed in {} from the wheel {} with SHA-256 {}, and \
                 the pin says {}",
                dir.display(),
                m.wheel,
                m.wheel_sha256,
                want.to_ascii_lowercase()
            ),
            format!("if the pin is right, {reinstall}; otherwise pin the installed wheel's hash"),
        ));
    }
    let dirs = [dir.to_path_buf()];
    if m.tree < tree::TREE_RULES {
        // Installed by an archbuild that hashed pip's record too: checked once by those rules,
        // then kept by these.
        let old = tree::hash_with(&dirs, true).map_err(|e| Error::io("read", dir, e))?;
        if old.content == m.content {
            let id = tree::hash(&dirs).map_err(|e| Error::io("read", dir, e))?;
            (m.content, m.stat, m.files) = (id.content, id.stat, id.files);
            m.tree = tree::TREE_RULES;
            let _ = write_marker(dir, &m);
            return Ok(Some(m));
        }
    }
    let (stat, _) = tree::stat(&dirs).map_err(|e| Error::io("read", dir, e))?;
    if stat == m.stat && m.tree == tree::TREE_RULES {
        return Ok(Some(m));
    }
    let id = tree::hash(&dirs).map_err(|e| Error::io("read", dir, e))?;
    if id.content != m.content {
        return Err(refuse(
            format!(
                "the files in {} changed since archbuild installed {package} {version} (content \
                 hash {} now, {} when installed; {} files now, {} then)",
                dir.display(),
                short(&id.content),
                short(&m.content),
                id.files,
                m.files
            ),
            format!(
                "{reinstall}; to build against edited headers, copy them and declare the copy \
                 with `path = \"…\"`"
            ),
        ));
    }
    // Same content, new metadata (touched, copied): remember the new fingerprint.
    m.stat = id.stat;
    let _ = write_marker(dir, &m);
    Ok(Some(m))
}

/// The first 12 hex digits of a hash, as listings show it.
pub fn short(hash: &str) -> &str {
    &hash[..hash.len().min(12)]
}

fn write_marker(dir: &Path, m: &InstalledHeaders) -> Result<()> {
    let path = dir.join(MARKER);
    let bytes = serde_json::to_vec_pretty(m).expect("a marker serialises");
    crate::base::paths::write_atomic(&path, &bytes).map_err(|e| Error::io("write", path, e))
}

/// Runs `python -m pip <args> <dir> <what>`; `Err((status, what pip said))` on failure.
fn pip(
    python: &Path,
    env: &Env,
    args: &[&str],
    dir: &Path,
    what: &str,
    progress: &mut dyn FnMut(&HeaderEvent),
) -> std::result::Result<(), (String, String)> {
    let cmd = Cmd::new(python)
        .args(["-m", "pip"])
        .args(args.iter().copied())
        .arg(dir)
        .args(["--no-input", "--disable-pip-version-check", what])
        .envs(env.child_overrides());
    let mut stdout = Vec::new();
    let (status, stderr) = cmd
        .run_streaming(&mut |line| {
            let l = line.trim();
            if !l.is_empty() {
                stdout.push(l.to_owned());
                progress(&HeaderEvent::Pip(l.to_owned()));
            }
        })
        .map_err(|e| ("not started".to_owned(), e.to_string()))?;
    if status.success() {
        return Ok(());
    }
    // pip's errors, without its retry warnings and progress.
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("ERROR") || l.contains("Error"))
        .collect();
    let said = if said.is_empty() {
        let all: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        all[all.len().saturating_sub(6)..].join("\n")
    } else {
        said.join("\n")
    };
    Err((status.to_string(), said))
}

/// What a failed `pip download` means, and the fix.
fn classify(package: &str, version: &str, said: &str) -> (String, String) {
    let offline = "when this machine is offline, point PIP_FIND_LINKS at a directory holding \
                   the wheel (with PIP_NO_INDEX=1), or run the build once where PyPI is \
                   reachable (the library is installed once into archbuild's home, \
                   ARCHBUILD_HOME), or declare headers you have with `path = \"…/include\"`";
    if said.contains("No matching distribution") || said.contains("Could not find a version") {
        (
            format!("no wheel of {package} {version} was found on the index pip uses"),
            format!(
                "check the name and version (https://pypi.org/project/{package}/#history); \
                 {offline}"
            ),
        )
    } else if [
        "NewConnectionError",
        "Temporary failure in name resolution",
        "Network is unreachable",
        "ConnectTimeout",
        "Read timed out",
        "ProxyError",
    ]
    .iter()
    .any(|n| said.contains(n))
    {
        (
            "PyPI could not be reached".to_owned(),
            format!("check the network and proxy settings (HTTPS_PROXY, PIP_INDEX_URL); {offline}"),
        )
    } else {
        ("see pip's output below".to_owned(), offline.to_owned())
    }
}

/// Where pip looks, as its variables say (they reach pip as they are).
fn pip_index(env: &Env) -> String {
    let set: Vec<String> = [
        "PIP_INDEX_URL",
        "PIP_EXTRA_INDEX_URL",
        "PIP_FIND_LINKS",
        "PIP_NO_INDEX",
    ]
    .iter()
    .filter_map(|v| {
        env.var_os_or_inherited(v)
            .filter(|x| !x.is_empty())
            .map(|x| format!("{v}={}", x.to_string_lossy()))
    })
    .collect();
    if set.is_empty() {
        "pip's configured index (PyPI unless pip.conf says otherwise)".into()
    } else {
        set.join(" ")
    }
}

fn single_wheel(dir: &Path) -> Option<PathBuf> {
    let wheels: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "whl"))
        .collect();
    match wheels.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
