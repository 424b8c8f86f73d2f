//! Property tests of the writer against the readers, on synthetic cubins and PTX shaped like
//! nvcc's: read(write(images)) == images for every compression, the output does not depend on
//! insertion order, and merging shards gives the bytes of writing everything at once.

use archbuild_fatbin::cubin::parse_cubin;
use archbuild_fatbin::ptx::parse_ptx;
use archbuild_fatbin::{
    merge, read_any, read_fatbin, Arch, Compression, CompressionChoice, ComputeCapability,
    EntryKind, FatbinWriter, Variant,
};
use proptest::prelude::*;

use crate::support::elf_builder;

#[derive(Clone, Debug)]
struct Img {
    kind: EntryKind,
    arch: Arch,
    bytes: Vec<u8>,
    kernels: Vec<String>,
}

const SMS: [u32; 9] = [75, 80, 86, 89, 90, 100, 103, 120, 121];

fn arch_strategy() -> impl Strategy<Value = Arch> {
    (prop::sample::select(&SMS[..]), 0u8..3).prop_map(|(sm, v)| {
        let variant = match v {
            1 if sm >= 90 => Variant::Arch,
            2 if sm >= 100 => Variant::Family,
            _ => Variant::Plain,
        };
        Arch::new(ComputeCapability::from_sm(sm), variant)
    })
}

fn kernels_strategy() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec("[a-zA-Z_][a-zA-Z0-9_]{0,12}", 0..4)
}

/// Code bytes: some random, some repetitive, so compression has work to do.
fn text_strategy() -> impl Strategy<Value = Vec<u8>> {
    (prop::collection::vec(any::<u8>(), 0..600), 0usize..4000).prop_map(|(mut v, zeros)| {
        v.extend(std::iter::repeat_n(0x42u8, zeros));
        v
    })
}

fn image_strategy() -> impl Strategy<Value = Img> {
    (
        arch_strategy(),
        kernels_strategy(),
        text_strategy(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(arch, kernels, text, is_ptx, abi7)| {
            if is_ptx {
                let body: String = text
                    .iter()
                    .take(300)
                    .map(|b| format!("\t// {b}\n"))
                    .collect();
                let target = format!("sm_{}", arch.sm_name());
                let bytes = elf_builder::ptx((9, 5), &target, &kernels, &body);
                Img {
                    kind: EntryKind::Ptx,
                    arch,
                    bytes,
                    kernels,
                }
            } else {
                let abi = if abi7 { 7 } else { 8 };
                let a = arch.variant == Variant::Arch;
                let bytes = elf_builder::cubin(arch.cc.sm(), abi, a, &kernels, &text);
                Img {
                    kind: EntryKind::Elf,
                    arch,
                    bytes,
                    kernels,
                }
            }
        })
}

/// Distinct (kind, arch) images: the writer refuses two different images for one slot.
fn images_strategy() -> impl Strategy<Value = Vec<Img>> {
    prop::collection::vec(image_strategy(), 0..8).prop_map(|mut v| {
        let mut seen = std::collections::HashSet::new();
        v.retain(|i| seen.insert((i.kind, i.arch)));
        v
    })
}

fn choice_strategy() -> impl Strategy<Value = CompressionChoice> {
    let c = prop_oneof![
        Just(Compression::None),
        (1i32..6).prop_map(|level| Compression::Zstd { level }),
        Just(Compression::Lz4),
    ];
    (c.clone(), c).prop_map(|(elf, ptx)| CompressionChoice { elf, ptx })
}

fn write(images: &[Img], choice: CompressionChoice) -> Vec<u8> {
    let mut w = FatbinWriter::new();
    w.compression(choice);
    for i in images {
        match i.kind {
            EntryKind::Elf => w.add_cubin(&i.bytes, i.arch).unwrap(),
            EntryKind::Ptx => w.add_ptx(&i.bytes, i.arch).unwrap(),
            EntryKind::LtoIr => w.add_ltoir(&i.bytes, i.arch).unwrap(),
        };
    }
    w.write().unwrap()
}

/// Zero-based compression names compared as the reader reports them (zstd level unknown).
fn as_read(c: Compression) -> Compression {
    match c {
        Compression::Zstd { .. } => Compression::Zstd { level: 0 },
        other => other,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn read_of_write_gives_back_the_images(images in images_strategy(), choice in choice_strategy()) {
        let bytes = write(&images, choice);
        let containers = read_fatbin(&bytes).unwrap();
        prop_assert_eq!(containers.len(), 1);
        prop_assert_eq!(containers[0].len, bytes.len());
        let entries = &containers[0].entries;
        let mut expected = images.clone();
        expected.sort_by_key(|i| (i.arch, i.kind));
        prop_assert_eq!(entries.len(), expected.len());
        for (e, i) in entries.iter().zip(&expected) {
            prop_assert_eq!((e.kind, e.arch), (i.kind, i.arch));
            prop_assert_eq!(e.compression, as_read(choice.for_kind(i.kind)));
            prop_assert_eq!(&e.data().unwrap()[..], &i.bytes[..]);
            prop_assert_eq!(e.uncompressed_size as usize, i.bytes.len() + usize::from(e.kind == EntryKind::Ptx && e.compression != Compression::None));
            match e.kind {
                EntryKind::Ptx => {
                    prop_assert_eq!(e.options, Some(""), "PTX entries always carry the options descriptor");
                    prop_assert_eq!(parse_ptx(&e.data().unwrap()).unwrap().entries, i.kernels.clone());
                }
                EntryKind::Elf => {
                    let info = parse_cubin(&e.data().unwrap()).unwrap();
                    prop_assert_eq!(&info.kernels, &i.kernels);
                    prop_assert_eq!(e.compat.is_some(), i.arch.cc.sm() >= 100);
                    prop_assert_eq!(e.flags & 0x100_0000 != 0, i.arch.cc.sm() >= 100);
                }
                EntryKind::LtoIr => {}
            }
        }
        // The uniform listing agrees.
        let records = read_any(&bytes).unwrap();
        prop_assert_eq!(records.len(), expected.len());
        for (r, i) in records.iter().zip(&expected) {
            prop_assert_eq!((r.kind, r.arch, r.size), (i.kind, i.arch, i.bytes.len()));
            prop_assert_eq!(&r.kernels, &i.kernels);
        }
    }

    #[test]
    fn output_is_canonical_and_merge_of_shards_equals_write_of_all(
        images in images_strategy(),
        choice in choice_strategy(),
        split in any::<prop::sample::Index>(),
        dup in any::<bool>(),
    ) {
        let all = write(&images, choice);
        let mut reversed = images.clone();
        reversed.reverse();
        prop_assert_eq!(&write(&reversed, choice), &all, "insertion order changed the bytes");
        let cut = if images.is_empty() { 0 } else { split.index(images.len() + 1) };
        let (a, b) = images.split_at(cut);
        let mut b = b.to_vec();
        if dup && !a.is_empty() {
            b.push(a[0].clone()); // an identical duplicate across shards collapses
        }
        let merged = merge(&[&write(a, choice), &write(&b, choice)]).unwrap();
        prop_assert_eq!(merged, all);
    }
}

#[test]
fn family_cubin_is_written_with_the_f_flag() {
    let cubin = elf_builder::cubin(100, 8, false, &["k".into()], b"code");
    let f = Arch::new(ComputeCapability::new(10, 0), Variant::Family);
    let bytes = FatbinWriter::new()
        .add_cubin(&cubin, f)
        .unwrap()
        .write()
        .unwrap();
    let e = &read_fatbin(&bytes).unwrap()[0].entries[0];
    assert_eq!(e.arch, f);
    assert_eq!(e.flags, 0x120_0011);
    assert_eq!(e.target().to_string(), "sm_100f");
    assert_eq!(
        parse_cubin(&cubin).unwrap().arch,
        Arch::plain(10, 0),
        "f is invisible in a cubin"
    );
}

#[test]
fn abi7_and_abi8_cubins_give_the_same_target() {
    for (sm, a) in [
        (75, false),
        (86, false),
        (90, true),
        (90, false),
        (120, true),
    ] {
        let v7 = parse_cubin(&elf_builder::cubin(sm, 7, a, &[], b"")).unwrap();
        let v8 = parse_cubin(&elf_builder::cubin(sm, 8, a, &[], b"")).unwrap();
        assert_eq!(v7.arch, v8.arch, "sm_{sm}");
        assert_eq!((v7.abi_version, v8.abi_version), (7, 8));
        assert_eq!(v8.arch.cc.sm(), sm);
        assert_eq!(v8.arch.variant == Variant::Arch, a);
    }
}

#[test]
fn ptx_entry_header_matches_fatbinary_layout() {
    // fatbinary: PTX header 80 bytes, options descriptor at 64 = {72, 0}, 8 zero bytes.
    let ptx = elf_builder::ptx((9, 5), "sm_89", &["k".into()], "");
    let bytes = FatbinWriter::new()
        .compression(CompressionChoice::stored())
        .add_ptx(&ptx, Arch::plain(8, 9))
        .unwrap()
        .write()
        .unwrap();
    let h = &bytes[16..16 + 80];
    assert_eq!(&h[0..8], &[1, 0, 1, 1, 80, 0, 0, 0]);
    assert_eq!(
        u64::from_le_bytes(h[8..16].try_into().unwrap()) as usize,
        (ptx.len() + 1).div_ceil(8) * 8
    );
    assert_eq!(&h[20..32], &[64, 0, 0, 0, 5, 0, 9, 0, 89, 0, 0, 0]);
    assert_eq!(u64::from_le_bytes(h[40..48].try_into().unwrap()), 0x11);
    assert_eq!(
        &h[64..80],
        &[72, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(&bytes[96..96 + ptx.len()], &ptx[..]);
    assert_eq!(bytes[96 + ptx.len()], 0, "PTX payload is NUL-terminated");
}

#[test]
fn a_fat_binary_embedded_as_bytes_in_a_host_elf_is_listed_with_its_offset() {
    // archbuild's generated module: `include_bytes!` puts the fat binary in `.rodata`.
    let mut w = FatbinWriter::new();
    w.compression(CompressionChoice::all_zstd());
    for (sm, abi) in [(75, 8), (86, 7)] {
        let cubin = elf_builder::cubin(sm, abi, false, &["k".into()], b"code");
        w.add_cubin(
            &cubin,
            Arch::new(ComputeCapability::from_sm(sm), Variant::Plain),
        )
        .unwrap();
    }
    let fatbin = w.write().unwrap();
    let mut rodata = b"some string constants\0".to_vec();
    let before = rodata.len();
    rodata.extend_from_slice(&fatbin);
    let host = elf_builder::elf(
        62,
        0,
        0,
        0,
        vec![elf_builder::Section::progbits(".rodata", &rodata)],
    );
    let at = archbuild_fatbin::scan_embedded(&host)[0].offset;
    assert_eq!(&host[at..at + fatbin.len()], &fatbin[..]);
    assert!(at >= before);
    let records = archbuild_fatbin::read_any(&host).unwrap();
    let listed: Vec<_> = records
        .iter()
        .map(|r| (r.arch.cc.sm(), r.location.clone(), r.kernels.clone()))
        .collect();
    assert_eq!(
        listed,
        [
            (
                75,
                format!("embedded at {at:#x} entry 0"),
                vec!["k".to_owned()]
            ),
            (
                86,
                format!("embedded at {at:#x} entry 1"),
                vec!["k".to_owned()]
            ),
        ]
    );
    let modules = archbuild_fatbin::loadable_modules(&host).unwrap();
    assert_eq!(modules.len(), 1);
    assert_eq!(modules[0].location, format!("embedded at {at:#x}"));
    assert_eq!(modules[0].bytes, fatbin);
    // The cubins' ELF ABI versions survive compression (read from the entry header).
    let c = read_fatbin(&modules[0].bytes).unwrap();
    let abis: Vec<_> = c[0].entries.iter().map(|e| e.elf_abi_version()).collect();
    assert_eq!(abis, [Some(8), Some(7)]);
}
