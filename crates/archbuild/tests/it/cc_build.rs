//! `configure_cc_with_toolkit`: a `cc::Build` gets the same targets as `-gencode` flags and
//! compiles with the toolkit's nvcc as the CUDA driver, with host flags routed through
//! `-Xcompiler` (not handed to nvcc raw).

use archbuild::ArchList;

use crate::support::fake::Fake;
use crate::support::ProcessEnv;

#[test]
fn cc_build_gets_the_same_targets_as_gencode_flags() {
    let f = Fake::new();
    // `configure_cc_with_toolkit` sets `NVCC` for the whole process, where cc-rs reads it.
    let _env = ProcessEnv::lock(&["NVCC"]);
    let list: ArchList = "7.5 8.6 8.9+PTX".parse().unwrap();
    let mut cc = cc::Build::new();
    cc.target("x86_64-unknown-linux-gnu")
        .host("x86_64-unknown-linux-gnu")
        .opt_level(0)
        .cargo_metadata(false);
    archbuild::configure_cc_with_toolkit(&mut cc, &list, &f.toolkit);
    let tool = cc.get_compiler();
    assert_eq!(tool.path(), f.toolkit.nvcc());
    let args: Vec<String> = tool
        .args()
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let gencode: Vec<&String> = args.iter().filter(|a| a.starts_with("-gencode")).collect();
    assert_eq!(
        gencode,
        [
            "-gencode=arch=compute_75,code=sm_75",
            "-gencode=arch=compute_86,code=sm_86",
            "-gencode=arch=compute_89,code=sm_89",
            "-gencode=arch=compute_89,code=compute_89",
        ]
    );
    // cc's CUDA handling is on: it names a host compiler, and gcc-only flags reach it through
    // -Xcompiler, never as bare nvcc arguments (nvcc rejects `-ffunction-sections`).
    assert!(args.iter().any(|a| a.starts_with("-ccbin")), "{args:?}");
    let host_flags: Vec<usize> = (0..args.len())
        .filter(|&i| args[i] == "-ffunction-sections")
        .collect();
    assert!(!host_flags.is_empty(), "{args:?}");
    for i in host_flags {
        assert!(
            i > 0 && args[i - 1] == "-Xcompiler",
            "host flag handed to nvcc raw: {args:?}"
        );
    }
}
