//! The writer refuses what it must not pack, and every error names what was wrong, where, and
//! the fix. Messages are snapshotted (insta) so changes to them are reviewed.

use archbuild_fatbin::{
    merge, merge_named, read_any, read_fatbin, Arch, CompressionChoice, Error, FatbinWriter, Target,
};
use insta::assert_snapshot;

use crate::support::elf_builder;

fn arch(name: &str) -> Arch {
    Target::parse_nvcc_name(name).unwrap().arch
}

fn kernels() -> Vec<String> {
    vec!["k".into()]
}

#[test]
fn cubin_for_another_arch_is_refused() {
    let sm86 = elf_builder::cubin(86, 8, false, &kernels(), b"x");
    let err = FatbinWriter::new()
        .add_cubin(&sm86, arch("sm_89"))
        .map(|_| ())
        .unwrap_err();
    assert!(matches!(err, Error::ArchMismatch { .. }));
    assert_snapshot!("cubin_arch_mismatch", err);
}

#[test]
fn a_and_plain_cubins_must_be_declared_as_such() {
    let sm90a = elf_builder::cubin(90, 8, true, &kernels(), b"x");
    let sm90 = elf_builder::cubin(90, 8, false, &kernels(), b"x");
    let err = FatbinWriter::new()
        .add_cubin(&sm90a, arch("sm_90"))
        .map(|_| ())
        .unwrap_err();
    assert_snapshot!("cubin_a_declared_plain", err);
    let err = FatbinWriter::new()
        .add_cubin(&sm90, arch("sm_90a"))
        .map(|_| ())
        .unwrap_err();
    assert_snapshot!("cubin_plain_declared_a", err);
    assert!(FatbinWriter::new()
        .add_cubin(&sm90a, arch("sm_90a"))
        .is_ok());
}

#[test]
fn cubin_with_trailing_bytes_is_refused() {
    let mut c = elf_builder::cubin(75, 8, false, &kernels(), b"x");
    c.extend_from_slice(b"junk");
    let err = FatbinWriter::new()
        .add_cubin(&c, arch("sm_75"))
        .map(|_| ())
        .unwrap_err();
    assert_snapshot!("cubin_trailing_bytes", err);
}

#[test]
fn host_elf_is_not_a_cubin() {
    let host = elf_builder::host_object(&[(".text", b"\x90")]);
    let err = FatbinWriter::new()
        .add_cubin(&host, arch("sm_75"))
        .map(|_| ())
        .unwrap_err();
    assert_snapshot!("cubin_is_host_elf", err);
}

#[test]
fn ptx_target_and_directives_are_checked() {
    let ptx = elf_builder::ptx((9, 5), "sm_90a", &kernels(), "");
    let err = FatbinWriter::new()
        .add_ptx(&ptx, arch("compute_90"))
        .map(|_| ())
        .unwrap_err();
    assert_snapshot!("ptx_target_mismatch", err);
    let err = FatbinWriter::new()
        .add_ptx(b".target sm_90\n", arch("compute_90"))
        .map(|_| ())
        .unwrap_err();
    assert_snapshot!("ptx_without_version", err);
    let err = FatbinWriter::new()
        .add_ptx(b".version 9.5\n.address_size 64\n", arch("compute_90"))
        .map(|_| ())
        .unwrap_err();
    assert_snapshot!("ptx_without_target", err);
    let mut nul = ptx.clone();
    nul.insert(20, 0);
    let err = FatbinWriter::new()
        .add_ptx(&nul, arch("compute_90a"))
        .map(|_| ())
        .unwrap_err();
    assert_snapshot!("ptx_interior_nul", err);
    // A trailing NUL (as nvFatbinAddPTX takes it) is fine.
    let mut terminated = ptx.clone();
    terminated.push(0);
    assert!(FatbinWriter::new()
        .add_ptx(&terminated, arch("compute_90a"))
        .is_ok());
}

#[test]
fn conflicting_images_are_refused_identical_ones_collapse() {
    let a = elf_builder::cubin(86, 8, false, &kernels(), b"one");
    let b = elf_builder::cubin(86, 8, false, &kernels(), b"two");
    let mut w = FatbinWriter::new();
    w.add_cubin(&a, arch("sm_86")).unwrap();
    w.add_cubin(&a, arch("sm_86")).unwrap();
    let err = w.add_cubin(&b, arch("sm_86")).map(|_| ()).unwrap_err();
    assert_snapshot!("writer_conflict", err);
    assert_eq!(
        read_fatbin(&w.write().unwrap()).unwrap()[0].entries.len(),
        1
    );
}

#[test]
fn merge_names_both_conflicting_entries() {
    let write = |text: &[u8], choice| {
        let c = elf_builder::cubin(86, 8, false, &kernels(), text);
        FatbinWriter::new()
            .compression(choice)
            .add_cubin(&c, arch("sm_86"))
            .unwrap()
            .write()
            .unwrap()
    };
    let one = write(b"one", CompressionChoice::stored());
    let two = write(b"two", CompressionChoice::stored());
    let err = merge(&[&one, &two]).unwrap_err();
    assert!(matches!(err, Error::Conflict { .. }));
    assert_snapshot!("merge_conflict", err);
    // The same image stored differently is the same image: the first one is kept.
    let zstd = write(b"one", CompressionChoice::all_zstd());
    assert_eq!(merge(&[&one, &zstd]).unwrap(), one);
}

/// Errors of a merge name the inputs as the caller names them (a CLI, by their files), in the
/// error's fields rather than by rewriting its text.
#[test]
fn merge_errors_name_the_inputs_as_given() {
    let c = |text: &[u8]| elf_builder::cubin(86, 8, false, &kernels(), text);
    let write = |cubin: &[u8]| {
        FatbinWriter::new()
            .add_cubin(cubin, arch("sm_86"))
            .unwrap()
            .write()
            .unwrap()
    };
    let (one, two) = (write(&c(b"one")), write(&c(b"two")));
    let err = merge_named(&[("`a.fatbin`", &one), ("`b.fatbin`", &two)]).unwrap_err();
    let Error::Conflict { first, second, .. } = &err else {
        panic!("{err:?}");
    };
    assert!(first.starts_with("`a.fatbin` container 0") && second.starts_with("`b.fatbin` "));

    // A `fatbinary --concat` group (entry kind 0x100) cannot be carried into a merge.
    let mut group = one.clone();
    group[16..18].copy_from_slice(&0x100u16.to_le_bytes());
    let err = merge(&[&two, &group]).unwrap_err();
    assert!(
        matches!(
            err,
            Error::MergeUnknownKind { ref input, offset: 16, kind: 0x100 } if input == "input 1"
        ),
        "{err:?}"
    );
    assert_snapshot!("merge_unknown_kind", err);
    let err = merge_named(&[("`a.fatbin`", &two), ("`g.fatbin`", &group)]).unwrap_err();
    assert!(
        err.to_string().starts_with("cannot merge `g.fatbin`: "),
        "{err}"
    );
}

#[test]
fn corrupt_containers_name_the_offset() {
    let c = elf_builder::cubin(86, 8, false, &kernels(), b"one");
    let good = FatbinWriter::new()
        .add_cubin(&c, arch("sm_86"))
        .unwrap()
        .write()
        .unwrap();
    assert_snapshot!(
        "truncated",
        read_fatbin(&good[..good.len() - 9]).unwrap_err()
    );
    let mut bad_header = good.clone();
    bad_header[16 + 4..16 + 8].copy_from_slice(&8u32.to_le_bytes());
    assert_snapshot!(
        "entry_header_too_small",
        read_fatbin(&bad_header).unwrap_err()
    );
    let mut garbage = good.clone();
    garbage.extend_from_slice(b"GARBAGE!");
    assert_snapshot!("trailing_garbage", read_fatbin(&garbage).unwrap_err());
    let mut zstd = FatbinWriter::new()
        .compression(CompressionChoice::all_zstd())
        .add_cubin(&c, arch("sm_86"))
        .unwrap()
        .write()
        .unwrap();
    let n = zstd.len();
    zstd[n - 16..n - 8].copy_from_slice(b"\xde\xad\xbe\xef\xde\xad\xbe\xef");
    let containers = read_fatbin(&zstd).unwrap();
    let err = containers[0].entries[0].data().unwrap_err();
    assert!(matches!(err, Error::Decompress { offset: 16, .. }), "{err}");
}

#[test]
fn unknown_files_and_compressions_list_what_is_accepted() {
    assert_snapshot!(
        "unknown_format",
        read_any(b"MZ\x90\x00\x03\x00\x00\x00").unwrap_err()
    );
    assert_snapshot!(
        "unknown_compression",
        "fast".parse::<CompressionChoice>().unwrap_err()
    );
}

/// A host object is split as the CUDA runtime loads it: the executable `.nv_fatbin`'s
/// containers only, named by section; one with no fat binary has no images.
#[test]
fn loadable_modules_of_a_host_object() {
    use archbuild_fatbin::loadable_modules;
    let fatbin = |text: &[u8]| {
        let c = elf_builder::cubin(86, 8, false, &kernels(), text);
        FatbinWriter::new()
            .add_cubin(&c, arch("sm_86"))
            .unwrap()
            .write()
            .unwrap()
    };
    let (a, b) = (fatbin(b"one"), fatbin(b"two"));
    let mut two = a.clone();
    two.extend_from_slice(&b);
    let host = elf_builder::host_object(&[(".nv_fatbin", &two), ("__nv_relfatbin", &a)]);
    let m = loadable_modules(&host).unwrap();
    let got: Vec<_> = m
        .iter()
        .map(|m| (m.location.as_str(), m.has_kernels))
        .collect();
    assert_eq!(
        got,
        [
            (".nv_fatbin container 0", true),
            (".nv_fatbin container 1", true)
        ]
    );
    assert_eq!((&m[0].bytes, &m[1].bytes), (&a, &b));
    let rel_only = elf_builder::host_object(&[("__nv_relfatbin", &a)]);
    let m = loadable_modules(&rel_only).unwrap();
    assert_eq!(m[0].location, "__nv_relfatbin container 0");
    let none = elf_builder::host_object(&[(".text", b"\x90")]);
    assert!(matches!(loadable_modules(&none), Err(Error::NoImages)));
}
