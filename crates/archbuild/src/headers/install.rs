//! Installing a header library's PyPI wheel into `<home>/headers/<package>-<version>/`, once:
//! `pip download --no-deps` fetches the wheel (its SHA-256 checked against the pin when one is
//! given, and recorded), `pip install --no-deps --no-index --target` unpacks it into a private
//! `.tmp-*` directory, whose content hash is recorded in a marker before it is renamed into
//! place, by the one PyPI installer (`base/pypi.rs`: the lock that makes concurrent builds
//! install once, the sweep of a killed install's leftovers, the rename). Each later build compares the tree's stat fingerprint
//! with the marker's and re-hashes only when it differs: edited or tampered headers are refused.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::env::Env;
use crate::base::paths::Home;
use crate::base::pypi::{Install, InstallEvent, Pip, Steps};
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
    progress: &mut dyn FnMut(&InstallEvent),
) -> Result<InstalledHeaders> {
    check_declaration(package, version, sha256)?;
    let spec = format!("{package}=={version}");
    let install = Install {
        env,
        base: headers_dir(home),
        stem: format!("{}-{version}", package.to_ascii_lowercase()),
        what: format!("header library {package} {version}"),
        detail: "one wheel".into(),
    };
    let mut wheel = Wheel {
        package,
        version,
        sha256,
        tried: format!(
            "`pip download --no-deps --only-binary=:all: {spec}` with {}",
            pip_index(env)
        ),
        spec,
        dir: install.dir(),
    };
    install.run(&mut wheel, progress)
}

/// A header library's side of the install: one wheel, its hash checked against the pin,
/// unpacked and its tree hashed into the marker.
struct Wheel<'a> {
    package: &'a str,
    version: &'a str,
    sha256: Option<&'a str>,
    spec: String,
    /// What was run, for errors.
    tried: String,
    /// The finished install's directory.
    dir: PathBuf,
}

impl Wheel<'_> {
    /// `pip download` of the one wheel into `download`, its SHA-256 checked against the pin:
    /// the wheel and its hash.
    fn download(
        &self,
        pip: &Pip,
        download: &Path,
        progress: &mut dyn FnMut(&InstallEvent),
    ) -> Result<(PathBuf, String)> {
        let args: [&OsStr; 6] = [
            "download".as_ref(),
            "--no-deps".as_ref(),
            "--only-binary=:all:".as_ref(),
            "-d".as_ref(),
            download.as_os_str(),
            self.spec.as_ref(),
        ];
        pip.run(args, progress).map_err(|f| {
            let said = f.said();
            let (problem, fix) = classify(self.package, self.version, &said);
            self.error(format!("pip failed ({}): {problem}", f.status()), fix, said)
        })?;
        let wheel = single_wheel(download).ok_or_else(|| {
            self.error(
                "pip downloaded no single wheel",
                "check that the package publishes a wheel for this version",
                "",
            )
        })?;
        let bytes = std::fs::read(&wheel).map_err(|e| Error::io("read", &wheel, e))?;
        let got = sha256_hex(&bytes);
        if let Some(want) = self.sha256.filter(|w| !got.eq_ignore_ascii_case(w)) {
            return Err(self.error(
                format!(
                    "the wheel's SHA-256 is {got}, and the pin says {}",
                    want.to_ascii_lowercase()
                ),
                "check where pip found the wheel (PIP_INDEX_URL, PIP_FIND_LINKS); if this wheel \
                 is the one meant, pin its hash",
                "",
            ));
        }
        Ok((wheel, got))
    }

    fn error(
        &self,
        problem: impl Into<String>,
        fix: impl Into<String>,
        said: impl Into<String>,
    ) -> Error {
        install_error(self.package, self.version, problem, &self.tried, fix, said)
    }
}

impl Steps for Wheel<'_> {
    type Done = InstalledHeaders;

    fn ready(&mut self, dir: &Path) -> Result<Option<InstalledHeaders>> {
        verified(dir, self.package, self.version, self.sha256)
    }

    fn no_pip(&self, e: Error) -> Error {
        self.error(
            "Python with a working pip is needed to fetch the wheel and none was found",
            "install Python 3 with pip (`python3 -m ensurepip --upgrade`) or set ARCHBUILD_PYTHON, \
             or use headers you have: a directory (`path = \"…/include\"`)",
            e.to_string(),
        )
    }

    fn fill(
        &mut self,
        pip: &Pip,
        tmp: &Path,
        progress: &mut dyn FnMut(&InstallEvent),
    ) -> Result<(PathBuf, InstalledHeaders)> {
        let tree = tmp.join("tree");
        let (wheel, got) = self.download(pip, &tmp.join("wheel"), progress)?;
        let unpack: [&OsStr; 7] = [
            "install".as_ref(),
            "--no-deps".as_ref(),
            "--no-index".as_ref(),
            "--no-compile".as_ref(),
            "--target".as_ref(),
            tree.as_os_str(),
            wheel.as_os_str(),
        ];
        pip.run(unpack, progress).map_err(|f| {
            install_error(
                self.package,
                self.version,
                format!("pip could not unpack the wheel ({})", f.status()),
                format!(
                    "`pip install --no-deps --no-index --target … {}`",
                    wheel.display()
                ),
                "see pip's output below",
                f.said(),
            )
        })?;
        let id =
            tree::hash(std::slice::from_ref(&tree)).map_err(|e| Error::io("hash", &tree, e))?;
        let marker = InstalledHeaders {
            package: self.package.to_owned(),
            version: self.version.to_owned(),
            wheel: wheel
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            wheel_sha256: got,
            content: id.content,
            files: id.files,
            dir: self.dir.clone(),
            include: Vec::new(),
            stat: id.stat,
            tree: tree::TREE_RULES,
        };
        write_marker(&tree, &marker)?;
        Ok((tree, marker))
    }
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
    let digest = hmac_sha256::Hash::hash(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
