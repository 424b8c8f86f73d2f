//! Header libraries installed in archbuild's home, as `toolkit list` and `doctor` show them:
//! package, version, include directories (a known package's layout), content hash (short).

use std::path::Path;

use crate::support::{cli, json, run, scratch};

/// An installed `nvidia-cutlass` 4.2.0 as the installer leaves it: its tree and its marker.
fn installed_cutlass(home: &Path) -> std::path::PathBuf {
    let dir = home.join("headers/nvidia-cutlass-4.2.0");
    for d in [
        "cutlass_library/source/include/cute",
        "cutlass_library/source/tools/util/include/cutlass/util",
    ] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    let marker = serde_json::json!({
        "package": "nvidia-cutlass",
        "version": "4.2.0",
        "wheel": "nvidia_cutlass-4.2.0.0-py3-none-any.whl",
        "wheel_sha256": "ab".repeat(32),
        "content": "0123456789abcdef".repeat(4),
        "files": 1549,
        "stat": "x",
    });
    std::fs::write(dir.join(".archbuild-header.json"), marker.to_string()).unwrap();
    dir
}

#[test]
fn toolkit_list_and_doctor_show_installed_header_libraries() {
    let home = scratch();
    // Nothing installed: said so.
    let (code, stdout, _) = run(cli()
        .env("ARCHBUILD_HOME", home.path())
        .args(["toolkit", "list"]));
    assert_eq!(code, 0);
    assert!(
        stdout.contains("header libraries in") && stdout.contains(": none"),
        "{stdout}"
    );

    let dir = installed_cutlass(home.path());
    let include = dir.join("cutlass_library/source/include");
    let (code, stdout, _) = run(cli()
        .env("ARCHBUILD_HOME", home.path())
        .args(["toolkit", "list"]));
    assert_eq!(code, 0);
    let line = stdout
        .lines()
        .find(|l| l.contains("nvidia-cutlass 4.2.0"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        line.contains("content 0123456789ab ") && line.contains(&include.display().to_string()),
        "{line}"
    );
    let v = json(cli().env("ARCHBUILD_HOME", home.path()).args([
        "toolkit",
        "list",
        "--message-format",
        "json",
    ]));
    let h = &v["headers"][0];
    assert_eq!(h["package"], "nvidia-cutlass");
    assert_eq!(h["version"], "4.2.0");
    assert_eq!(h["content"], "0123456789ab");
    assert_eq!(h["files"], 1549);
    assert_eq!(h["include"][0], include.display().to_string());
    assert_eq!(h["include"].as_array().unwrap().len(), 2, "{h}");

    let (code, stdout, _) = run(cli()
        .env("ARCHBUILD_HOME", home.path())
        .env("ARCHBUILD_SIMULATED_GPUS", "8.6@13000")
        .arg("doctor"));
    assert_eq!(code, 0);
    assert!(
        stdout.lines().any(|l| l.starts_with("headers")
            && l.contains("nvidia-cutlass 4.2.0")
            && l.contains("content 0123456789ab")),
        "{stdout}"
    );
    let v = json(
        cli()
            .env("ARCHBUILD_HOME", home.path())
            .env("ARCHBUILD_SIMULATED_GPUS", "8.6@13000")
            .args(["doctor", "--message-format", "json"]),
    );
    assert_eq!(v["headers"][0]["dir"], dir.display().to_string());
    // An incomplete directory (no marker: a killed install) is not listed.
    std::fs::create_dir_all(home.path().join("headers/nvidia-cuda-cccl-13.3.5.0.6")).unwrap();
    let v = json(cli().env("ARCHBUILD_HOME", home.path()).args([
        "toolkit",
        "list",
        "--message-format",
        "json",
    ]));
    assert_eq!(v["headers"].as_array().unwrap().len(), 1);
}
