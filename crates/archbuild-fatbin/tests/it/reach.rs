//! What a listing reads of a host ELF: `Detail::Sections` (cuobjdump's reach) lists only the
//! fat binary sections when there are any, and the search of the other bytes is as fast as
//! memory.

use std::time::Instant;

use archbuild_fatbin::{read_any_with, scan_embedded, Arch, Detail, FatbinWriter};

use crate::support::elf_builder;

fn ptx_fatbin(sm: u32, kernel: &str) -> Vec<u8> {
    let text = elf_builder::ptx((9, 0), &format!("sm_{sm}"), &[kernel.to_owned()], "");
    FatbinWriter::new()
        .add_ptx(&text, Arch::plain(sm / 10, sm % 10))
        .unwrap()
        .write()
        .unwrap()
}

#[test]
fn sections_reach_lists_what_cuobjdump_lists_and_the_scan_only_without_sections() {
    let in_section = ptx_fatbin(86, "listed");
    // A library's data: an LTO-IR-like container that cuobjdump does not list.
    let in_data = ptx_fatbin(90, "unlisted");
    let host = elf_builder::host_object(&[(".nv_fatbin", &in_section), (".rodata", &in_data)]);
    let targets = |d: Detail| -> Vec<String> {
        read_any_with(&host, d)
            .unwrap()
            .iter()
            .map(|r| format!("{} {}", r.arch, r.location))
            .collect()
    };
    let sections = targets(Detail::Sections);
    assert_eq!(sections.len(), 1, "{sections:?}");
    assert!(sections[0].contains(".nv_fatbin"), "{sections:?}");
    assert_eq!(targets(Detail::Headers).len(), 2);
    // Without a fat binary section, the bytes are searched as before.
    let bare = elf_builder::host_object(&[(".rodata", &in_data)]);
    let found = read_any_with(&bare, Detail::Sections).unwrap();
    assert_eq!(found.len(), 1);
    assert!(found[0].location.starts_with("embedded at"), "{found:?}");
}

/// Not a timed assertion: prints the scan's rate over 256 MiB with 16 384 embedded containers
/// (libcufft's shape), for `docs/inspect.md`'s figure; run with `--nocapture`.
#[test]
fn the_scan_of_a_large_file_reports_its_rate() {
    let one = ptx_fatbin(90, "k");
    let mut bytes = vec![0u8; 256 << 20];
    let stride = bytes.len() / 16_384;
    for i in 0..16_384 {
        let at = i * stride;
        bytes[at..at + one.len()].copy_from_slice(&one);
    }
    let start = Instant::now();
    let found = scan_embedded(&bytes);
    let took = start.elapsed();
    assert_eq!(found.len(), 16_384);
    println!(
        "scan_embedded: 256 MiB, {} containers in {:.3} s ({:.1} GiB/s)",
        found.len(),
        took.as_secs_f64(),
        0.25 / took.as_secs_f64()
    );
}
