//! Kernel variants with the real toolkit and the simulated driver (CI has no GPU): the
//! `examples/variants` GEMM — a Hopper-only WGMMA kernel (`sm_90a`), an `sm_80` tensor-core kernel
//! and a SIMT fallback in one group — resolves to SIMT, MMA and Hopper on a rig of 7.5, 8.6 and
//! 9.0 GPUs, and to MMA from the `compute_86` PTX on 10.0 and 12.0 GPUs (an `sm_90a` cubin runs on
//! 9.0 alone), through cubins, JIT and cached JIT; the `sm_90a` cubin's Hopper kernel really is
//! WGMMA machine code; a group some arch cannot run fails the build naming the arch and the group;
//! a kernel compiled out for one arch gets an error naming the images that have it.

use std::path::Path;

use archbuild::BuildReport;
use archbuild_arch::CudaVersion;
use archbuild_runtime::driver::Driver;
use archbuild_runtime::jit::JitCache;
use archbuild_runtime::sim::SimDriver;
use archbuild_runtime::{FatBinary, LoadPath, Loader};

const GROUP: &[&str] = &["gemm_hopper", "gemm_mma", "gemm_simt"];

fn build(dir: &Path, archs: &str, group: &[&str]) -> Result<BuildReport, archbuild::Error> {
    let src = archbuild_tests::repo_root().join("examples/variants/kernels/gemm.cu");
    std::fs::create_dir_all(dir.join("kernels")).unwrap();
    std::fs::copy(src, dir.join("kernels/gemm.cu")).unwrap();
    archbuild_tests::build()
        .manifest_dir(dir)
        .cache_dir(dir.join("cache"))
        .out_dir(dir.join("out"))
        .file("kernels/gemm.cu")
        .archs(archs)
        .variants("gemm", group)
        .quiet(true)
        .try_compile("kernels")
}

fn fatbin(r: &BuildReport) -> FatBinary {
    let bytes = std::fs::read(&r.modules[0].fatbin).unwrap();
    FatBinary::from_vec(bytes)
        .unwrap()
        .with_variants(&[("gemm", GROUP)])
}

/// A 7.5 + 8.6 + 9.0 + 10.0 + 12.0 rig whose driver JITs the CUDA 13.5 PTX.
fn rig() -> SimDriver {
    SimDriver::new(CudaVersion::new(13, 5))
        .with_gpu(7, 5)
        .with_gpu(8, 6)
        .with_gpu(9, 0)
        .with_gpu(10, 0)
        .with_gpu(12, 0)
}

#[test]
fn each_gpu_of_a_mixed_rig_runs_the_best_variant_its_image_holds() {
    let dir = tempfile::tempdir().unwrap();
    let r = build(dir.path(), "7.5 8.6+PTX 9.0a", GROUP).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        r.variants[0].to_string(),
        "variants `gemm` (gemm): sm_75 -> gemm_simt, sm_86 -> gemm_mma, compute_86 -> gemm_mma, \
         sm_90a -> gemm_hopper"
    );
    let fb = fatbin(&r);
    let driver = rig();
    let loader = Loader::with_driver(&driver).nvjitlink(None);
    let pre = loader.preflight(&fb).unwrap();
    let text = pre.to_string();
    for want in [
        "gemm -> gemm_simt (in sm_75); gemm_hopper is not in sm_75, only in sm_90a; gemm_mma is \
         not in sm_75, only in sm_86, compute_86, sm_90a",
        "gemm -> gemm_mma (in sm_86); gemm_hopper is not in sm_86, only in sm_90a",
        "gemm -> gemm_hopper (in sm_90a)",
    ] {
        assert!(text.contains(want), "missing `{want}` in:\n{text}");
    }
    // 10.0 and 12.0: from the PTX, which holds no Hopper kernel.
    assert_eq!(
        text.matches("gemm -> gemm_mma (in compute_86); gemm_hopper is not in compute_86")
            .count(),
        2,
        "{text}"
    );
    assert!(pre.all_ok());
    let chosen: Vec<(String, String, String)> = (0..5)
        .map(|gpu| {
            let l = loader.load(&fb, gpu).unwrap();
            assert!(l.report.to_string().contains("variant: gemm -> "));
            (
                l.report.image_target.to_string(),
                l.report.path.to_string(),
                l.variant("gemm").unwrap().to_owned(),
            )
        })
        .collect();
    let row = |t: &str, p: &str, k: &str| (t.to_owned(), p.to_owned(), k.to_owned());
    assert_eq!(
        chosen,
        [
            row("sm_75", "cubin", "gemm_simt"),
            row("sm_86", "cubin", "gemm_mma"),
            row("sm_90a", "cubin", "gemm_hopper"),
            // Not Hopper: the arch-specific cubin does not run there, the Ampere PTX does.
            row("compute_86", "driver JIT", "gemm_mma"),
            row("compute_86", "driver JIT", "gemm_mma"),
        ]
    );
}

#[test]
fn without_the_hopper_image_a_9_0_gpu_runs_mma_through_jit_and_cached_jit() {
    let dir = tempfile::tempdir().unwrap();
    let r = build(dir.path(), "7.5 8.6+PTX", GROUP).unwrap_or_else(|e| panic!("{e}"));
    let fb = fatbin(&r);
    let driver = SimDriver::new(CudaVersion::new(13, 5)).with_gpu(9, 0);
    let cache = JitCache::open(dir.path().join("jit")).unwrap();
    let loader = Loader::with_driver(&driver)
        .nvjitlink(None)
        .cache(Some(cache));
    let first = loader.load(&fb, 0).unwrap();
    assert_eq!(first.report.path, LoadPath::DriverJit);
    assert_eq!(first.variant("gemm").unwrap(), "gemm_mma");
    let second = loader.load(&fb, 0).unwrap();
    assert!(matches!(second.report.path, LoadPath::CachedJit(_)));
    assert_eq!(second.variant("gemm").unwrap(), "gemm_mma");
    assert_eq!(driver.jit_count(), 1);
}

#[test]
fn a_group_with_no_variant_for_a_listed_arch_fails_the_build() {
    let dir = tempfile::tempdir().unwrap();
    let e = build(dir.path(), "7.5 8.6 9.0a", &["gemm_hopper", "gemm_mma"])
        .unwrap_err()
        .to_string();
    insta::assert_snapshot!(e);
}

#[test]
fn a_kernel_compiled_out_for_one_arch_gets_an_error_naming_where_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let r = build(dir.path(), "7.5 8.6+PTX 9.0a", GROUP).unwrap_or_else(|e| panic!("{e}"));
    let fb = fatbin(&r);
    let driver = rig();
    let loader = Loader::with_driver(&driver).nvjitlink(None);
    let on_86 = loader.load(&fb, 1).unwrap();
    on_86.ensure_kernel(&fb, "gemm_mma").unwrap();
    let e = on_86
        .ensure_kernel(&fb, "gemm_hopper")
        .unwrap_err()
        .to_string();
    insta::assert_snapshot!(e);
    let e = loader
        .load(&fb, 0)
        .unwrap()
        .ensure_kernel(&fb, "no_such_kernel")
        .unwrap_err()
        .to_string();
    assert!(e.contains("no image of this fat binary has it"), "{e}");
}

/// The run-time answer that replaces a build-time capability cfg: one fat binary, and per GPU
/// whether the image it loaded has the Hopper kernel (and where it is when not).
#[test]
fn each_gpu_says_whether_its_image_has_a_kernel_and_where_it_is_when_not() {
    let dir = tempfile::tempdir().unwrap();
    let r = build(dir.path(), "7.5 8.6+PTX 9.0a", GROUP).unwrap_or_else(|e| panic!("{e}"));
    let fb = fatbin(&r);
    let driver = rig();
    let loader = Loader::with_driver(&driver).nvjitlink(None);
    let mut seen = Vec::new();
    for ordinal in 0..driver.device_count().unwrap() {
        let loaded = loader.load(&fb, ordinal).unwrap();
        let hopper = loaded.kernel(&fb, "gemm_hopper").unwrap();
        assert!(loaded.kernel(&fb, "gemm_mma").unwrap().is_present() || !hopper.is_present());
        seen.push((
            loaded.report.cc.to_string(),
            hopper.is_present(),
            hopper.to_string(),
        ));
    }
    let on = |cc: &str| seen.iter().find(|(c, ..)| c == cc).unwrap();
    assert!(on("9.0").1, "{seen:?}");
    let (_, present, why) = on("8.6");
    assert!(!present, "{seen:?}");
    assert!(
        why.contains("not in the sm_86 image") && why.contains("sm_90a"),
        "{why}"
    );
    let gone = loader
        .load(&fb, 0)
        .unwrap()
        .kernel(&fb, "no_such_kernel")
        .unwrap();
    assert!(!gone.is_present() && gone.to_string().contains("nor in any other image"));
}

/// `HGMMA` (the machine instruction of `wgmma.mma_async` on f16) in sm_90 SASS: the low 12 bits
/// of each 16-byte instruction are its opcode. Read off nvdisasm 13.5's listing of this kernel,
/// `HGMMA.64x16x16.F32 R24, gdesc[UR8], R24, gsb0 ; /* 0x00200000081879f0 */` (the machine has
/// no nvdisasm: the toolkit archbuild provisions does not include it).
const HGMMA_OPCODE: u64 = 0x9f0;

/// The bytes of section `name` of a 64-bit little-endian ELF file, read from its section headers.
fn elf_section<'a>(elf: &'a [u8], name: &str) -> Option<&'a [u8]> {
    let u16_at = |o: usize| u16::from_le_bytes(elf[o..o + 2].try_into().unwrap()) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(elf[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap()) as usize;
    let (shoff, shentsize, shnum, shstrndx) =
        (u64_at(0x28), u16_at(0x3a), u16_at(0x3c), u16_at(0x3e));
    let header = |i: usize| shoff + i * shentsize;
    let names = u64_at(header(shstrndx) + 0x18);
    (0..shnum).find_map(|i| {
        let h = header(i);
        let start = names + u32_at(h);
        let end = start + elf[start..].iter().position(|&b| b == 0)?;
        (&elf[start..end] == name.as_bytes()).then(|| {
            let (off, size) = (u64_at(h + 0x18), u64_at(h + 0x20));
            &elf[off..off + size]
        })
    })
}

fn hgmma_count(cubin: &[u8], kernel: &str) -> usize {
    let text = elf_section(cubin, &format!(".text.{kernel}"))
        .unwrap_or_else(|| panic!("the cubin has no code for `{kernel}`"));
    text.chunks_exact(16)
        .filter(|i| u64::from_le_bytes(i[..8].try_into().unwrap()) & 0xfff == HGMMA_OPCODE)
        .count()
}

/// The Hopper variant exists to exercise warpgroup MMA: the built `sm_90a` cubin must hold an
/// `HGMMA` in `gemm_hopper` (an `mma.sync` kernel compiles to `HMMA` and fails this), and the
/// WMMA kernel of the same cubin must not (so the opcode check tells the two apart).
#[test]
fn the_hopper_image_runs_wgmma_machine_code() {
    let dir = tempfile::tempdir().unwrap();
    let r = build(dir.path(), "7.5 8.6+PTX 9.0a", GROUP).unwrap_or_else(|e| panic!("{e}"));
    let bytes = std::fs::read(&r.modules[0].fatbin).unwrap();
    let containers = archbuild_fatbin::read_fatbin(&bytes).unwrap();
    let entry = containers
        .iter()
        .flat_map(|c| &c.entries)
        .find(|e| e.target().to_string() == "sm_90a")
        .expect("the fat binary has an sm_90a cubin");
    let cubin = entry.data().unwrap();
    assert!(
        hgmma_count(&cubin, "gemm_hopper") >= 1,
        "gemm_hopper in the sm_90a cubin has no HGMMA (wgmma) instruction"
    );
    assert_eq!(hgmma_count(&cubin, "gemm_mma"), 0);
}
