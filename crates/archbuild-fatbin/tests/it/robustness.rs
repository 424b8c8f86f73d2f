//! Bounded fuzzing in CI: every reader gets random bytes and mutations of valid fat binaries
//! (stored, zstd, LZ4), cubins, PTX and host objects, and must return without panicking and
//! without any allocation out of proportion to its input. (The cargo-fuzz targets in `fuzz/`
//! do the same for longer; see docs/fatbin.md.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::OnceLock;

use archbuild_fatbin::cubin::parse_cubin;
use archbuild_fatbin::host::scan_host_elf;
use archbuild_fatbin::ptx::parse_ptx;
use archbuild_fatbin::{
    detect, merge, read_any, read_fatbin, Arch, CompressionChoice, Error, FatbinWriter,
};
use proptest::prelude::*;

use crate::support::elf_builder;

/// Records the largest single allocation made by the current thread.
struct Tracking;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = LARGEST.try_with(|m| m.set(m.get().max(layout.size())));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = LARGEST.try_with(|m| m.set(m.get().max(new_size)));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

// The allocator of the whole test binary: the other modules' tests allocate through it too,
// but each on its own thread, so they never move the record of the thread measured here.
#[global_allocator]
static ALLOC: Tracking = Tracking;

fn kernels() -> Vec<String> {
    vec!["add_one".into(), "_Z5scalePffi".into()]
}

fn fatbin(choice: CompressionChoice) -> Vec<u8> {
    let text: Vec<u8> = (0..700u32).flat_map(|i| (i % 37).to_le_bytes()).collect();
    let mut w = FatbinWriter::new();
    w.compression(choice);
    w.add_cubin(
        &elf_builder::cubin(86, 8, false, &kernels(), &text),
        Arch::plain(8, 6),
    )
    .unwrap();
    w.add_cubin(
        &elf_builder::cubin(100, 8, true, &kernels(), &text),
        "sm_100a".parse_arch(),
    )
    .unwrap();
    w.add_ptx(
        &elf_builder::ptx((9, 5), "sm_90", &kernels(), "\tmov.u32 %r1, 1;"),
        Arch::plain(9, 0),
    )
    .unwrap();
    w.write().unwrap()
}

trait ParseArch {
    fn parse_arch(self) -> Arch;
}
impl ParseArch for &str {
    fn parse_arch(self) -> Arch {
        archbuild_fatbin::Target::parse_nvcc_name(self)
            .unwrap()
            .arch
    }
}

/// Valid inputs of every kind the readers take.
fn seeds() -> &'static Vec<Vec<u8>> {
    static SEEDS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let stored = fatbin(CompressionChoice::stored());
        let zstd = fatbin(CompressionChoice::all_zstd());
        let lz4 = fatbin(CompressionChoice::all_lz4());
        let mut two = zstd.clone();
        two.extend_from_slice(&lz4);
        let host = elf_builder::host_object(&[(".nv_fatbin", &two), ("__nv_relfatbin", &stored)]);
        let cubin = elf_builder::cubin(90, 7, true, &kernels(), b"\x01\x02\x03\x04");
        let ptx = elf_builder::ptx((8, 8), "sm_90a", &kernels(), "");
        vec![stored, zstd, lz4, two, host, cubin, ptx]
    })
}

/// Runs every reader over `bytes`, decoding whatever parses.
fn exercise(bytes: &[u8]) {
    let _ = detect(bytes);
    if let Ok(containers) = read_fatbin(bytes) {
        for e in containers.iter().flat_map(|c| &c.entries) {
            let _ = (e.target(), e.ptx_isa());
            if let Ok(data) = e.data() {
                let _ = (parse_cubin(&data), parse_ptx(&data));
            }
        }
    }
    let _ = parse_cubin(bytes);
    let _ = parse_ptx(bytes);
    if let Ok(found) = scan_host_elf(bytes) {
        for e in found
            .iter()
            .flat_map(|f| &f.containers)
            .flat_map(|c| &c.entries)
        {
            let _ = e.data();
        }
    }
    let _ = read_any(bytes);
    let _ = merge(&[bytes]);
    let _ = merge(&[bytes, &seeds()[1]]);
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip(prop::sample::Index, u8),
    Overwrite(prop::sample::Index, u64, u8),
    Truncate(prop::sample::Index),
    Insert(prop::sample::Index, Vec<u8>),
    Remove(prop::sample::Index, u8),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let extreme = prop_oneof![
        Just(0u64),
        Just(1),
        Just(0xffff_ffff),
        Just(0x7fff_ffff),
        Just(u64::MAX),
        Just(1 << 40),
        any::<u64>(),
        0u64..0x4000,
    ];
    prop_oneof![
        (any::<prop::sample::Index>(), 1u8..=255).prop_map(|(i, x)| Mutation::Flip(i, x)),
        (
            any::<prop::sample::Index>(),
            extreme,
            prop::sample::select(&[2u8, 4, 8][..])
        )
            .prop_map(|(i, v, w)| Mutation::Overwrite(i, v, w)),
        any::<prop::sample::Index>().prop_map(Mutation::Truncate),
        (
            any::<prop::sample::Index>(),
            prop::collection::vec(any::<u8>(), 1..24)
        )
            .prop_map(|(i, v)| Mutation::Insert(i, v)),
        (any::<prop::sample::Index>(), 1u8..64).prop_map(|(i, n)| Mutation::Remove(i, n)),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    if bytes.is_empty() {
        return;
    }
    match m {
        Mutation::Flip(i, x) => {
            let at = i.index(bytes.len());
            bytes[at] ^= x;
        }
        Mutation::Overwrite(i, v, w) => {
            // Aligned like header fields, so mutations hit sizes and offsets.
            let at = i.index(bytes.len()) & !(*w as usize - 1);
            let n = (*w as usize).min(bytes.len() - at);
            bytes[at..at + n].copy_from_slice(&v.to_le_bytes()[..n]);
        }
        Mutation::Truncate(i) => bytes.truncate(i.index(bytes.len())),
        Mutation::Insert(i, v) => {
            let at = i.index(bytes.len() + 1);
            bytes.splice(at..at, v.iter().copied());
        }
        Mutation::Remove(i, n) => {
            let at = i.index(bytes.len());
            let end = (at + *n as usize).min(bytes.len());
            bytes.drain(at..end);
        }
    }
}

/// No single allocation may exceed what a few hundred times the input could justify.
fn check_allocation_bound(len: usize) -> Result<(), TestCaseError> {
    let largest = LARGEST.with(|m| m.replace(0));
    let bound = 1024 * len + (16 << 20);
    prop_assert!(
        largest <= bound,
        "allocated {largest} bytes for a {len}-byte input"
    );
    Ok(())
}

/// Starts of each format, so random tails get past the first check.
const PREFIXES: &[&[u8]] = &[
    b"",
    b"\x50\xed\x55\xba\x01\x00\x10\x00",
    b"\x7fELF\x02\x01\x01A\x08",
    b".version 9.5\n.target ",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_valid_inputs_never_panic(
        seed in any::<prop::sample::Index>(),
        mutations in prop::collection::vec(mutation(), 1..5),
    ) {
        let mut bytes = seeds()[seed.index(seeds().len())].clone();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        LARGEST.with(|m| m.set(0));
        exercise(&bytes);
        check_allocation_bound(bytes.len())?;
    }

    #[test]
    fn random_bytes_never_panic(
        prefix in prop::sample::select(PREFIXES),
        tail in prop::collection::vec(any::<u8>(), 0..512),
    ) {
        let mut bytes = prefix.to_vec();
        bytes.extend_from_slice(&tail);
        LARGEST.with(|m| m.set(0));
        exercise(&bytes);
        check_allocation_bound(bytes.len())?;
    }
}

#[test]
fn seeds_are_valid() {
    for (i, s) in seeds().iter().enumerate() {
        let records = read_any(s).unwrap_or_else(|e| panic!("seed {i}: {e}"));
        assert!(!records.is_empty(), "seed {i}");
    }
    assert_eq!(
        read_any(&seeds()[4]).unwrap().len(),
        9,
        "host object: 3 containers of 3 entries"
    );
}

/// A header that claims gigabytes is refused before anything of that size is allocated.
#[test]
fn lying_uncompressed_size_is_refused_without_allocating() {
    for choice in [CompressionChoice::all_zstd(), CompressionChoice::all_lz4()] {
        let mut bytes = fatbin(choice);
        let first = read_fatbin(&bytes).unwrap()[0].entries[0].offset;
        bytes[first + 56..first + 64].copy_from_slice(&(3u64 << 30).to_le_bytes());
        LARGEST.with(|m| m.set(0));
        let containers = read_fatbin(&bytes).unwrap();
        let err = containers[0].entries[0].data().unwrap_err();
        assert!(
            matches!(err, Error::TooLarge { claimed, .. } if claimed == 3 << 30),
            "{err}"
        );
        assert!(
            LARGEST.with(|m| m.get()) < 1 << 20,
            "allocated before refusing"
        );
    }
}
