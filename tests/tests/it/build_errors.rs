//! Bad input gives a clear error that names the fix; the messages are snapshots
//! (`tests/tests/it/snapshots/it__build_errors__*.snap`). Missing toolkit, python3 and pip are simulated with `PATH`,
//! `ARCHBUILD_PYTHON` and a venv without pip, and need no toolkit; the arch and compile errors
//! use the real toolkit.

use std::path::Path;

use archbuild::{config::Home, toolkit::Discovery, Build, Env};

/// Replaces the test's temporary directory so snapshots are stable.
fn redact_tmp(msg: &str, tmp: &Path) -> String {
    msg.replace(&tmp.display().to_string(), "[TMP]")
}

/// [`redact_tmp`], and the real toolkit's directory, for the tests that build with it.
fn redact(msg: &str, tmp: &Path) -> String {
    let tk = archbuild_tests::toolkit();
    redact_tmp(msg, tmp).replace(&tk.bin_dir().display().to_string(), "[CUDA_BIN]")
}

#[test]
fn missing_toolkit() {
    let tmp = tempfile::tempdir().unwrap();
    let mut d = Discovery::new(Home::at(tmp.path().join("home")));
    d.system_roots = vec![tmp.path().join("usr-local-cuda")];
    let env = Env::from_vars([("PATH", "/nonexistent/bin")]);
    let err = d.locate(&env, false, &mut |_| {}).unwrap_err();
    insta::assert_snapshot!(redact_tmp(&err.to_string(), tmp.path()));

    // A variable pointing nowhere is named, not skipped.
    let env = Env::from_vars([("CUDA_HOME", tmp.path().join("cuda-12").into_os_string())]);
    let err = d.locate(&env, false, &mut |_| {}).unwrap_err();
    insta::assert_snapshot!(
        "missing_toolkit_bad_cuda_home",
        redact_tmp(&err.to_string(), tmp.path())
    );
}

#[test]
fn missing_python_for_provisioning() {
    let tmp = tempfile::tempdir().unwrap();
    let home = Home::at(tmp.path().join("home"));
    let env = Env::from_vars([("PATH", "/nonexistent/bin")]);
    let err = archbuild::toolkit::provision(&env, &home, &mut |_| {}).unwrap_err();
    insta::assert_snapshot!(redact_tmp(&err.to_string(), tmp.path()));
    // Nothing half-installed is left to be trusted.
    assert!(!archbuild::toolkit::provisioned_dir(&home).exists());
}

#[test]
fn missing_pip_for_provisioning() {
    let tmp = tempfile::tempdir().unwrap();
    let venv = tmp.path().join("venv");
    let st = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status();
    if !st.is_ok_and(|s| s.success()) {
        return archbuild_tests::servers::skip("python3 -m venv is not available here");
    }
    let home = Home::at(tmp.path().join("home"));
    let env = Env::from_vars([("ARCHBUILD_PYTHON", venv.join("bin/python3"))]);
    let err = archbuild::toolkit::provision(&env, &home, &mut |_| {}).unwrap_err();
    insta::assert_snapshot!(redact_tmp(&err.to_string(), tmp.path()));
}

#[test]
fn unreachable_package_index() {
    let tmp = tempfile::tempdir().unwrap();
    let home = Home::at(tmp.path().join("home"));
    let env = archbuild_tests::env_with([
        ("PIP_INDEX_URL", "http://127.0.0.1:9/simple".into()),
        ("PIP_FIND_LINKS", tmp.path().as_os_str().to_owned()),
        ("PIP_RETRIES", "0".into()),
        ("PIP_TIMEOUT", "2".into()),
        ("PIP_NO_CACHE_DIR", "1".into()),
    ]);
    let mut events = Vec::new();
    let err = archbuild::toolkit::provision(&env, &home, &mut |e| events.push(e.to_string()))
        .unwrap_err();
    let msg = err.to_string();
    let (head, tail) = msg.split_once("pip said:").expect("the message quotes pip");
    insta::assert_snapshot!(redact_tmp(head, tmp.path()));
    assert!(tail.contains("No matching distribution"), "{tail}");
    assert!(
        events[0].starts_with("installing CUDA 13.5.37 from PyPI"),
        "{events:?}"
    );
    assert!(!archbuild::toolkit::provisioned_dir(&home).exists());
    let leftovers: Vec<_> = std::fs::read_dir(home.toolkits_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "the temp install dir is removed");
}

fn build_in(tmp: &Path, archs_env: &str, source: &str) -> archbuild::Error {
    std::fs::create_dir_all(tmp.join("pkg/kernels")).unwrap();
    std::fs::write(tmp.join("pkg/kernels/k.cu"), source).unwrap();
    archbuild_tests::build()
        .env(archbuild_tests::env_with([("ARCHBUILD_ARCHS", archs_env)]))
        .manifest_dir(tmp.join("pkg"))
        .cache_dir(tmp.join("cache"))
        .out_dir(tmp.join("out"))
        .file("kernels/k.cu")
        .jobs(1)
        .quiet(true)
        .try_compile("kernels")
        .unwrap_err()
}

const GOOD: &str = "extern \"C\" __global__ void k(float* x) { x[0] = 1; }\n";

#[test]
fn unknown_arch() {
    let tmp = tempfile::tempdir().unwrap();
    let err = build_in(tmp.path(), "7.5 8.6x", GOOD);
    insta::assert_snapshot!(redact(&err.to_string(), tmp.path()));
}

#[test]
fn arch_the_toolkit_cannot_build() {
    let tmp = tempfile::tempdir().unwrap();
    let err = build_in(tmp.path(), "7.0 8.6", GOOD);
    insta::assert_snapshot!(redact(&err.to_string(), tmp.path()));
}

/// Every arch fails the same way; with `.jobs(1)` the first job to start fails and the build
/// starts no other, so the message names one job. Which one starts first is the scheduler's
/// choice (start priorities, cicc sharing), not the message's: the snapshot masks it.
#[test]
fn compile_error() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = "extern \"C\" __global__ void k(float* x) {\n    x[0] = undefined_thing;\n}\n";
    let err = build_in(tmp.path(), "7.5 8.6 8.9", bad);
    let msg = redact(&err.to_string(), tmp.path());
    assert_eq!(msg.matches("is undefined").count(), 1, "{msg}");
    let msg = redact_failed_job(&msg, &["compute_75", "compute_86", "compute_89"]);
    insta::assert_snapshot!(msg);
}

/// `msg` with the failed cicc job's target (one of `targets`, named in the heading and in the
/// command) masked as `[TARGET]`, and the number of its temp files as `[N]`.
fn redact_failed_job(msg: &str, targets: &[&str]) -> String {
    let target = msg
        .split_once(" for ")
        .and_then(|(_, rest)| rest.split_once(" (cicc phase"))
        .map(|(t, _)| t)
        .unwrap_or_else(|| panic!("no failed cicc job in: {msg}"));
    assert!(targets.contains(&target), "{target} is not listed: {msg}");
    assert!(msg.contains(&format!(" -arch={target} ")), "{msg}");
    let n = msg
        .split_once(" -o <tmp>/")
        .and_then(|(_, rest)| rest.split_once(".ptx "))
        .map(|(n, _)| n)
        .unwrap_or_else(|| panic!("no PTX output in: {msg}"));
    assert!(n.parse::<usize>().is_ok(), "{n}: {msg}");
    msg.replace(target, "[TARGET]")
        .replace(&format!("<tmp>/{n}."), "<tmp>/[N].")
}

#[test]
fn a_blank_arch_list_is_an_error_from_every_source_that_is_not_a_variable() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("k.cu"),
        "extern \"C\" __global__ void k() {}\n",
    )
    .unwrap();
    let build = || {
        let mut b = Build::new();
        b.toolkit(archbuild_tests::toolkit().clone())
            .env(Env::from_vars([("ARCHBUILD_ARCHS", "")]))
            .manifest_dir(tmp.path())
            .out_dir(tmp.path().join("out"))
            .cache(false)
            .file("k.cu")
            .quiet(true);
        b
    };
    // `.archs("")` / `--archs ""`: refused like `explain ""`, not the default list.
    let err = build().archs("").try_compile("kernels").unwrap_err();
    insta::assert_snapshot!(redact(&err.to_string(), tmp.path()));
    // `archs = ""` in Cargo.toml: refused too, naming Cargo.toml.
    std::fs::write(
        tmp.path().join("Cargo.toml"),
        "[package]\nname = \"p\"\n[package.metadata.archbuild]\narchs = \"\"\n",
    )
    .unwrap();
    let err = build().try_compile("kernels").unwrap_err().to_string();
    assert!(err.contains("Cargo.toml"), "{err}");
    // A blank variable still means "unset": the build uses the default list.
    std::fs::remove_file(tmp.path().join("Cargo.toml")).unwrap();
    let r = build().try_plan("kernels").unwrap();
    assert!(r.source.to_string().contains("default"), "{}", r.source);
}

#[test]
fn an_unknown_compression_names_every_word_once() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("k.cu"),
        "extern \"C\" __global__ void k() {}\n",
    )
    .unwrap();
    let err = Build::new()
        .toolkit(archbuild_tests::toolkit().clone())
        .env(Env::from_vars([("X", "")]))
        .manifest_dir(tmp.path())
        .out_dir(tmp.path().join("out"))
        .file("k.cu")
        .archs("8.6")
        .compression("bogus")
        .quiet(true)
        .try_plan("kernels")
        .unwrap_err();
    insta::assert_snapshot!(redact(&err.to_string(), tmp.path()));
}

/// What a user sees when the build script fails: Cargo's frame around the build script's
/// stderr, which is archbuild's message and its fix — no panic, no backtrace hint.
#[test]
fn build_script_failure_is_a_clean_error() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = archbuild_tests::fixture("bad-archs", tmp.path());
    // Shared with `build_fixture`: archbuild itself is compiled once for both.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("downstream-fixture");
    let out = archbuild_tests::cargo(&dir, &["build", "--quiet"])
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_TERM_COLOR", "never")
        .env("NVCC", archbuild_tests::tool("nvcc"))
        .env("ARCHBUILD_CACHE_DIR", tmp.path().join("cache"))
        .env_remove("ARCHBUILD_ARCHS")
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    assert!(!out.status.success(), "the build script must fail");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let (_, script) = stderr
        .split_once("--- stderr")
        .unwrap_or_else(|| panic!("Cargo shows the build script's stderr:\n{stderr}"));
    assert!(
        !script.contains("panicked") && !script.contains("RUST_BACKTRACE"),
        "{script}"
    );
    assert!(stderr.contains("(exit status: 1)"), "{stderr}");
    insta::assert_snapshot!(redact(script.trim(), tmp.path()));
}

/// A kernel whose parameter changes type on one arch (`#if __CUDA_ARCH__` in its signature) is
/// refused at build time, naming the kernel, the parameter and the images: a launch passes one
/// argument list to every GPU. The same kernel with the guard inside its body builds.
#[test]
fn a_kernel_whose_parameters_differ_between_archs_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let differs = "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\ntypedef double scale_t;\n\
                   #else\ntypedef float scale_t;\n#endif\n\
                   extern \"C\" __global__ void scale(float* x, scale_t s) { x[0] *= s; }\n";
    let err = build_in(tmp.path(), "8.0 8.6 9.0", differs);
    assert_eq!(err.kind(), archbuild::ErrorKind::Compile, "{err}");
    insta::assert_snapshot!(redact(&err.to_string(), tmp.path()));

    let inside = "extern \"C\" __global__ void scale(float* x, float s) {\n\
                  #if __CUDA_ARCH__ >= 900\n    x[0] *= (double)s;\n#else\n    x[0] *= s;\n#endif\n}\n";
    std::fs::write(tmp.path().join("pkg/kernels/k.cu"), inside).unwrap();
    // sm_100 and newer declare pointer parameters `.ptr .align 1`: the same layout.
    archbuild_tests::build()
        .env(archbuild_tests::env_with([(
            "ARCHBUILD_ARCHS",
            "8.0 8.6 9.0 10.0 12.0",
        )]))
        .manifest_dir(tmp.path().join("pkg"))
        .cache_dir(tmp.path().join("cache"))
        .out_dir(tmp.path().join("out"))
        .file("kernels/k.cu")
        .quiet(true)
        .try_compile("kernels")
        .unwrap();
}

/// A parameter whose C type differs on one arch with the same layout (`int` on sm_80, `unsigned
/// int` on sm_90: `.u32` in both PTX files, so the layouts agree) is refused by the typed
/// launchers' check of the declarations, naming the kernel, the parameter and the images.
#[test]
fn a_kernel_declared_with_another_type_on_one_arch_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let differs = "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\ntypedef unsigned int n_t;\n\
                   #else\ntypedef int n_t;\n#endif\n\
                   extern \"C\" __global__ void fill(float* x, n_t n) { x[0] = n; }\n";
    let err = build_in(tmp.path(), "8.0 8.6 9.0", differs);
    assert_eq!(err.kind(), archbuild::ErrorKind::Compile, "{err}");
    let text = redact(&err.to_string(), tmp.path());
    assert!(
        text.contains(
            "kernel `fill` of `k` is not declared alike in every image: parameter 1 \
             declared as `int` in sm_80, sm_86 but `unsigned int` in sm_90"
        ),
        "{text}"
    );
    insta::assert_snapshot!(text);
}
