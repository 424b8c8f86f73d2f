//! Discovery with a requested version (`discover.rs`, `releases.rs`): toolkits of other versions
//! are skipped, provisioned releases sit side by side, and what cannot be found says how to get
//! it. The stand-in nvccs are empty files whose queries are already memoised in the home's
//! cache, so nothing runs.

use std::path::{Path, PathBuf};

use crate::base::env::Env;
use crate::base::paths::Home;
use crate::base::process::Spawns;
use crate::base::store::{Ns, Store};
use crate::error::Error;
use crate::toolkit::discover::{Discovery, Wanted};
use crate::toolkit::nvcc::{memo_key, FoundBy};
use crate::toolkit::provision::MARKER;
use crate::toolkit::releases::Requested;

struct Machine {
    tmp: tempfile::TempDir,
    discovery: Discovery,
}

impl Machine {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let discovery = Discovery {
            home: Home::at(tmp.path().join("home")),
            system_roots: vec![tmp.path().join("no-usr-local")],
        };
        Self { tmp, discovery }
    }

    /// A stand-in toolkit reporting `release` at `<tmp>/<root>/bin/nvcc` (or, `provisioned`,
    /// at the home's `toolkits/cuda-<release>` in the wheels' layout, marked complete).
    fn toolkit(&self, root: &str, release: &str) -> PathBuf {
        let dir = self.tmp.path().join(root);
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let nvcc = bin.join("nvcc");
        std::fs::write(&nvcc, release).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&nvcc, std::fs::Permissions::from_mode(0o755)).unwrap();
        let (mm, _) = release.rsplit_once('.').unwrap();
        let text = format!(
            "Cuda compilation tools, release {mm}, V{release}\nBuild stand_in\n\
             --list-gpu-code\nsm_75\nsm_90\n--list-gpu-arch\ncompute_75\ncompute_90\n"
        );
        let canonical = std::fs::canonicalize(&bin).unwrap().join("nvcc");
        let store = Store::new(self.discovery.home.cache_dir());
        store
            .put(
                Ns::Toolkit.dir(),
                &memo_key(&canonical).unwrap(),
                text.as_bytes(),
            )
            .unwrap();
        nvcc
    }

    fn provisioned(&self, release: &str) -> PathBuf {
        let root = format!("home/toolkits/cuda-{release}");
        let nvcc = self.toolkit(&format!("{root}/nvidia/cu13"), release);
        std::fs::write(self.tmp.path().join(root).join(MARKER), "").unwrap();
        nvcc
    }

    fn root(&self, name: &str) -> PathBuf {
        self.tmp.path().join(name)
    }

    fn locate(&self, env: &Env, wanted: Option<&str>) -> crate::error::Result<(String, FoundBy)> {
        let version = wanted.map(|w| Requested::parse(w).unwrap());
        let wanted = version.as_ref().map(|version| Wanted {
            version,
            origin: "ARCHBUILD_TOOLKIT_VERSION",
        });
        let tk = self.discovery.locate_counted(
            env,
            wanted,
            false,
            &mut |_| panic!("nothing is provisioned"),
            &Spawns::default(),
        )?;
        Ok((tk.release().to_owned(), tk.found_by().clone()))
    }
}

fn path_of(nvcc: &Path) -> (&'static str, std::ffi::OsString) {
    ("PATH", nvcc.parent().unwrap().as_os_str().to_owned())
}

/// A requested version skips `CUDA_HOME` and `PATH` toolkits of other versions and takes the
/// provisioned release of that version, among several side by side; with no version the first
/// found is used as before, and provisioned ones go newest first.
#[test]
fn a_requested_version_chooses_among_found_and_provisioned_toolkits() {
    let m = Machine::new();
    m.toolkit("cuda-13.5", "13.5.37");
    let on_path = m.toolkit("cuda-12.4", "12.4.131");
    m.provisioned("13.0.48");
    m.provisioned("13.0.88");
    m.provisioned("13.5.37");
    let home = ("CUDA_HOME", m.root("cuda-13.5").into_os_string());
    let env = Env::from_vars([home.clone(), path_of(&on_path)]);
    let got = |wanted| m.locate(&env, wanted).unwrap();
    assert_eq!(got(None), ("13.5.37".into(), FoundBy::Var("CUDA_HOME")));
    assert_eq!(got(Some("13.0")), ("13.0.88".into(), FoundBy::Provisioned));
    assert_eq!(
        got(Some("13.0.48")),
        ("13.0.48".into(), FoundBy::Provisioned)
    );
    assert_eq!(got(Some("12.x")), ("12.4.131".into(), FoundBy::Path));
    assert_eq!(
        got(Some("13")),
        ("13.5.37".into(), FoundBy::Var("CUDA_HOME"))
    );
    // Without CUDA_HOME, the newest provisioned release is the default.
    let env = Env::from_vars([("PATH", "/nonexistent")]);
    assert_eq!(
        m.locate(&env, None).unwrap(),
        ("13.5.37".into(), FoundBy::Provisioned)
    );
}

/// A found toolkit of another version is named, not used; a known CUDA 13 release says how to
/// install it beside the others.
#[test]
fn another_version_found_is_an_error_naming_it_and_the_install_command() {
    let m = Machine::new();
    m.toolkit("cuda-13.5", "13.5.37");
    let env = Env::from_vars([
        ("CUDA_HOME", m.root("cuda-13.5").into_os_string()),
        ("PATH", "/nonexistent".into()),
    ]);
    let e = m.locate(&env, Some("13.0")).unwrap_err();
    assert!(matches!(e, Error::ToolkitVersionNotFound { .. }), "{e:?}");
    let text = e.to_string();
    for part in [
        "no CUDA 13.0 toolkit found (asked for by ARCHBUILD_TOOLKIT_VERSION)",
        "found only CUDA 13.5.37 ($CUDA_HOME: ",
        "not used: another version was asked for",
        "`cargo archbuild toolkit install 13.0` installs CUDA 13.0.88 from PyPI",
    ] {
        assert!(text.contains(part), "{part}\n{text}");
    }
}

/// `toolkit = "12.x"` with no CUDA 12 anywhere: the error says exactly how to install one.
#[test]
fn a_cuda_12_toolkit_not_found_says_how_to_install_one() {
    let m = Machine::new();
    let env = Env::from_vars([("PATH", "/nonexistent")]);
    let e = m.locate(&env, Some("12.x")).unwrap_err();
    insta::assert_snapshot!("cuda_12_not_found", e.to_string());
    let e = m.locate(&env, Some("12.4")).unwrap_err().to_string();
    assert!(
        e.contains("cuda_12.4.1_550.54.15_linux.run") && e.contains("cuda-toolkit-12-4"),
        "{e}"
    );
}

/// A CUDA 13 release archbuild has no wheels for is an error listing the known ones, both for
/// a build and for `cargo archbuild toolkit install`.
#[test]
fn an_unknown_release_lists_the_known_ones() {
    let m = Machine::new();
    let env = Env::from_vars([("PATH", "/nonexistent")]);
    let e = m.locate(&env, Some("13.9")).unwrap_err();
    insta::assert_snapshot!("unknown_release", e.to_string());
    let origin = "`cargo archbuild toolkit install`";
    let e = crate::toolkit::releases::release_for("13.0.1", origin).unwrap_err();
    assert!(matches!(e, Error::ToolkitReleaseUnknown { .. }), "{e:?}");
    let e = crate::toolkit::releases::release_for("12.x", origin).unwrap_err();
    assert!(
        e.to_string().contains("PyPI's CUDA 12 wheels have no nvcc"),
        "{e}"
    );
    let e = crate::toolkit::releases::release_for("thirteen", origin).unwrap_err();
    assert!(
        e.to_string().contains("use a CUDA series such as `13.0`"),
        "{e}"
    );
    assert_eq!(
        crate::toolkit::releases::release_for("13.0", origin)
            .unwrap()
            .version,
        "13.0.88"
    );
}

/// The version's precedence: the build, then the variable, then Cargo.toml.
#[test]
fn the_build_then_the_variable_then_the_manifest_ask() {
    use crate::toolkit::releases::requested;
    let pkg = "13.0";
    let var = Env::from_vars([("ARCHBUILD_TOOLKIT_VERSION", "12.x")]);
    let none = Env::from_vars([("PATH", "/nonexistent")]);
    let ask = |b: Option<&str>, env: &Env, p: Option<&str>| {
        requested(b, env, p)
            .unwrap()
            .map(|(v, origin)| (v.to_string(), origin))
    };
    assert_eq!(ask(Some("13.0.88"), &var, Some(pkg)).unwrap().0, "13.0.88");
    assert_eq!(
        ask(None, &var, Some(pkg)).unwrap(),
        ("12.x".into(), "ARCHBUILD_TOOLKIT_VERSION".into())
    );
    assert_eq!(ask(None, &none, Some(pkg)).unwrap().0, "13.0");
    assert_eq!(ask(None, &none, None), None);
    let bad = Env::from_vars([("ARCHBUILD_TOOLKIT_VERSION", "latest")]);
    let e = requested(None, &bad, None).unwrap_err().to_string();
    assert!(
        e.contains("ARCHBUILD_TOOLKIT_VERSION") && e.contains("`latest`"),
        "{e}"
    );
}
