//! Header libraries with the real toolkit: a kernel includes a header a library provides (a
//! wheel installed offline from a local directory, a directory, a pinned git checkout); a new
//! version or an edit of the library changes the cache key, the cached build equals a
//! cache-off build, and the header's constant is visible in the PTX. Pin mismatches and a
//! package the offline index lacks are refused with the fix. And, where PyPI is reachable, the
//! real `nvidia-cutlass` wheel compiles a CuTe kernel for sm_80.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;

use archbuild::{config::Home, BuildReport, HeaderLibrary};

const KERNEL: &str =
    "#include <demo/params.h>\nextern \"C\" __global__ void k(int *x) { x[0] = DEMO_VALUE; }\n";

struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Self {
        let p = Self {
            dir: tempfile::tempdir().unwrap(),
        };
        p.write("pkg/k.cu", KERNEL);
        p
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// pip sees only the local wheel directory: nothing leaves the machine.
    fn env(&self) -> archbuild::Env {
        archbuild_tests::env_with([
            ("PIP_NO_INDEX", OsString::from("1")),
            ("PIP_FIND_LINKS", self.path("wheels").into_os_string()),
        ])
    }

    fn try_build(&self, lib: &HeaderLibrary, cache: bool) -> archbuild::Result<BuildReport> {
        archbuild_tests::build()
            .env(self.env())
            .home(Home::at(self.path("home")))
            .manifest_dir(self.path("pkg"))
            .cache_dir(self.path("cache"))
            .cache(cache)
            .out_dir(self.path(if cache { "out" } else { "out-nocache" }))
            .file("k.cu")
            .header_library(lib.clone())
            .archs("8.6+PTX")
            .compression("none")
            .quiet(true)
            .try_compile("kernels")
    }

    /// A cached build and a cache-off build; they must be byte-identical. Returns the fat
    /// binary and the cached build's report.
    fn check(&self, lib: &HeaderLibrary) -> (Vec<u8>, BuildReport) {
        let cached = self.try_build(lib, true).unwrap_or_else(|e| panic!("{e}"));
        let fresh = self.try_build(lib, false).unwrap_or_else(|e| panic!("{e}"));
        let a = std::fs::read(&cached.modules[0].fatbin).unwrap();
        let b = std::fs::read(&fresh.modules[0].fatbin).unwrap();
        assert!(
            a == b,
            "the cached build differs from a build without cache"
        );
        (a, cached)
    }
}

/// A wheel holding `demo_headers/include/demo/params.h` that defines `DEMO_VALUE`, written with
/// Python's zipfile into `<project>/wheels`; `None` without python3.
fn demo_wheel(p: &Project, version: &str, value: u32) -> Option<()> {
    const SCRIPT: &str = r##"
import sys, zipfile
out, version, value = sys.argv[1:4]
info = f"demo_headers-{version}.dist-info"
names = ["demo_headers/include/demo/params.h", f"{info}/METADATA", f"{info}/WHEEL", f"{info}/RECORD"]
with zipfile.ZipFile(f"{out}/demo_headers-{version}-py3-none-any.whl", "w") as z:
    z.writestr(names[0], f"#define DEMO_VALUE {value}\n")
    z.writestr(names[1], f"Metadata-Version: 2.1\nName: demo-headers\nVersion: {version}\n")
    z.writestr(names[2], "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr(names[3], "".join(f"{n},,\n" for n in names))
"##;
    let dir = p.path("wheels");
    std::fs::create_dir_all(&dir).unwrap();
    let status = Command::new("python3")
        .args(["-c", SCRIPT])
        .arg(&dir)
        .args([version, &value.to_string()])
        .status()
        .ok()?;
    assert!(status.success());
    Some(())
}

fn has(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[test]
fn a_new_wheel_version_changes_the_key_and_the_ptx() {
    let p = Project::new();
    if demo_wheel(&p, "1.0.0", 12345).is_none() || demo_wheel(&p, "1.0.1", 67890).is_none() {
        return archbuild_tests::servers::skip("no python3 to build a wheel with");
    }
    let lib = |v: &str| HeaderLibrary::pypi("demo-headers", v).include("demo_headers/include");
    let (first, report) = p.check(&lib("1.0.0"));
    assert!(has(&first, "12345"), "the header's constant is in the PTX");
    assert_eq!(report.cache_hits, 0);
    // Built again: served from the cache.
    let again = p.try_build(&lib("1.0.0"), true).unwrap();
    assert_eq!(again.jobs_run, 0, "{again}");
    // The next version: a new key (nothing from the cache), its constant in the PTX.
    let (second, report) = p.check(&lib("1.0.1"));
    assert_eq!(report.cache_hits, 0, "{report}");
    assert!(has(&second, "67890") && !has(&second, "12345"));
    assert!(p
        .path("home/headers/demo-headers-1.0.1/.archbuild-header.json")
        .is_file());
}

#[test]
fn an_edited_directory_changes_the_key_and_a_git_pin_is_enforced() {
    let p = Project::new();
    p.write("lib/include/demo/params.h", "#define DEMO_VALUE 24680\n");
    let lib = HeaderLibrary::path("demo", p.path("lib/include"));
    let (first, _) = p.check(&lib);
    assert!(has(&first, "24680"));
    p.write("lib/include/demo/params.h", "#define DEMO_VALUE 13579\n");
    let (second, report) = p.check(&lib);
    assert_eq!(report.cache_hits, 0, "{report}");
    assert!(has(&second, "13579") && !has(&second, "24680"));

    // The same directory as a git checkout, pinned in Cargo.toml to a commit it is not at.
    let git = |args: &[&str]| {
        archbuild_tests::run(
            Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@t"])
                .args(["-c", "commit.gpgsign=false"])
                .args(args)
                .current_dir(p.path("lib")),
        )
    };
    if Command::new("git").arg("--version").output().is_err() {
        return archbuild_tests::servers::skip("no git program to make a checkout with");
    }
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "pinned"]);
    let head = git(&["rev-parse", "HEAD"]).trim().to_owned();
    let pinned = "0123456789abcdef0123456789abcdef01234567";
    p.write(
        "pkg/Cargo.toml",
        &format!(
            "[package]\nname = \"k\"\n[package.metadata.archbuild.headers]\ndemo = {{ path = \
             \"../lib/include\", rev = \"{pinned}\" }}\n"
        ),
    );
    let err = archbuild_tests::build()
        .env(p.env())
        .home(Home::at(p.path("home")))
        .manifest_dir(p.path("pkg"))
        .out_dir(p.path("out"))
        .file("k.cu")
        .archs("8.6")
        .quiet(true)
        .try_compile("kernels")
        .unwrap_err();
    assert_eq!(err.kind(), archbuild::ErrorKind::Config);
    let msg = err
        .to_string()
        .replace(&p.path("").display().to_string(), "[TMP]/")
        .replace(&head, "[HEAD]");
    insta::assert_snapshot!("header_library_git_pin_mismatch", msg);
    // Pinned to its commit, the declaration in Cargo.toml builds.
    p.write(
        "pkg/Cargo.toml",
        &format!(
            "[package]\nname = \"k\"\n[package.metadata.archbuild.headers]\ndemo = {{ path = \
             \"../lib/include\", rev = \"{head}\" }}\n"
        ),
    );
    let report = archbuild_tests::build()
        .env(p.env())
        .home(Home::at(p.path("home")))
        .manifest_dir(p.path("pkg"))
        .cache_dir(p.path("cache"))
        .out_dir(p.path("out"))
        .file("k.cu")
        .archs("8.6+PTX")
        .compression("none")
        .quiet(true)
        .try_compile("kernels")
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(has(
        &std::fs::read(&report.modules[0].fatbin).unwrap(),
        "13579"
    ));
}

#[test]
fn a_package_the_offline_index_lacks_names_what_was_tried_and_the_fix() {
    let p = Project::new();
    if demo_wheel(&p, "1.0.0", 1).is_none() {
        return archbuild_tests::servers::skip("no python3 to build a wheel with");
    }
    let err = p
        .try_build(&HeaderLibrary::pypi("nvidia-cutlass", "4.2.0"), true)
        .unwrap_err();
    assert_eq!(err.kind(), archbuild::ErrorKind::Toolkit);
    let msg = err
        .to_string()
        .replace(&p.path("").display().to_string(), "[TMP]/");
    let (head, pip_said) = msg.split_once("\npip said:\n").unwrap_or((&msg, ""));
    // pip's own words vary with its version; what archbuild says does not.
    assert!(pip_said.contains("nvidia-cutlass==4.2.0"), "{pip_said}");
    insta::assert_snapshot!("header_library_missing_offline", head);
    assert!(!p.path("home/headers/nvidia-cutlass-4.2.0").exists());
}

/// The real CUTLASS wheel from PyPI (6.4 MB), once into a private home, then a kernel using
/// CuTe's `tensor.hpp` for sm_80 with the tests' CUDA 13.5.
#[test]
fn real_cutlass_from_pypi_compiles_a_cute_kernel_for_sm_80() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("pkg/cute_copy.cu");
    std::fs::create_dir_all(src.parent().unwrap()).unwrap();
    std::fs::write(
        &src,
        "#include <cute/tensor.hpp>\nusing namespace cute;\n\
         extern \"C\" __global__ void cute_copy(float const *in, float *out) {\n\
           Tensor a = make_tensor(make_gmem_ptr(in), make_shape(Int<128>{}));\n\
           Tensor b = make_tensor(make_gmem_ptr(out), make_shape(Int<128>{}));\n\
           b(threadIdx.x) = a(threadIdx.x) * 2.0f;\n}\n",
    )
    .unwrap();
    let start = std::time::Instant::now();
    let result = archbuild_tests::build()
        .home(Home::at(dir.path().join("home")))
        .manifest_dir(dir.path().join("pkg"))
        .out_dir(dir.path().join("out"))
        .file("cute_copy.cu")
        .header_library(HeaderLibrary::pypi("nvidia-cutlass", "4.2.0"))
        .flag("-std=c++17")
        .archs("8.0")
        .quiet(true)
        .try_compile("kernels");
    let report = match result {
        Err(archbuild::Error::HeaderInstall { problem, .. })
            if problem.contains("could not be reached") || problem.contains("no wheel") =>
        {
            return archbuild_tests::servers::skip(format!("PyPI is not reachable: {problem}"));
        }
        other => other.unwrap_or_else(|e| panic!("{e}")),
    };
    let installed = archbuild::headers::installed(&Home::at(dir.path().join("home")));
    println!(
        "nvidia-cutlass 4.2.0: installed and compiled in {:.1} s ({} files, wheel {})",
        start.elapsed().as_secs_f64(),
        installed[0].files,
        installed[0].wheel
    );
    assert_eq!(installed[0].package, "nvidia-cutlass");
    let fatbin = std::fs::read(&report.modules[0].fatbin).unwrap();
    assert!(!fatbin.is_empty());
    assert!(report.modules[0].targets.iter().any(|t| t == "sm_80"));
}

/// A host library source whose host code and kernel both read the header library.
const HOST_LIB: &str = "#include <demo/params.h>\n\
    __global__ void k(int *x) { x[0] = DEMO_VALUE; }\n\
    extern \"C\" int demo_host_value() { return DEMO_VALUE + 1; }\n\
    extern \"C\" void demo_launch(int *x) { k<<<1, 1>>>(x); }\n";

impl Project {
    fn host_library(
        &self,
        lib: &HeaderLibrary,
        (home, pkg): (&str, &str),
        remote: Option<&str>,
        cache: bool,
    ) -> archbuild::Result<BuildReport> {
        self.write(&format!("{pkg}/lib.cu"), HOST_LIB);
        let mut l = archbuild::Library::new();
        l.toolkit(archbuild_tests::toolkit().clone())
            .env(self.env())
            .home(Home::at(self.path(home)))
            .manifest_dir(self.path(pkg))
            .out_dir(self.path(&format!("{pkg}/out-{cache}")))
            .files(["lib.cu"])
            .header_library(lib.clone())
            .archs("8.6")
            .cache(cache)
            .cargo_metadata(false)
            .quiet(true);
        if let Some(url) = remote {
            l.remote_cache(url);
        }
        l.try_compile("demo")
    }
}

fn archive(r: &BuildReport) -> Vec<u8> {
    std::fs::read(&r.library.as_ref().unwrap().archive).unwrap()
}

/// The host side of a library source is preprocessed with the header libraries' directories
/// too (it failed with `demo/params.h: No such file or directory` when only the device side had
/// them), and a new version of the library changes the host object like the device code.
#[test]
fn a_host_librarys_host_side_reads_the_header_library_and_keys_it() {
    let p = Project::new();
    if demo_wheel(&p, "1.0.0", 12345).is_none() || demo_wheel(&p, "1.0.1", 67890).is_none() {
        return archbuild_tests::servers::skip("no python3 to build a wheel with");
    }
    let lib = |v: &str| HeaderLibrary::pypi("demo-headers", v).include("demo_headers/include");
    let first = p
        .host_library(&lib("1.0.0"), ("home", "pkg"), None, true)
        .unwrap_or_else(|e| panic!("{e}"));
    let first = archive(&first);
    let second = p
        .host_library(&lib("1.0.1"), ("home", "pkg"), None, true)
        .unwrap_or_else(|e| panic!("{e}"));
    let objects = |r: &BuildReport| r.library.as_ref().unwrap().objects.clone();
    assert!(
        objects(&second).iter().all(|o| !o.served.cached()),
        "{second}"
    );
    assert!(first != archive(&second));
    let off = p
        .host_library(&lib("1.0.1"), ("home", "pkg"), None, false)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        archive(&second) == archive(&off),
        "the cached build differs from a cache-off build"
    );
}

/// Another machine installs the same wheel into its own home, at another path, and checks the
/// package out elsewhere: with the shared cache it runs no cicc and no ptxas (its preprocessor
/// finds the same text), and its archive equals a cache-off build's there. Before, pip's record
/// of the install (which names the wheel's path under the home) was hashed with the headers, so
/// every key differed.
#[test]
fn a_second_home_with_its_own_header_install_compiles_no_device_code() {
    let p = Project::new();
    if demo_wheel(&p, "1.0.0", 12345).is_none() {
        return archbuild_tests::servers::skip("no python3 to build a wheel with");
    }
    let lib = HeaderLibrary::pypi("demo-headers", "1.0.0").include("demo_headers/include");
    let url = format!("file://{}", p.path("remote").display());
    let a = p
        .host_library(&lib, ("home-a", "pkg"), Some(&url), true)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(a.processes_started > 0);
    let b = p
        .host_library(&lib, ("elsewhere/home-b", "another/pkg"), Some(&url), true)
        .unwrap_or_else(|e| panic!("{e}"));
    let ran: Vec<String> = b
        .jobs
        .iter()
        .filter(|j| !j.served.cached())
        .map(|j| format!("{} {} {:?}", j.phase, j.target, j.served.miss()))
        .collect();
    assert!(ran.is_empty(), "ran: {ran:?}\n{b}");
    let served = archive(&b);
    let off = p
        .host_library(&lib, ("elsewhere/home-b", "another/pkg"), None, false)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        served == archive(&off),
        "served differs from a cache-off build"
    );
}

/// A header library's header that reads its own location (glibc's `assert` names its file,
/// as CUTLASS's device asserts do) puts the library's path into the PTX: a build where the same
/// headers lie elsewhere gets its own PTX, equal to a cache-off build there, even when the
/// first location's files are still on the machine (direct mode must not serve the other
/// location's manifest).
#[test]
fn a_header_library_elsewhere_whose_headers_name_their_path_gets_its_own_ptx() {
    let p = Project::new();
    let header = "#include <cassert>\n#define DEMO_VALUE 5\n\
                  __device__ inline void demo_check(int *x) { assert(x); }\n";
    p.write("site-a/include/demo/params.h", header);
    p.write("elsewhere/site-b/include/demo/params.h", header);
    p.write(
        "pkg/k.cu",
        "#include <demo/params.h>\nextern \"C\" __global__ void k(int *x) { demo_check(x); x[0] = DEMO_VALUE; }\n",
    );
    let build = |site: &str, remote: Option<&str>, cache: bool| {
        let mut b = archbuild_tests::build();
        b.env(p.env())
            .home(Home::at(p.path(if cache { "home" } else { "home-off" })))
            .manifest_dir(p.path("pkg"))
            .out_dir(p.path(&format!("out-{site}-{cache}")))
            .file("k.cu")
            .header_library(HeaderLibrary::path("demo", p.path(site)))
            .archs("8.6+PTX")
            .compression("none")
            .cache(cache)
            .quiet(true);
        if let Some(url) = remote {
            b.remote_cache(url);
        }
        let r = b.try_compile("kernels").unwrap_or_else(|e| panic!("{e}"));
        std::fs::read(&r.modules[0].fatbin).unwrap()
    };
    let url = format!("file://{}", p.path("remote").display());
    let a = build("site-a/include", Some(&url), true);
    assert!(has(&a, "site-a"), "the PTX does not name the header's path");
    let b = build("elsewhere/site-b/include", Some(&url), true);
    let off = build("elsewhere/site-b/include", None, false);
    assert!(has(&off, "site-b"));
    assert!(b == off, "the build of site-b was served site-a's PTX");
}
