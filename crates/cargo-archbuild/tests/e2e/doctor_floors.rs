//! `doctor` and `inspect` on fleets of GPUs *and drivers* (issue 35): the driver floors of
//! cubins made by CUDA 13 (ELF ABI version 8: R580), PTX ISA 9.x and zstd entries the driver
//! decompresses itself (R550), on simulated R525…R580 drivers; and fat binaries embedded as bytes
//! (`include_bytes!` in `.rodata`, as archbuild's generated module does), which a search of the
//! file finds where no `.nv_fatbin` section is. Fixtures: the runtime's real CUDA 13.5 sm_75
//! cubin and compute_75 PTX, packed by the project's writer; host executables from the system C
//! compiler.

use std::path::{Path, PathBuf};

use archbuild_fatbin::{Arch, CompressionChoice, FatbinWriter};

use crate::support::{cli, json, run, scratch};

const DRIVERS: [&str; 5] = ["12.0", "12.2", "12.4", "12.8", "13.0"];

fn runtime_fixture(name: &str) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../archbuild-runtime/tests/fixtures");
    std::fs::read(dir.join(name)).unwrap()
}

/// sm_75 cubin + compute_75 PTX as the release `made_by` makes them: 13.0 (PTX ISA 9.0), 13.5
/// (9.5), or 12.4 (the cubin set to ELF ABI version 7 and CUDA 12's `e_flags`; PTX ISA 8.4).
fn fatbin(made_by: &str, choice: CompressionChoice) -> Vec<u8> {
    let mut cubin = runtime_fixture("sm_75.cubin");
    let isa = match made_by {
        "13.0" => "9.0",
        "13.5" => "9.5",
        _ => {
            cubin[8] = 7;
            cubin[48..52].copy_from_slice(&75u32.to_le_bytes());
            "8.4"
        }
    };
    let ptx = String::from_utf8(runtime_fixture("compute_75.ptx"))
        .unwrap()
        .replace(".version 9.5\n", &format!(".version {isa}\n"));
    let mut w = FatbinWriter::new();
    w.compression(choice);
    w.add_cubin(&cubin, Arch::plain(7, 5)).unwrap();
    w.add_ptx(ptx.as_bytes(), Arch::plain(7, 5)).unwrap();
    w.write().unwrap()
}

/// `doctor FILE` on one 7.5 GPU per driver: whether the GPU can run the file's only checked
/// module, and that module's JSON.
fn verdicts(path: &Path) -> (Vec<bool>, Vec<serde_json::Value>) {
    let mut oks = Vec::new();
    let mut modules = Vec::new();
    for d in DRIVERS {
        let v = json(
            cli()
                .env("ARCHBUILD_SIMULATED_GPUS", format!("7.5@{d}"))
                .env("ARCHBUILD_NVJITLINK", "off")
                .arg("doctor")
                .arg(path)
                .args(["--message-format", "json"]),
        );
        let m = v["file"]["modules"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["checked"] == true)
            .cloned()
            .unwrap_or_else(|| panic!("no checked module: {v}"));
        oks.push(m["gpus"][0]["ok"] == true);
        modules.push(m);
    }
    (oks, modules)
}

#[test]
fn doctor_follows_the_driver_floors_of_toolkit_ptx_isa_and_compression() {
    let dir = scratch();
    let (t, f) = (true, false);
    let mut failures = Vec::new();
    for (label, choice) in [
        ("stored", CompressionChoice::stored()),
        ("lz4", CompressionChoice::all_lz4()),
        ("zstd", CompressionChoice::all_zstd()),
    ] {
        // Columns: CUDA 12.0 (R525), 12.2 (R535), 12.4 (R550), 12.8 (R570), 13.0 (R580).
        for (made_by, want) in [
            ("13.0", [f, f, f, f, t]),
            ("13.5", [f, f, f, f, t]),
            ("12.4", [t, t, t, t, t]),
        ] {
            let path = dir.path().join(format!("k{made_by}-{label}.fatbin"));
            std::fs::write(&path, fatbin(made_by, choice)).unwrap();
            let (got, _) = verdicts(&path);
            if got != want {
                failures.push(format!(
                    "CUDA {made_by} {label}: expected {want:?}, got {got:?}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_cuda_13_cubin_on_a_cuda_12_driver_names_the_floor_and_the_fix() {
    let dir = scratch();
    let path = dir.path().join("vector_add.fatbin");
    std::fs::write(&path, fatbin("13.0", CompressionChoice::stored())).unwrap();
    let (code, stdout, _) = run(cli()
        .env("ARCHBUILD_SIMULATED_GPUS", "7.5,8.6,8.9@12.4")
        .arg("doctor")
        .arg(&path));
    assert_eq!(code, 1, "{stdout}");
    assert!(!stdout.contains(": ok"), "{stdout}");
    for line in [
        "GPU 0 RTX 2060 (7.5): cannot run it: its driver (CUDA 12.4) cannot load the images that fit it",
        "[0] sm_75: rejected: cubin made by CUDA 13 needs a driver for CUDA 13.0 (R580) or newer; \
         this GPU's driver is CUDA 12.4: update the driver, or build with a CUDA 12 toolkit, or \
         ship PTX it can JIT (ISA 8.4 or older)",
        "[1] compute_75 (PTX ISA 9.0): rejected: PTX ISA 9.0 needs a driver for CUDA 13.0 (R580) or newer",
    ] {
        assert!(stdout.contains(line), "missing `{line}` in:\n{stdout}");
    }
}

/// A host executable made by the system C compiler whose data holds `bytes`: in `.rodata` (as
/// `include_bytes!` puts it), or in the section `section`.
fn executable(dir: &Path, name: &str, bytes: &[u8], section: Option<&str>) -> PathBuf {
    let attr = match section {
        Some(s) => format!("__attribute__((section(\"{s}\"), aligned(8), used))"),
        None => "__attribute__((aligned(8)))".to_owned(),
    };
    let array: Vec<String> = bytes.iter().map(|b| format!("{b:#04x}")).collect();
    let src = dir.join(format!("{name}.c"));
    std::fs::write(
        &src,
        format!(
            "const unsigned char FATBIN[{}] {attr} = {{{}}};\n\
             int main(int argc, char **argv) {{ (void)argv; return FATBIN[argc]; }}\n",
            bytes.len(),
            array.join(",")
        ),
    )
    .unwrap();
    let exe = dir.join(name);
    let out = std::process::Command::new("cc")
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("run the system C compiler (cc)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

#[test]
fn doctor_and_inspect_find_a_fat_binary_embedded_as_bytes() {
    let dir = scratch();
    let bytes = fatbin("13.0", CompressionChoice::nvcc_default());
    let exe = executable(dir.path(), "app", &bytes, None);
    let file = std::fs::read(&exe).unwrap();
    let at = file
        .windows(bytes.len())
        .position(|w| w == bytes)
        .expect("the fat binary is in the executable");
    let label = format!("embedded at {at:#x}");
    // inspect lists its images with where they are.
    let v = json(
        cli()
            .arg("inspect")
            .arg(&exe)
            .args(["--message-format", "json"]),
    );
    let images: Vec<(String, String)> = v["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["target"].as_str().unwrap().to_owned(),
                i["location"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        images,
        [
            ("sm_75".to_owned(), format!("{label} entry 0")),
            ("compute_75".to_owned(), format!("{label} entry 1")),
        ]
    );
    let (code, stdout, _) = run(cli().arg("inspect").arg(&exe));
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("2 image(s)"), "{stdout}");
    // doctor checks it as the loader will load it.
    let v = json(
        cli()
            .env("ARCHBUILD_SIMULATED_GPUS", "7.5,8.6@13.0")
            .arg("doctor")
            .arg(&exe)
            .args(["--message-format", "json"]),
    );
    let m = &v["file"]["modules"][0];
    assert_eq!(m["location"], label.as_str());
    assert_eq!(m["images"], serde_json::json!(["sm_75", "compute_75"]));
    assert_eq!(m["gpus"][0]["image"], "sm_75");
    assert_eq!(m["gpus"][1]["image"], "compute_75");
    assert_eq!(v["file"]["ok"], true);
    let (code, stdout, _) = run(cli()
        .env("ARCHBUILD_SIMULATED_GPUS", "7.5@13.0")
        .arg("doctor")
        .arg(&exe));
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains(&format!("({label}): sm_75 compute_75"))
            && stdout.contains("GPU 0 RTX 2060 (7.5): ok [0] sm_75, cubin"),
        "{stdout}"
    );
}

#[test]
fn zstd_in_an_executables_nv_fatbin_needs_r550_but_not_through_archbuilds_loader() {
    // The CUDA runtime hands `.nv_fatbin` containers to the driver whole, so the driver
    // decompresses them; archbuild's loader decompresses an embedded fat binary itself.
    let dir = scratch();
    let bytes = fatbin("12.4", CompressionChoice::all_zstd());
    let (t, f) = (true, false);
    let nv = executable(dir.path(), "nv", &bytes, Some(".nv_fatbin"));
    let (got, modules) = verdicts(&nv);
    assert_eq!(got, [f, f, t, t, t], "{modules:?}");
    let err = modules[0]["gpus"][0]["error"].as_str().unwrap();
    assert!(
        err.contains("zstd-compressed image needs a driver for CUDA 12.4 (R550) or newer")
            && err.contains("`speed` (LZ4)"),
        "{err}"
    );
    let embedded = executable(dir.path(), "embedded", &bytes, None);
    assert_eq!(verdicts(&embedded).0, [t, t, t, t, t]);
    // LZ4 in `.nv_fatbin` loads everywhere.
    let lz4 = fatbin("12.4", CompressionChoice::all_lz4());
    let nv = executable(dir.path(), "nv_lz4", &lz4, Some(".nv_fatbin"));
    assert_eq!(verdicts(&nv).0, [t, t, t, t, t]);
}
