//! LTO-IR entries written by `FatbinWriter::add_ltoir`, against NVIDIA's tools: `cuobjdump`
//! lists them as it lists nvcc's own `-dlto` fat binaries, and nvJitLink (the toolkit's, with
//! `-lto`) links them into the same cubin as nvcc's fat binary. An entry without the options
//! descriptor — what the writer once produced — is refused by `cuobjdump` and crashes nvJitLink.

use std::path::Path;
use std::process::Command;

use archbuild_arch::Target;
use archbuild_fatbin::{cubin::parse_cubin, read_fatbin, EntryKind, FatbinWriter};
use archbuild_runtime::jit::NvJitLink;
use archbuild_tests::{nvcc, run, KERNEL};

/// `cuobjdump -all` lines that describe the entries (not the file name or the option string).
fn described(path: &Path) -> Vec<String> {
    let out = run(Command::new(archbuild_tests::tool("cuobjdump"))
        .arg("-all")
        .arg(path));
    out.lines()
        .map(str::trim)
        .filter(|l| {
            l.starts_with("Fatbin")
                || l.starts_with("arch =")
                || l.starts_with("code version")
                || l.starts_with("host =")
                || l.starts_with("compile_size")
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn our_ltoir_fatbin_is_listed_and_linked_like_nvccs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cu"), KERNEL).unwrap();
    run(nvcc(dir.path()).args(["-dlto", "-ltoir", "-arch=lto_90", "-o", "k.ltoir", "k.cu"]));
    run(nvcc(dir.path()).args([
        "-dlto",
        "-fatbin",
        "-arch=lto_90",
        "-o",
        "nv.fatbin",
        "k.cu",
    ]));
    let ir = std::fs::read(dir.path().join("k.ltoir")).unwrap();
    let sm90 = Target::parse_nvcc_name("sm_90").unwrap().arch;
    let ours = FatbinWriter::new()
        .add_ltoir(&ir, sm90)
        .unwrap()
        .write()
        .unwrap();
    let ours_path = dir.path().join("ours.fatbin");
    std::fs::write(&ours_path, &ours).unwrap();

    // Our reader sees one LTO-IR entry for sm_90 holding exactly the IR.
    let c = read_fatbin(&ours).unwrap();
    let [entry] = &c[0].entries[..] else {
        panic!("one entry: {c:?}")
    };
    assert_eq!((entry.kind, entry.arch), (EntryKind::LtoIr, sm90));

    // cuobjdump accepts it and describes it as nvcc's (code version 1.67 from the IR header);
    // only the compression and the NVVM option string differ.
    let theirs = described(&dir.path().join("nv.fatbin"));
    assert!(
        theirs.iter().any(|l| l == "Fatbin nvvm code:"),
        "{theirs:?}"
    );
    assert_eq!(described(&ours_path), theirs);

    let lib = archbuild_tests::tool("nvcc")
        .parent()
        .and_then(Path::parent)
        .map(|root| root.join("lib/libnvJitLink.so.13"))
        .filter(|p| p.is_file());
    let Some(lib) = lib else {
        return archbuild_tests::servers::skip(
            "the nvJitLink half: the test toolkit has no lib/libnvJitLink.so.13",
        );
    };
    let jit = NvJitLink::open(&lib).unwrap();
    let linked_ours = jit.link_lto_fatbin(&ours, sm90, "ours.fatbin").unwrap();
    let nv = std::fs::read(dir.path().join("nv.fatbin")).unwrap();
    let linked_theirs = jit.link_lto_fatbin(&nv, sm90, "nv.fatbin").unwrap();
    let (a, b) = (
        parse_cubin(&linked_ours.cubin).unwrap(),
        parse_cubin(&linked_theirs.cubin).unwrap(),
    );
    assert_eq!(a.arch, sm90);
    assert_eq!(a.kernels, b.kernels);
    assert!(a.kernels.iter().any(|k| k == "add_one"), "{:?}", a.kernels);
    assert_eq!(
        linked_ours.cubin, linked_theirs.cubin,
        "the same IR links to the same cubin"
    );
}
