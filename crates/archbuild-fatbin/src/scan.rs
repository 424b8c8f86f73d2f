//! Fat binaries embedded as plain bytes: archbuild's generated module puts its fat binary in an
//! executable's or library's read-only data with `include_bytes!`, not in a `.nv_fatbin`
//! section, so nothing but a search of the bytes finds it (`cuobjdump` does not).
//!
//! The file is searched for the container magic (`0xBA55ED50`, little-endian) at any offset,
//! skipping the fat binary sections a host ELF declares (`host::scan_host_elf` reads those);
//! a candidate counts only when its whole container parses and holds at least one entry, so
//! four bytes that happen to match are not reported.

use std::ops::Range;

use object::{Object, ObjectSection};

use crate::host::FATBIN_SECTIONS;
use crate::layout::FATBIN_MAGIC;
use crate::model::Container;
use crate::reader::parse_container;

/// Every fat binary container embedded as bytes in `bytes` (an executable, a library, any
/// file), in file order; offsets are file offsets. Containers inside `.nv_fatbin` /
/// `__nv_relfatbin` sections are not included. A file without any gives an empty list.
pub fn scan_embedded(bytes: &[u8]) -> Vec<Container<'_>> {
    let skip = fatbin_section_ranges(bytes);
    let magic = FATBIN_MAGIC.to_le_bytes();
    let mut found = Vec::new();
    let mut from = 0usize;
    while let Some(hit) = bytes
        .get(from..)
        .and_then(|rest| memchr::memmem::find(rest, &magic))
    {
        let pos = from + hit;
        if let Some(r) = skip.iter().find(|r| r.contains(&pos)) {
            from = r.end;
            continue;
        }
        match parse_container(bytes, pos) {
            Ok(c) if !c.entries.is_empty() => {
                from = pos + c.len.max(1);
                found.push(c);
            }
            _ => from = pos + 1,
        }
    }
    found
}

/// The file ranges of a host ELF's fat binary sections (none for other files).
fn fatbin_section_ranges(bytes: &[u8]) -> Vec<Range<usize>> {
    let Ok(file) = object::File::parse(bytes) else {
        return Vec::new();
    };
    file.sections()
        .filter(|s| s.name().is_ok_and(|n| FATBIN_SECTIONS.contains(&n)))
        .filter_map(|s| {
            let (offset, size) = s.file_range()?;
            let start = usize::try_from(offset).ok()?;
            Some(start..start.checked_add(usize::try_from(size).ok()?)?)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FatbinWriter;
    use archbuild_arch::Arch;

    const PTX: &[u8] = b".version 9.0\n.target sm_86\n.address_size 64\n\n\
                          .visible .entry k()\n{\n\tret;\n}\n";

    #[test]
    fn finds_whole_containers_at_any_offset_and_ignores_lookalikes() {
        let fatbin = FatbinWriter::new()
            .add_ptx(PTX, Arch::plain(8, 6))
            .unwrap()
            .write()
            .unwrap();
        let mut file = b"\x7fELF not really, then a lone magic: ".to_vec();
        file.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
        file.extend_from_slice(b"and an odd offset:");
        let at = file.len();
        file.extend_from_slice(&fatbin);
        // A truncated copy at the end parses as nothing.
        file.extend_from_slice(&fatbin[..fatbin.len() / 2]);
        let found = scan_embedded(&file);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].offset, found[0].len), (at, fatbin.len()));
        assert_eq!(found[0].entries[0].offset, at + 16);
        assert!(scan_embedded(b"").is_empty());
        assert!(scan_embedded(&FATBIN_MAGIC.to_le_bytes()).is_empty());
    }
}
