//! Runs the example binary. Without a GPU it must say `no GPU: <reason>` and exit 0, and fail
//! with `--require-gpu`; with a GPU it must run the kernel and check the result.

use std::process::Command;

#[test]
fn runs_on_the_gpu_or_says_why_not() {
    let bin = env!("CARGO_BIN_EXE_device_link");
    let out = Command::new(bin).output().expect("run device_link");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("fat binary built for `"), "{stdout}");
    if let Some(line) = stdout.lines().find(|l| l.starts_with("no GPU: ")) {
        println!("SKIPPED the GPU part: {line}");
        let strict = Command::new(bin)
            .arg("--require-gpu")
            .output()
            .expect("run device_link --require-gpu");
        assert_eq!(strict.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&strict.stderr).contains("no GPU:"));
    } else {
        assert!(stdout.contains("result checked on the CPU: OK"), "{stdout}");
        assert!(stdout.contains("loaded ["), "the loader's report: {stdout}");
    }
}
