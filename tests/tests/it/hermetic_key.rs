//! A hermetic compiler environment and a complete key, with the real toolkit. Each case
//! changes one thing a compiler reads — an environment variable, a file named inside a flag,
//! the host compiler behind `-ccbin` — and compares the cached build with a build that uses no
//! cache at all: they must be byte-identical. And what nvcc's flag variables ask of ptxas
//! reaches the ptxas phase archbuild runs itself, as under nvcc.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use archbuild::BuildReport;

struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new(kernel: &str) -> Self {
        let p = Self {
            dir: tempfile::tempdir().unwrap(),
        };
        p.write("pkg/k.cu", kernel);
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

    fn build(&self, vars: &[(&str, OsString)], flags: &[&str], cache: bool) -> BuildReport {
        let out = if cache { "out" } else { "out-nocache" };
        archbuild_tests::build()
            .env(archbuild_tests::env_with(vars.iter().cloned()))
            .manifest_dir(self.path("pkg"))
            .cache_dir(self.path("cache"))
            .cache(cache)
            .out_dir(self.path(out))
            .file("k.cu")
            .flags(flags.iter().copied())
            .archs("8.6+PTX")
            .quiet(true)
            .try_compile("kernels")
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// A cached build and a cache-off build of the same state; panics when they differ.
    fn check(&self, vars: &[(&str, OsString)], flags: &[&str], what: &str) -> Vec<u8> {
        let cached = self.build(vars, flags, true);
        let fresh = self.build(vars, flags, false);
        let a = std::fs::read(&cached.modules[0].fatbin).unwrap();
        let b = std::fs::read(&fresh.modules[0].fatbin).unwrap();
        assert!(
            a == b,
            "{what}: the cached build differs from a build without cache: {cached}"
        );
        a
    }
}

fn os(s: impl AsRef<std::ffi::OsStr>) -> OsString {
    s.as_ref().to_owned()
}

const SCALED: &str =
    "#include \"params.cuh\"\nextern \"C\" __global__ void k(float *x) { x[0] = SCALE; }\n";

#[test]
fn cpath_pointing_at_another_header_directory_is_a_miss() {
    let p = Project::new(SCALED);
    p.write("a/params.cuh", "#define SCALE 2.0f\n");
    p.write("b/params.cuh", "#define SCALE 3.0f\n");
    for var in ["CPATH", "CPLUS_INCLUDE_PATH"] {
        let first = p.check(&[(var, os(p.path("a")))], &[], var);
        let second = p.check(&[(var, os(p.path("b")))], &[], var);
        assert!(
            first != second,
            "{var}: the other header makes another fat binary"
        );
    }
}

#[test]
fn a_host_compiler_behind_ccbin_in_nvcc_prepend_flags_is_keyed_by_content() {
    let p = Project::new("extern \"C\" __global__ void k(float *x) { x[0] = EXTRA; }\n");
    let gcc = which::which("gcc").unwrap();
    let wrapper = |extra: &str| {
        p.write(
            "cc/gcc",
            &format!("#!/bin/sh\nexec {} -DEXTRA={extra} \"$@\"\n", gcc.display()),
        );
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p.path("cc/gcc"), std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    let vars = [(
        "NVCC_PREPEND_FLAGS",
        os(format!("-ccbin {}", p.path("cc").display())),
    )];
    wrapper("2.0f");
    let first = p.check(&vars, &[], "EXTRA=2");
    wrapper("3.0f");
    let second = p.check(&vars, &[], "EXTRA=3");
    assert!(first != second);
}

/// Variables outside the allowlist never reach a compiler: nvcc.profile appends `INCLUDES` to
/// its include path, so a header only there would otherwise change the PTX unkeyed.
#[test]
fn variables_outside_the_allowlist_do_not_reach_compilers() {
    let kernel = "#if __has_include(\"evil.cuh\")\n#define V 7.0f\n#else\n#define V 1.0f\n#endif\nextern \"C\" __global__ void k(float *x) { x[0] = V; }\n";
    let p = Project::new(kernel);
    p.write("evil/evil.cuh", "\n");
    let clean = p.check(&[], &[], "clean");
    let vars = [("INCLUDES", os(format!("-I{}", p.path("evil").display())))];
    let with = p.check(&vars, &[], "INCLUDES set");
    assert!(clean == with, "INCLUDES reached nvcc");
}

#[test]
fn an_include_directory_inside_a_flag_is_probed_for_shadowing_headers() {
    let p = Project::new(SCALED);
    p.write("b/params.cuh", "#define SCALE 2.0f\n");
    let (a, b) = (
        format!("-I{}", p.path("a").display()),
        format!("-I{}", p.path("b").display()),
    );
    let flags = [a.as_str(), b.as_str()];
    let first = p.check(&[], &flags, "b only");
    // A header earlier on the path appears: the preprocessor now reads it.
    p.write("a/params.cuh", "#define SCALE 5.0f\n");
    let second = p.check(&[], &flags, "a shadows b");
    assert!(first != second);
}

#[test]
fn an_options_file_and_a_host_response_file_are_hashed() {
    let p = Project::new("extern \"C\" __global__ void k(float *x) { x[0] = SCALE; }\n");
    p.write("pkg/opts.txt", "-DSCALE=2.0f\n");
    let first = p.check(&[], &["--options-file", "opts.txt"], "options file");
    p.write("pkg/opts.txt", "-DSCALE=3.0f\n");
    let second = p.check(&[], &["--options-file", "opts.txt"], "options file changed");
    assert!(first != second);

    let p = Project::new("extern \"C\" __global__ void k(float *x) { x[0] = SCALE; }\n");
    p.write("pkg/host.rsp", "-DSCALE=2.0f\n");
    let first = p.check(&[], &["-Xcompiler", "@host.rsp"], "response file");
    p.write("pkg/host.rsp", "-DSCALE=3.0f\n");
    let second = p.check(&[], &["-Xcompiler", "@host.rsp"], "response file changed");
    assert!(first != second);
}

/// `NVCC_APPEND_FLAGS="-Xptxas -O0"` reaches ptxas under nvcc; the cubin archbuild makes is
/// byte-identical to `nvcc -cubin`'s with the same variable.
#[test]
fn nvcc_flag_variables_reach_the_ptxas_phase() {
    let p = Project::new(archbuild_tests::KERNEL);
    for (var, value) in [
        ("NVCC_APPEND_FLAGS", "-Xptxas -O0"),
        ("NVCC_PREPEND_FLAGS", "-lineinfo"),
    ] {
        let r = p.build(&[(var, os(value))], &[], false);
        let fatbin = std::fs::read(&r.modules[0].fatbin).unwrap();
        let containers = archbuild_fatbin::read_fatbin(&fatbin).unwrap();
        let cubin = containers
            .iter()
            .flat_map(|c| c.entries.iter())
            .find(|e| e.target().to_string() == "sm_86")
            .unwrap()
            .data()
            .unwrap()
            .into_owned();
        let reference = p.path("ref.cubin");
        let st = nvcc_cubin(&p.path("pkg"), var, value, &reference);
        assert!(st.success());
        assert!(
            cubin == std::fs::read(&reference).unwrap(),
            "{var}={value}: the sm_86 cubin differs from nvcc's"
        );
    }
}

fn nvcc_cubin(dir: &Path, var: &str, value: &str, out: &Path) -> std::process::ExitStatus {
    Command::new(archbuild_tests::tool("nvcc"))
        .current_dir(dir)
        .env(var, value)
        .args(["-cubin", "-arch=sm_86", "-o"])
        .arg(out)
        .arg("k.cu")
        .status()
        .unwrap()
}
