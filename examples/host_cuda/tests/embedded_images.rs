//! The executable embeds exactly the images of the arch list archbuild resolved: one per
//! target, with both kernels in each — what `cargo archbuild doctor target/…/host_cuda` lists.

use archbuild_fatbin::{read_any, EntryKind};

#[test]
fn executable_embeds_one_image_per_resolved_target() {
    let exe =
        std::fs::read(env!("CARGO_BIN_EXE_host_cuda")).expect("read the host_cuda executable");
    let images = read_any(&exe).expect("the executable has a .nv_fatbin section");
    let mut found: Vec<String> = images
        .iter()
        .filter(|i| i.kernels.iter().any(|k| k == "host_vector_add"))
        .map(|i| match i.kind {
            EntryKind::Ptx => format!("compute_{}", i.arch.sm_name()),
            _ => format!("sm_{}", i.arch.sm_name()),
        })
        .collect();
    found.sort();
    let mut expected: Vec<String> = env!("HOST_CUDA_TARGETS")
        .split(' ')
        .map(str::to_string)
        .collect();
    expected.sort();
    assert_eq!(
        found, expected,
        "images with host_vector_add vs the -gencode targets"
    );
    for i in images
        .iter()
        .filter(|i| i.kernels.iter().any(|k| k == "host_vector_add"))
    {
        assert!(
            i.kernels.iter().any(|k| k == "host_arch_probe"),
            "{:?} lacks host_arch_probe",
            i.location
        );
    }
}
