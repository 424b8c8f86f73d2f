//! `__CUDA_ARCH_LIST__` as nvcc defines it: the whole list in every device pass. CUB mangles it
//! into its kernels' inline namespace (`cub::_V_300500_SM_750_800`), so with one-arch passes the
//! same kernel would have another name in every image and the coverage check would raise false
//! gaps. With the real toolkit: a CUB kernel and a `k<__CUDA_ARCH_LIST__>` instance have the same
//! names in every image, and a source that never names the macro still recompiles only the
//! added arch.

use std::collections::BTreeSet;
use std::path::Path;

use archbuild::BuildReport;
use archbuild_tests::fixtures_dir;

fn build(dir: &Path, file: &str, archs: &str) -> BuildReport {
    archbuild_tests::build()
        .manifest_dir(dir)
        .cache_dir(dir.join("cache"))
        .out_dir(dir.join("out"))
        .file(file)
        .archs(archs)
        .quiet(true)
        .try_compile("kernels")
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn cub_and_arch_list_kernels_have_one_name_in_every_image() {
    let dir = tempfile::tempdir().unwrap();
    let src = fixtures_dir().join("arch_list/cub_reduce.cu");
    std::fs::copy(src, dir.path().join("cub_reduce.cu")).unwrap();
    let r = build(dir.path(), "cub_reduce.cu", "7.5 8.0+PTX");
    let bytes = std::fs::read(&r.modules[0].fatbin).unwrap();
    let images = archbuild_fatbin::read_any(&bytes).unwrap();
    assert_eq!(images.len(), 3);
    let sets: Vec<BTreeSet<&str>> = images
        .iter()
        .map(|i| i.kernels.iter().map(String::as_str).collect())
        .collect();
    assert!(
        sets.windows(2).all(|w| w[0] == w[1]),
        "kernel names differ between images: {sets:#?}"
    );
    // `k<__CUDA_ARCH_LIST__>` is `k<750, 800>` in every image: _Z1kIJLi750ELi800EEEvPi.
    assert!(sets[0].contains("_Z1kIJLi750ELi800EEEvPi"), "{:?}", sets[0]);
    assert!(sets[0].contains("_Z6reducePKfPf"), "{:?}", sets[0]);
    // CUB's DeviceReduce kernels, named after the whole list in every image.
    let cub: Vec<&&str> = sets[0]
        .iter()
        .filter(|k| k.contains("_SM_750_800"))
        .collect();
    assert!(
        cub.len() >= 2,
        "no CUB kernels named for 750,800: {:?}",
        sets[0]
    );
    // Every target holds every kernel: no coverage gap.
    let all: BTreeSet<&str> = sets.iter().flatten().copied().collect();
    for (t, ks) in &r.modules[0].target_kernels {
        assert_eq!(ks.len(), all.len(), "{t} misses kernels");
    }
}

#[test]
fn adding_an_arch_recompiles_all_only_for_sources_that_name_the_list() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = fixtures_dir().join("downstream/kernels");
    for f in ["add.cu", "common.cuh"] {
        std::fs::copy(fixture.join(f), dir.path().join(f)).unwrap();
    }
    std::fs::write(
        dir.path().join("list.cu"),
        "template <int... A> __global__ void k(int *o) { int v[] = {A...}; o[0] = v[0]; }\n\
         template __global__ void k<__CUDA_ARCH_LIST__>(int *);\n",
    )
    .unwrap();
    build(dir.path(), "add.cu", "7.5 8.6");
    let plain = build(dir.path(), "add.cu", "7.5 8.6 8.9");
    assert_eq!(
        plain.ran(),
        [
            ("add".into(), "compute_89".into()),
            ("add".into(), "sm_89".into())
        ]
    );
    build(dir.path(), "list.cu", "7.5 8.6");
    let named = build(dir.path(), "list.cu", "7.5 8.6 8.9");
    assert_eq!(named.jobs_run, 6, "every pass sees a new list: {named}");
}
