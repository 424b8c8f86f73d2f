//! Inputs and interruptions that must not lose data or leave litter.

use crate::support::{cli, scratch};

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
