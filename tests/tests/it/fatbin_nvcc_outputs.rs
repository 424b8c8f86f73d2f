//! Reading what nvcc builds: a `.fatbin`, a `.o`, an `-rdc` `.o` (`__nv_relfatbin`), a linked
//! executable with two translation units and a shared library must give the same entries
//! (kind, arch, variant) that `cuobjdump -all --list-elf --list-ptx` reports; and mutations of
//! these real files must never make a reader panic.
//!
//! The files are built once per test process (OnceLock), the nvcc calls in parallel.

use archbuild_tests::{nvcc, run, KERNEL};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use archbuild_arch::{Arch, Variant};
use archbuild_fatbin::host::scan_host_elf;
use archbuild_fatbin::{read_any, read_fatbin, EntryKind};

const MAIN: &str = r#"
#include <cstdio>
extern "C" __global__ void add_one(float *x, int n);
__global__ void other(int *p) { *p = 1; }
int main() { std::printf("%p %p\n", (void *)add_one, (void *)other); return 0; }
"#;

const FILES: [&str; 5] = ["k.fatbin", "k.o", "krdc.o", "app", "libk.so"];

/// The directory holding the nvcc outputs named in `FILES`.
fn built() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("k.cu"), KERNEL).unwrap();
        std::fs::write(d.join("main.cu"), MAIN).unwrap();
        let gencode = |arch: &str, code: &str| format!("-gencode=arch=compute_{arch},code={code}");
        let mut fatbin = nvcc(d);
        fatbin.args(["-fatbin", "-o", "k.fatbin", "k.cu", &gencode("75", "sm_75")]);
        fatbin.arg(gencode("100a", "[sm_100a,compute_100a]"));
        let mut obj = nvcc(d);
        obj.args([
            "-c",
            "-o",
            "k.o",
            "k.cu",
            &gencode("75", "sm_75"),
            &gencode("90a", "sm_90a"),
        ]);
        obj.arg(gencode("90", "compute_90"));
        let mut rdc = nvcc(d);
        rdc.args(["-c", "-rdc=true", "-o", "krdc.o", "k.cu", "-arch=sm_89"]);
        let mut exe = nvcc(d);
        exe.args([
            "-o",
            "app",
            "main.cu",
            "k.cu",
            &gencode("86", "[sm_86,compute_86]"),
        ]);
        let mut so = nvcc(d);
        so.args([
            "-shared",
            "-Xcompiler",
            "-fPIC",
            "-o",
            "libk.so",
            "k.cu",
            &gencode("120", "sm_120"),
        ]);
        so.arg(gencode("90a", "sm_90a"));
        std::thread::scope(|s| {
            for mut c in [fatbin, obj, rdc, exe, so] {
                s.spawn(move || run(&mut c));
            }
        });
        dir
    })
    .path()
}

fn path(file: &str) -> PathBuf {
    built().join(file)
}

/// `(kind, sm name)` as `cuobjdump -all --list-elf --list-ptx` names them.
fn cuobjdump_entries(path: &Path) -> Vec<(String, String)> {
    let mut c = Command::new(archbuild_tests::tool("cuobjdump"));
    let out = run(c.args(["-all", "--list-elf", "--list-ptx"]).arg(path));
    // `ELF file    1: k.1.sm_90a.cubin`, `PTX file    1: k.1.sm_90.ptx`
    let mut v: Vec<(String, String)> = out
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let kind = l.split_whitespace().next().unwrap().to_string();
            let name = l.rsplit('.').nth(1).unwrap().to_string();
            (kind, name)
        })
        .collect();
    v.sort();
    v
}

/// Ours, named like cuobjdump names them (it drops `f` from ELF names: `sm_100f` -> `sm_100`).
fn our_entries(bytes: &[u8]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = read_any(bytes)
        .unwrap()
        .iter()
        .map(|r| {
            let arch = match (r.kind, r.arch.variant) {
                (EntryKind::Elf, Variant::Family) => Arch {
                    variant: Variant::Plain,
                    ..r.arch
                },
                _ => r.arch,
            };
            (r.kind.name().to_string(), format!("sm_{}", arch.sm_name()))
        })
        .collect();
    v.sort();
    v
}

#[test]
fn reading_nvcc_outputs_finds_what_cuobjdump_finds() {
    for file in FILES {
        let bytes = std::fs::read(path(file)).unwrap();
        let theirs = cuobjdump_entries(&path(file));
        assert!(!theirs.is_empty(), "{file}: cuobjdump found nothing");
        assert_eq!(our_entries(&bytes), theirs, "{file}");
    }
    // The executable holds one container per translation unit plus the device-link one.
    let app = std::fs::read(path("app")).unwrap();
    let embedded = scan_host_elf(&app).unwrap();
    assert_eq!(embedded.len(), 1);
    assert_eq!(embedded[0].section, ".nv_fatbin");
    assert!(
        embedded[0].containers.len() >= 2,
        "{}",
        embedded[0].containers.len()
    );
    for c in &embedded[0].containers {
        let at = c.offset;
        assert_eq!(
            app[at..at + 4],
            0xBA55_ED50u32.to_le_bytes(),
            "container offsets are file offsets"
        );
    }
    // The -rdc object keeps its container in `__nv_relfatbin`.
    let rdc = std::fs::read(path("krdc.o")).unwrap();
    let sections: Vec<String> = scan_host_elf(&rdc)
        .unwrap()
        .into_iter()
        .map(|e| e.section)
        .collect();
    assert_eq!(sections, ["__nv_relfatbin"]);
    // Kernel names come through from every image.
    for r in read_any(&std::fs::read(path("k.o")).unwrap()).unwrap() {
        assert!(r.kernels.contains(&"add_one".to_string()), "{r:?}");
        assert!(
            r.kernels.contains(&"_Z5scaleIfEvPT_S0_i".to_string()),
            "{r:?}"
        );
    }
}

/// Deterministic xorshift mutations (byte flips, aligned field overwrites with extreme values,
/// truncations) of real nvcc outputs: readers return errors, never panic or claim huge images.
#[test]
fn readers_survive_mutations_of_real_nvcc_outputs() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for file in ["k.fatbin", "k.o", "krdc.o"] {
        let original = std::fs::read(path(file)).unwrap();
        for _ in 0..400 {
            let mut bytes = original.clone();
            for _ in 0..1 + next() % 3 {
                let at = (next() % bytes.len() as u64) as usize;
                match next() % 3 {
                    0 => bytes[at] ^= (next() % 255 + 1) as u8,
                    1 => {
                        let at = at & !7;
                        let v = [0u64, 1, 0xffff_ffff, u64::MAX, 1 << 40][(next() % 5) as usize];
                        let n = 8.min(bytes.len() - at);
                        bytes[at..at + n].copy_from_slice(&v.to_le_bytes()[..n]);
                    }
                    _ => bytes.truncate(at),
                }
            }
            if let Ok(records) = read_any(&bytes) {
                assert!(
                    records.iter().all(|r| r.size <= 64 << 20),
                    "{file}: implausible size"
                );
            }
            if let Ok(containers) = read_fatbin(&bytes) {
                for e in containers.iter().flat_map(|c| &c.entries) {
                    let _ = e.data();
                }
            }
            let _ = scan_host_elf(&bytes);
        }
    }
}
