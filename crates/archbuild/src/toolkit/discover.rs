//! Finding nvcc, in one documented order: `NVCC` (the nvcc binary), `CUDA_HOME`, `CUDA_PATH`,
//! `CUDA_ROOT` (toolkit roots), `PATH`, `/usr/local/cuda`, then toolkits archbuild provisioned
//! under `<ARCHBUILD_HOME>/toolkits/`. A variable that is set but leads nowhere is an error
//! rather than silently skipped: the user meant that toolkit.
//!
//! A build that asks for a version (`toolkit = "13.0"`, `releases.rs`) takes the first place,
//! in the same order, whose toolkit reports that version (provisioned ones newest first), and
//! never one of another version: when none is found it provisions the newest known release of
//! it (CUDA 13, as a build provisions at all), or fails naming what it found and how to install
//! the version asked for.

use std::path::{Path, PathBuf};

use crate::base::env::Env;
use crate::base::paths::Home;
use crate::base::process::Spawns;
use crate::base::pypi::InstallEvent;
use crate::base::store::Store;
use crate::error::{Error, Result};
use crate::toolkit::nvcc::{FoundBy, Toolkit};
use crate::toolkit::provision::{self, PINNED_RELEASE};
use crate::toolkit::releases::{install_hint, known_list, Requested};

/// A version a build asks for, and who asked (for messages).
#[derive(Debug, Clone, Copy)]
pub struct Wanted<'a> {
    pub version: &'a Requested,
    pub origin: &'a str,
}

/// One place where nvcc was looked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub found_by: FoundBy,
    /// The nvcc path this place leads to.
    pub nvcc: PathBuf,
    /// Whether that file exists.
    pub exists: bool,
}

/// Where to look, beyond the environment. Tests replace the system locations.
#[derive(Debug, Clone)]
pub struct Discovery {
    pub home: Home,
    /// Conventional install roots, searched after `PATH` (default: `/usr/local/cuda`).
    pub system_roots: Vec<PathBuf>,
}

impl Discovery {
    pub fn new(home: Home) -> Self {
        Self {
            home,
            system_roots: vec![PathBuf::from("/usr/local/cuda")],
        }
    }

    /// Every place searched, in order, whether or not nvcc is there.
    pub fn candidates(&self, env: &Env) -> Result<Vec<Candidate>> {
        let mut out = Vec::new();
        let cand = |found_by, nvcc: PathBuf| Candidate {
            exists: nvcc.is_file(),
            found_by,
            nvcc,
        };
        if let Some(nvcc) = env.path("NVCC") {
            let c = cand(FoundBy::Var("NVCC"), nvcc.clone());
            if !c.exists {
                return Err(Error::BadToolkitVar {
                    var: "NVCC",
                    value: nvcc.clone(),
                    expected: nvcc,
                    what: "the nvcc executable (e.g. /usr/local/cuda/bin/nvcc)",
                });
            }
            out.push(c);
        }
        for &var in crate::toolkit::nvcc::ROOT_VARS {
            if let Some(root) = env.path(var) {
                let nvcc = nvcc_under(&root).ok_or_else(|| Error::BadToolkitVar {
                    var,
                    value: root.clone(),
                    expected: root.join("bin").join("nvcc"),
                    what: "the toolkit root, the directory that contains bin/nvcc",
                })?;
                out.push(cand(FoundBy::Var(var), nvcc));
            }
        }
        if let Some(nvcc) = env
            .var_os("PATH")
            .and_then(|path| crate::base::process::on_path("nvcc", path))
        {
            out.push(cand(FoundBy::Path, nvcc));
        }
        for root in &self.system_roots {
            out.push(cand(FoundBy::UsrLocal, root.join("bin").join("nvcc")));
        }
        for nvcc in provisioned(&self.home) {
            out.push(cand(FoundBy::Provisioned, nvcc));
        }
        Ok(out)
    }

    /// The first toolkit found, queried (memoised in `store`).
    pub(crate) fn locate_with(
        &self,
        env: &Env,
        store: Option<&Store>,
        spawns: &Spawns,
    ) -> Result<Toolkit> {
        let candidates = self.candidates(env)?;
        match candidates.iter().find(|c| c.exists) {
            Some(c) => Toolkit::query(&c.nvcc, c.found_by.clone(), store, spawns),
            None => Err(self.not_found(env)),
        }
    }

    /// Locates a toolkit; when none is found and `ARCHBUILD_PROVISION` is set (or `provision`
    /// is true), provisions the pinned one first, reporting progress.
    pub fn locate(
        &self,
        env: &Env,
        provision: bool,
        progress: &mut dyn FnMut(&InstallEvent),
    ) -> Result<Toolkit> {
        self.locate_counted(env, None, provision, progress, &Spawns::default())
    }

    /// [`Discovery::locate`], counting the toolkit queries in a build's `spawns`; with
    /// `wanted`, only a toolkit of that version (see the module comment).
    pub(crate) fn locate_counted(
        &self,
        env: &Env,
        wanted: Option<Wanted<'_>>,
        provision: bool,
        progress: &mut dyn FnMut(&InstallEvent),
        spawns: &Spawns,
    ) -> Result<Toolkit> {
        let store = Store::new(self.home.cache_dir());
        if let Some(w) = wanted {
            let provision = provision || env.flag("ARCHBUILD_PROVISION");
            return self.locate_version(env, w, provision, progress, &store, spawns);
        }
        match self.locate_with(env, Some(&store), spawns) {
            Err(Error::ToolkitNotFound { .. }) if provision || env.flag("ARCHBUILD_PROVISION") => {
                let nvcc = provision::provision(env, &self.home, progress)?;
                Toolkit::query(&nvcc, FoundBy::Provisioned, Some(&store), spawns)
            }
            other => other,
        }
    }

    /// [`Discovery::locate`] for a build that may ask for a version (`wanted`).
    pub fn locate_for(
        &self,
        env: &Env,
        wanted: Option<Wanted<'_>>,
        provision: bool,
        progress: &mut dyn FnMut(&InstallEvent),
    ) -> Result<Toolkit> {
        self.locate_counted(env, wanted, provision, progress, &Spawns::default())
    }

    /// Locates a toolkit of the version `wanted` asks for, provisioning it when allowed.
    fn locate_version(
        &self,
        env: &Env,
        wanted: Wanted<'_>,
        provision: bool,
        progress: &mut dyn FnMut(&InstallEvent),
        store: &Store,
        spawns: &Spawns,
    ) -> Result<Toolkit> {
        let mut others = Vec::new();
        for c in self.candidates(env)?.into_iter().filter(|c| c.exists) {
            let tk = Toolkit::query(&c.nvcc, c.found_by.clone(), Some(store), spawns)?;
            if wanted.version.matches(tk.release()) {
                return Ok(tk);
            }
            others.push(format!(
                "CUDA {} ({}: {})",
                tk.release(),
                c.found_by,
                c.nvcc.display()
            ));
        }
        let release = wanted.version.release();
        if let (true, Some(release), true) = (wanted.version.provisionable(), release, provision) {
            let nvcc = provision::provision_release(env, &self.home, release, progress)?;
            return Toolkit::query(&nvcc, FoundBy::Provisioned, Some(store), spawns);
        }
        let found = match others.len() {
            0 => "found no toolkit at all".to_owned(),
            _ => format!(
                "found only {}, not used: another version was asked for",
                others.join(", ")
            ),
        };
        let fix = match (wanted.version.provisionable(), release) {
            (true, Some(r)) => format!(
                "`cargo archbuild toolkit install {}` installs CUDA {} from PyPI beside any \
                 other (or set ARCHBUILD_PROVISION=1 for builds to do it), or set CUDA_HOME to \
                 a CUDA {} toolkit",
                wanted.version, r.version, wanted.version
            ),
            (true, None) | (false, None) if wanted.version.major() >= 13 => {
                return Err(Error::ToolkitReleaseUnknown {
                    wanted: wanted.version.to_string(),
                    origin: wanted.origin.to_owned(),
                    known: known_list(),
                    found,
                })
            }
            _ => install_hint(wanted.version),
        };
        Err(Error::ToolkitVersionNotFound {
            wanted: wanted.version.to_string(),
            origin: wanted.origin.to_owned(),
            found,
            fix,
        })
    }

    fn not_found(&self, env: &Env) -> Error {
        let mut searched = vec!["$NVCC, $CUDA_HOME, $CUDA_PATH, $CUDA_ROOT (unset)".to_owned()];
        searched.push(match env.var_os("PATH") {
            Some(p) if !p.is_empty() => format!("PATH ({})", p.to_string_lossy()),
            _ => "PATH (unset)".to_owned(),
        });
        searched.extend(self.system_roots.iter().map(|r| r.display().to_string()));
        searched.push(format!("{}/cuda-*", self.home.toolkits_dir().display()));
        Error::ToolkitNotFound {
            searched: searched.join(", "),
            pinned: PINNED_RELEASE,
        }
    }
}

/// `root/bin/nvcc`, or the pip `--target` layout `root/nvidia/cu*/bin/nvcc`.
fn nvcc_under(root: &Path) -> Option<PathBuf> {
    let direct = root.join("bin").join("nvcc");
    if direct.is_file() {
        return Some(direct);
    }
    let mut pip: Vec<PathBuf> = std::fs::read_dir(root.join("nvidia"))
        .ok()?
        .flatten()
        .map(|e| e.path().join("bin").join("nvcc"))
        .filter(|p| p.is_file())
        .collect();
    pip.sort();
    pip.pop()
}

/// nvcc of every complete provisioned toolkit, newest release first.
fn provisioned(home: &Home) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(home.toolkits_dir()) else {
        return Vec::new();
    };
    let mut found: Vec<(Vec<u32>, PathBuf)> = rd
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let release = name.strip_prefix("cuda-")?;
            if !e.path().join(provision::MARKER).is_file() {
                return None;
            }
            let version = release.split('.').map(|p| p.parse().unwrap_or(0)).collect();
            Some((version, nvcc_under(&e.path())?))
        })
        .collect();
    found.sort();
    found.into_iter().rev().map(|(_, p)| p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_root(dir: &Path, layout: &str) -> PathBuf {
        let bin = dir.join(layout).join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("nvcc"), "").unwrap();
        // Executable: PATH is searched as the system searches it (`which`).
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(bin.join("nvcc"), std::fs::Permissions::from_mode(0o755)).unwrap();
        bin.join("nvcc")
    }

    #[test]
    fn order_and_layouts() {
        let tmp = tempfile::tempdir().unwrap();
        let home = Home::at(tmp.path().join("home"));
        let a = fake_root(tmp.path(), "a");
        let pip = fake_root(tmp.path(), "pip/nvidia/cu13");
        let on_path = fake_root(tmp.path(), "p");
        let env = Env::from_vars([
            ("CUDA_PATH", tmp.path().join("pip").into_os_string()),
            ("CUDA_HOME", tmp.path().join("a").into_os_string()),
            ("PATH", on_path.parent().unwrap().as_os_str().to_owned()),
        ]);
        let d = Discovery {
            home,
            system_roots: vec![tmp.path().join("none")],
        };
        let c = d.candidates(&env).unwrap();
        let got: Vec<_> = c
            .iter()
            .map(|c| (c.found_by.clone(), c.nvcc.clone(), c.exists))
            .collect();
        assert_eq!(
            got,
            [
                (FoundBy::Var("CUDA_HOME"), a, true),
                (FoundBy::Var("CUDA_PATH"), pip, true),
                (FoundBy::Path, on_path, true),
                (FoundBy::UsrLocal, tmp.path().join("none/bin/nvcc"), false),
            ]
        );
    }

    /// `docs/environment.md`: blank values count as unset everywhere. The runtime reads
    /// `CUDA_HOME` through `archbuild_config::Env::var`, which trims; the build's toolkit search
    /// must agree rather than fail on a root named " ".
    #[test]
    fn a_blank_toolkit_variable_is_unset_as_in_the_runtime() {
        let tmp = tempfile::tempdir().unwrap();
        let on_path = fake_root(tmp.path(), "p");
        let path = on_path.parent().unwrap().as_os_str().to_owned();
        let d = Discovery {
            home: Home::at(tmp.path().join("home")),
            system_roots: vec![tmp.path().join("none")],
        };
        let unset = d
            .candidates(&Env::from_vars([("PATH", path.clone())]))
            .unwrap();
        for blank in [" ", "\t", "  \n"] {
            for var in ["NVCC", "CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"] {
                let env = Env::from_vars([("PATH", path.clone()), (var, blank.into())]);
                assert_eq!(d.candidates(&env).unwrap(), unset, "{var}={blank:?}");
            }
        }
        let store = archbuild_config::Env::from_vars([("CUDA_HOME", " ")]);
        assert_eq!(store.var("CUDA_HOME"), None, "the runtime's reader");
    }

    #[test]
    fn set_but_wrong_variable_is_an_error() {
        let d = Discovery::new(Home::at("/nonexistent-home"));
        let env = Env::from_vars([("CUDA_HOME", "/nonexistent-cuda")]);
        let err = d.candidates(&env).unwrap_err().to_string();
        assert!(err.contains("CUDA_HOME=`/nonexistent-cuda`"), "{err}");
        assert!(
            err.contains("/nonexistent-cuda/bin/nvcc does not exist"),
            "{err}"
        );
    }
}
