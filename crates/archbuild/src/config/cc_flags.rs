//! Giving host-side CUDA code compiled with the `cc` crate the same architectures as the
//! kernels archbuild builds, as nvcc `-gencode` flags.

use archbuild_arch::ArchList;

use crate::toolkit::nvcc::Toolkit;

/// Sets `.cuda(true)` and adds one `-gencode=arch=compute_XY,code=…` flag per target of
/// `archs` (cubin `sm_XY` or PTX `compute_XY`), the flags nvcc needs to embed exactly those
/// images. Use the list a build resolved: `configure_cc(&mut cc, report.arch_list())`.
pub fn configure_cc<'a>(build: &'a mut cc::Build, archs: &ArchList) -> &'a mut cc::Build {
    build.cuda(true);
    for flag in archs.gencode_flags() {
        build.flag(&flag);
    }
    build
}

/// [`configure_cc`], and compile with this toolkit's nvcc.
///
/// With `.cuda(true)` the cc crate takes nvcc only from the `NVCC` variable and treats
/// `.compiler()` as the *host* compiler, so handing nvcc to `.compiler()` would make cc pass
/// raw gcc flags to nvcc ("Unknown option '-ffunction-sections'"). This sets `NVCC` for the
/// build-script process instead; call it before the `cc::Build` is first used, since cc
/// snapshots the environment then.
pub fn configure_cc_with_toolkit<'a>(
    build: &'a mut cc::Build,
    archs: &ArchList,
    toolkit: &Toolkit,
) -> &'a mut cc::Build {
    std::env::set_var("NVCC", toolkit.nvcc());
    configure_cc(build, archs)
}
