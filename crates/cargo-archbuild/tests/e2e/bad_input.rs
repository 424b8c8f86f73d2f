//! Inputs and interruptions that must not lose data or leave litter.

use crate::support::{cli, run, scratch};

#[test]
fn an_output_that_is_an_input_is_refused_and_the_source_kept() {
    let dir = scratch();
    let src = dir.path().join("k.cu");
    let text = "extern \"C\" __global__ void k(float *x) { x[0] = 1; }\n";
    std::fs::write(&src, text).unwrap();
    let out = cli()
        .current_dir(dir.path())
        .args(["compile", "k.cu", "--archs", "8.6", "-o", "./k.cu"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    insta::assert_snapshot!(err);
    assert_eq!(
        std::fs::read_to_string(&src).unwrap(),
        text,
        "the source is intact"
    );
}

#[test]
fn an_interrupted_compile_leaves_nothing_beside_the_output() {
    let dir = scratch();
    std::fs::write(
        dir.path().join("k.cu"),
        "extern \"C\" __global__ void k(float *x) { x[0] = 1; }\n",
    )
    .unwrap();
    // A plain std Command (assert_cmd's waits for the end), set up as `cli()` does.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-archbuild"))
        .env("NO_COLOR", "1")
        .env("NVCC", archbuild_tests::tool("nvcc"))
        .env("ARCHBUILD_JIT_CACHE", "off")
        .current_dir(dir.path())
        .args([
            "compile",
            "k.cu",
            "--archs",
            "7.5 8.0 8.6 8.9 9.0",
            "-o",
            "k.fatbin",
        ])
        .env("ARCHBUILD_CACHE", "off")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Bounded: interrupt once the compile has started, or give up after 5 s.
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_millis(400) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let _ = child.wait();
    let litter: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".archbuild"))
        .collect();
    assert!(litter.is_empty(), "left behind: {litter:?}");
}

/// A copy of the test toolkit made of symbolic links, without `nvvm/bin/cicc`: nvcc runs, and
/// fails when it starts the front end.
fn toolkit_without_cicc(into: &std::path::Path) -> std::path::PathBuf {
    let real = archbuild_tests::tool("nvcc")
        .parent()
        .and_then(|b| b.parent())
        .unwrap()
        .to_path_buf();
    let link_all = |from: &std::path::Path, to: &std::path::Path, skip: &[&str]| {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let name = e.file_name();
            if !skip.iter().any(|s| name == *s) {
                std::os::unix::fs::symlink(e.path(), to.join(&name)).unwrap();
            }
        }
    };
    link_all(&real, into, &["nvvm", "bin"]);
    link_all(&real.join("bin"), &into.join("bin"), &[]);
    link_all(&real.join("nvvm"), &into.join("nvvm"), &["bin"]);
    std::fs::create_dir_all(into.join("nvvm/bin")).unwrap();
    into.join("bin/nvcc")
}

#[test]
fn a_toolkit_missing_a_compiler_exits_4_and_names_the_tool() {
    let dir = scratch();
    std::fs::write(
        dir.path().join("k.cu"),
        "extern \"C\" __global__ void k(float *x) { x[0] = 1; }\n",
    )
    .unwrap();
    let nvcc = toolkit_without_cicc(&dir.path().join("cuda"));
    let out = cli()
        .current_dir(dir.path())
        .env("NVCC", &nvcc)
        .env("ARCHBUILD_CACHE", "off")
        .args(["compile", "k.cu", "--archs", "8.6", "-o", "k.fatbin"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(
        err.contains("is incomplete or broken") && err.contains("nvvm/bin/cicc: not found"),
        "{err}"
    );
}

/// Whether bubblewrap can give a directory a tiny file system of its own here; says why not.
fn bwrap_works() -> bool {
    let works = std::process::Command::new("bwrap")
        .args(["--bind", "/", "/", "--dev", "/dev", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !works {
        archbuild_tests::servers::skip(
            "bubblewrap (apt package `bubblewrap`) is missing or cannot run here",
        );
    }
    works
}

#[test]
fn a_full_cache_disk_only_warns_and_a_full_output_disk_exits_8_naming_the_disk_and_the_fix() {
    if !bwrap_works() {
        return;
    }
    let dir = scratch();
    std::fs::write(
        dir.path().join("k.cu"),
        "extern \"C\" __global__ void k(float *x) { x[0] = 1; }\n",
    )
    .unwrap();
    let (cache, outdir) = (dir.path().join("cache"), dir.path().join("out"));
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::create_dir_all(&outdir).unwrap();
    // `compile` with `small` on a tmpfs of `size` bytes.
    let under = |small: &std::path::Path, size: &str, out: &std::path::Path| {
        let mut cmd = std::process::Command::new("bwrap");
        cmd.args([
            "--bind", "/", "/", "--dev", "/dev", "--size", size, "--tmpfs",
        ])
        .arg(small)
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_cargo-archbuild"))
        .args(["compile", "k.cu", "--archs", "7.5 8.0 8.6+PTX", "-o"])
        .arg(out)
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .env("NVCC", archbuild_tests::tool("nvcc"))
        .env("ARCHBUILD_CACHE_DIR", &cache)
        .env_remove("ARCHBUILD_ARCHS");
        let o = cmd.output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    // The cache on a 64 KiB file system: the build runs without it, with one warning naming
    // the disk and the fix, and writes what a build without cache writes.
    let (code, err) = under(&cache, "65536", &dir.path().join("k.fatbin"));
    assert_eq!(code, Some(0), "{err}");
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("the disk holding the build cache"))
        .collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].contains(&cache.display().to_string())
            && warnings[0].contains("ARCHBUILD_CACHE_DIR"),
        "{err}"
    );
    let (code, _, err) = run(cli()
        .current_dir(dir.path())
        .env("ARCHBUILD_CACHE", "off")
        .args([
            "compile",
            "k.cu",
            "--archs",
            "7.5 8.0 8.6+PTX",
            "-o",
            "fresh.fatbin",
        ]));
    assert_eq!(code, 0, "{err}");
    assert!(
        std::fs::read(dir.path().join("k.fatbin")).unwrap()
            == std::fs::read(dir.path().join("fresh.fatbin")).unwrap(),
        "the build without its full cache differs from a build without cache"
    );
    // The output on a file system of one page: the fat binary (three images) does not fit. The
    // message names the output the user asked for, not a temporary path.
    let out = outdir.join("k.fatbin");
    let (code, err) = under(&outdir, "4096", &out);
    assert_eq!(code, Some(8), "{err}");
    assert!(
        err.contains(&format!("cannot write `{}`: No space left", out.display()))
            && err.contains("disk is full")
            && !err.contains(".tmp-"),
        "{err}"
    );
}
