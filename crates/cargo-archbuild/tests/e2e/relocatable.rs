//! `cargo archbuild build` of a package with a module of two files (Cargo.toml's `modules`
//! table), the kernel in one calling a `__device__` function of the other:
//! `--relocatable-device-code` turns relocatable code on (each file compiled on its own and a
//! device link: 5 jobs), `=false` turns Cargo.toml's `relocatable-device-code = true` off again
//! (one translation unit, the other file `-include`d: 2 jobs).

use crate::support::{cli, json, run, scratch};

fn package(dir: &std::path::Path, rdc_in_manifest: bool) -> std::path::PathBuf {
    let pkg = dir.join("ws");
    std::fs::create_dir_all(pkg.join("kernels")).unwrap();
    std::fs::create_dir_all(pkg.join("src")).unwrap();
    std::fs::write(pkg.join("src/lib.rs"), "").unwrap();
    for (name, text) in [
        (
            "scale.cu",
            "__device__ float factor = 2.0f;\n__device__ float scale(float x) { return x * factor; }\n",
        ),
        (
            "kernels.cu",
            "__device__ float scale(float x);\n\
             extern \"C\" __global__ void scaled(float* x) { x[threadIdx.x] = scale(x[threadIdx.x]); }\n",
        ),
    ] {
        std::fs::write(pkg.join("kernels").join(name), text).unwrap();
    }
    let rdc = if rdc_in_manifest {
        "relocatable-device-code = true\n"
    } else {
        ""
    };
    std::fs::write(
        pkg.join("Cargo.toml"),
        format!(
            "[package]\nname = \"rpkg\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n\
             [package.metadata.archbuild]\narchs = \"8.6\"\n{rdc}\n\
             [package.metadata.archbuild.modules]\nlinked = [\"kernels/scale.cu\", \"kernels/kernels.cu\"]\n"
        ),
    )
    .unwrap();
    pkg.join("Cargo.toml")
}

#[test]
fn the_cli_flag_and_cargo_toml_turn_relocatable_device_code_on_and_off() {
    let dir = scratch();
    let manifest = package(dir.path(), false);
    let build = |extra: &[&str]| {
        let mut c = cli();
        c.arg("build")
            .arg("--manifest-path")
            .arg(&manifest)
            .args(extra);
        c
    };
    let v = json(&mut build(&[
        "--relocatable-device-code",
        "--message-format",
        "json",
    ]));
    assert_eq!(v["reason"], "build-finished", "{v}");
    let module = &v["packages"][0]["modules_checked"][0];
    assert_eq!(module["name"], "linked", "{module}");
    assert!(module["kernels"].to_string().contains("scaled"), "{module}");
    let planned = |stderr: &str| {
        let line = stderr
            .lines()
            .find(|l| l.contains("Planning rpkg:"))
            .unwrap_or("");
        line.split("Planning rpkg: ")
            .nth(1)
            .unwrap_or("")
            .split(' ')
            .next()
            .unwrap_or("")
            .to_owned()
    };
    let (code, _, stderr) = run(&mut build(&["--relocatable-device-code"]));
    assert_eq!((code, planned(&stderr)), (0, "5".to_owned()), "{stderr}");
    let (code, _, stderr) = run(&mut build(&[]));
    assert_eq!((code, planned(&stderr)), (0, "2".to_owned()), "{stderr}");

    let dir = scratch();
    let manifest = package(dir.path(), true);
    let on = |extra: &[&str]| {
        let mut c = cli();
        c.arg("build")
            .arg("--manifest-path")
            .arg(&manifest)
            .args(extra);
        run(&mut c)
    };
    let (code, _, stderr) = on(&[]);
    assert_eq!((code, planned(&stderr)), (0, "5".to_owned()), "{stderr}");
    let (code, _, stderr) = on(&["--relocatable-device-code=false"]);
    assert_eq!((code, planned(&stderr)), (0, "2".to_owned()), "{stderr}");
}
