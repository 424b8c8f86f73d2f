//! Fat binaries embedded in host ELF files (`.o`, executables, shared libraries) built by nvcc.
//!
//! nvcc puts the containers in `.nv_fatbin` (or `__nv_relfatbin` with `-rdc=true`); a linked
//! binary concatenates one container per translation unit plus the device-link one. The wrapper
//! structs in `.nvFatBinSegment` hold virtual addresses that need relocation in a `.o`, so they
//! are not trusted: the section is walked by scanning for the magic at 8-byte steps and jumping
//! over each container found.

use object::{Object, ObjectSection};

use crate::layout::{u32_at, FATBIN_MAGIC};
use crate::model::Container;
use crate::reader::parse_container;
use crate::Error;

/// Sections that hold fat binary containers in host files.
pub(crate) const FATBIN_SECTIONS: [&str; 2] = [".nv_fatbin", "__nv_relfatbin"];

/// The containers of one fat binary section of a host ELF file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbeddedFatbin<'a> {
    /// `.nv_fatbin` or `__nv_relfatbin`.
    pub section: String,
    /// File offset of the section. Container and entry offsets are file offsets too.
    pub section_offset: u64,
    pub containers: Vec<Container<'a>>,
}

/// Finds every container in every fat binary section of a host ELF file. A file without such
/// sections yields an empty list; a malformed container inside one is an error.
pub fn scan_host_elf(bytes: &[u8]) -> Result<Vec<EmbeddedFatbin<'_>>, Error> {
    let file = object::File::parse(bytes).map_err(|e| Error::BadHostElf {
        reason: e.to_string(),
    })?;
    let mut found = Vec::new();
    for section in file.sections() {
        let Ok(name) = section.name() else { continue };
        if !FATBIN_SECTIONS.contains(&name) {
            continue;
        }
        let Some((offset, size)) = section.file_range() else {
            continue;
        };
        let data = usize::try_from(offset)
            .ok()
            .zip(usize::try_from(size).ok())
            .and_then(|(o, s)| bytes.get(o..o.checked_add(s)?))
            .ok_or_else(|| Error::BadHostElf {
                reason: format!(
                    "section `{name}` at {offset}+{size} lies past the end of the file"
                ),
            })?;
        let containers = scan_section(data, offset as usize)?;
        found.push(EmbeddedFatbin {
            section: name.to_string(),
            section_offset: offset,
            containers,
        });
    }
    Ok(found)
}

/// Containers in a section's bytes, found at 8-byte steps; offsets shifted by `base`.
fn scan_section(data: &[u8], base: usize) -> Result<Vec<Container<'_>>, Error> {
    let mut containers = Vec::new();
    let mut pos = 0usize;
    while pos + 16 <= data.len() {
        if u32_at(data, pos, "fat binary section")? != FATBIN_MAGIC {
            pos += 8;
            continue;
        }
        let mut c = parse_container(data, pos).map_err(|e| shift_error(e, base))?;
        pos = crate::layout::pad8(pos + c.len.max(16));
        c.offset += base;
        for e in &mut c.entries {
            e.offset += base;
        }
        for u in &mut c.unknown {
            u.0 += base;
        }
        containers.push(c);
    }
    Ok(containers)
}

/// Makes section-relative offsets in errors file offsets.
fn shift_error(e: Error, base: usize) -> Error {
    match e {
        Error::Truncated {
            what,
            offset,
            need,
            have,
        } => Error::Truncated {
            what,
            offset: offset + base,
            need,
            have,
        },
        Error::BadContainer {
            offset,
            reason,
            hint,
        } => Error::BadContainer {
            offset: offset + base,
            reason,
            hint,
        },
        Error::BadEntry {
            offset,
            reason,
            hint,
        } => Error::BadEntry {
            offset: offset + base,
            reason,
            hint,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_elf_is_an_error_and_padding_is_skipped() {
        assert!(matches!(
            scan_host_elf(b"hello"),
            Err(Error::BadHostElf { .. })
        ));
        let mut sec = vec![0u8; 8];
        sec.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
        sec.extend_from_slice(&1u16.to_le_bytes());
        sec.extend_from_slice(&16u16.to_le_bytes());
        sec.extend_from_slice(&0u64.to_le_bytes());
        sec.extend_from_slice(&[0u8; 4]);
        let c = scan_section(&sec, 100).unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].offset, 108);
        sec[23] = 0x7f; // fat_size past the end
        let e = scan_section(&sec, 100).unwrap_err();
        assert!(matches!(e, Error::Truncated { offset: 124, .. }), "{e}");
    }
}
