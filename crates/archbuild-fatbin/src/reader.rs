//! Zero-copy reader for fat binary containers: one or several concatenated containers in a
//! `&[u8]`, every offset and size checked against the input before it is used.

use crate::compress::ptx_text;
use crate::cubin::elf_extent;
use crate::layout::*;
use crate::model::{arch_from_header, Compression, Container, Entry, EntryKind};
use crate::Error;

const HINT_CORRUPT: &str = "the fat binary is corrupt or truncated, rebuild it";

/// Reads every container in `bytes`: one fat binary, or several back to back (as in a linked
/// program's `.nv_fatbin`), separated by at most zero padding.
pub fn read_fatbin(bytes: &[u8]) -> Result<Vec<Container<'_>>, Error> {
    let mut containers = Vec::new();
    let mut pos = 0usize;
    while pos < bytes.len() {
        if containers.is_empty()
            || u32_at(bytes, pos, "container header").ok() == Some(FATBIN_MAGIC)
        {
            let c = parse_container(bytes, pos)?;
            pos = c.offset + c.len;
            containers.push(c);
            continue;
        }
        // Between containers only zero padding to the next 8-byte boundary is allowed.
        let next = pad8(pos + 1).min(bytes.len());
        if bytes[pos..next].iter().any(|&b| b != 0) {
            return Err(Error::BadContainer {
                offset: pos,
                reason: format!("found {} after the last container", hex_head(&bytes[pos..])),
                hint: "expected another container (magic 0xba55ed50) or zero padding; \
                       the file has trailing garbage, rebuild it",
            });
        }
        pos = next;
    }
    if containers.is_empty() {
        return Err(Error::BadContainer {
            offset: 0,
            reason: "the input is empty".into(),
            hint: "pass a fat binary made by `fatbinary`, `nvcc -fatbin` or archbuild",
        });
    }
    Ok(containers)
}

/// Parses the container whose header starts at `offset`.
pub(crate) fn parse_container(bytes: &[u8], offset: usize) -> Result<Container<'_>, Error> {
    let magic = u32_at(bytes, offset, "fat binary container header")?;
    if magic != FATBIN_MAGIC {
        return Err(Error::BadContainer {
            offset,
            reason: format!("magic is {magic:#010x}, not 0xba55ed50"),
            hint: "this is not a fat binary; pass a `.fatbin`, or a cubin/PTX/ELF to `read_any`",
        });
    }
    let version = u16_at(bytes, offset + 4, "fat binary container header")?;
    let header_size = u16_at(bytes, offset + 6, "fat binary container header")? as usize;
    let fat_size = u64_at(bytes, offset + 8, "fat binary container header")?;
    if version != FATBIN_VERSION || header_size < CONTAINER_HEADER {
        return Err(Error::BadContainer {
            offset,
            reason: format!("version {version} with header size {header_size}; only version 1 with header size >= 16 exists"),
            hint: HINT_CORRUPT,
        });
    }
    let start = offset + header_size;
    let body = slice(bytes, start, fat_size, "fat binary container")?;
    let end = start + body.len();
    let mut container = Container {
        offset,
        len: end - offset,
        entries: Vec::new(),
        unknown: Vec::new(),
    };
    let mut pos = start;
    while pos < end {
        // Tolerate zero padding at the end of a container (some tools pad fat_size to 16).
        if bytes[pos..end].iter().all(|&b| b == 0) {
            break;
        }
        let (entry, next) = parse_entry(&bytes[..end], pos)?;
        match entry {
            Ok(e) => container.entries.push(e),
            Err(kind) => container.unknown.push((pos, kind)),
        }
        pos = next;
    }
    Ok(container)
}

/// Parses the entry header at `pos` (bounds: `bytes` ends where the container does). Returns the
/// entry, or `Err(kind)` for a well-formed entry of an unmodelled kind, and the next entry's offset.
#[allow(clippy::type_complexity)]
fn parse_entry(bytes: &[u8], pos: usize) -> Result<(Result<Entry<'_>, u16>, usize), Error> {
    let what = "fat binary entry header";
    slice(bytes, pos, ENTRY_FIXED as u64, what)?;
    let kind_code = u16_at(bytes, pos, what)?;
    let header_size = u32_at(bytes, pos + 4, what)? as usize;
    let padded = u64_at(bytes, pos + 8, what)?;
    let compressed_size = u32_at(bytes, pos + 16, what)? as usize;
    let options_offset = u32_at(bytes, pos + 20, what)? as usize;
    let minor = u16_at(bytes, pos + 24, what)?;
    let major = u16_at(bytes, pos + 26, what)?;
    let sm = u32_at(bytes, pos + 28, what)?;
    let ident_offset = u32_at(bytes, pos + 32, what)? as usize;
    let ident_len = u32_at(bytes, pos + 36, what)? as usize;
    let flags = u64_at(bytes, pos + 40, what)?;
    let reserved = u64_at(bytes, pos + 48, what)?;
    let uncompressed = u64_at(bytes, pos + 56, what)?;
    let bad = |reason: String| Error::BadEntry {
        offset: pos,
        reason,
        hint: HINT_CORRUPT,
    };
    if header_size < ENTRY_FIXED {
        return Err(bad(format!(
            "header size {header_size} is below the fixed 64 bytes"
        )));
    }
    let header = slice(bytes, pos, header_size as u64, what)?;
    let payload_full = slice(bytes, pos + header_size, padded, "fat binary entry payload")?;
    let next = pos + header_size + payload_full.len();

    let kind = match kind_code {
        KIND_PTX => EntryKind::Ptx,
        KIND_ELF => EntryKind::Elf,
        KIND_LTOIR => EntryKind::LtoIr,
        other => return Ok((Err(other), next)),
    };
    // A string inside the variable area: `off..off+len`, with off past the fixed header.
    let area = |off: usize, len: usize, name: &str| -> Result<&[u8], Error> {
        if off < ENTRY_FIXED || off.checked_add(len).is_none_or(|e| e > header_size) {
            return Err(bad(format!(
                "{name} at {off}+{len} lies outside the {header_size}-byte header"
            )));
        }
        Ok(&header[off..off + len])
    };
    let utf8 = |b: &'_ [u8], name: &str| -> Result<(), Error> {
        std::str::from_utf8(b)
            .map(|_| ())
            .map_err(|_| bad(format!("{name} is not UTF-8")))
    };
    let identifier = if ident_offset != 0 {
        let b = area(ident_offset, ident_len, "identifier")?;
        utf8(b, "identifier")?;
        std::str::from_utf8(b).ok()
    } else {
        None
    };
    let (mut options, mut compat) = (None, None);
    if options_offset != 0 {
        let desc = area(options_offset, 8, "options descriptor")?;
        let str_off = u32::from_le_bytes([desc[0], desc[1], desc[2], desc[3]]) as usize;
        let len = u32::from_le_bytes([desc[4], desc[5], desc[6], desc[7]]) as usize;
        if flags & FLAG_COMPAT_COPY != 0 {
            // fatbinary: the options string (NUL-terminated, usually empty) at `str_off`, the
            // `.nv.compat` copy right after its NUL, and `len` is the copy's length.
            let rest = area(
                str_off,
                header_size.saturating_sub(str_off),
                "options string",
            )?;
            let nul = rest
                .iter()
                .position(|&b| b == 0)
                .ok_or_else(|| bad("options string has no terminating NUL".into()))?;
            utf8(&rest[..nul], "options string")?;
            options = std::str::from_utf8(&rest[..nul]).ok();
            compat = Some(area(str_off + nul + 1, len, "`.nv.compat` copy")?);
        } else {
            let b = area(str_off, len, "options string")?;
            utf8(b, "options string")?;
            options = std::str::from_utf8(b).ok();
        }
    }
    let compression = match (flags & FLAG_ZSTD != 0, flags & FLAG_LZ4 != 0) {
        (false, false) => Compression::None,
        (true, false) => Compression::Zstd { level: 0 },
        (false, true) => Compression::Lz4,
        (true, true) => return Err(bad(format!("flags {flags:#x} claim both zstd and lz4"))),
    };
    let (payload, uncompressed_size) = if compression != Compression::None {
        if compressed_size > payload_full.len() {
            return Err(bad(format!(
                "compressed size {compressed_size} exceeds the {}-byte payload",
                payload_full.len()
            )));
        }
        let p = if compressed_size == 0 {
            payload_full
        } else {
            &payload_full[..compressed_size]
        };
        (p, uncompressed)
    } else {
        let p = match kind {
            EntryKind::Ptx => ptx_text(payload_full),
            EntryKind::Elf => match elf_extent(payload_full) {
                Some(n) => &payload_full[..n],
                None => payload_full,
            },
            EntryKind::LtoIr => payload_full,
        };
        (p, p.len() as u64)
    };
    let entry = Entry {
        offset: pos,
        kind,
        arch: arch_from_header(sm, flags),
        version_major: major,
        version_minor: minor,
        flags,
        compression,
        payload,
        uncompressed_size,
        identifier,
        options,
        compat,
        header_reserved: reserved,
    };
    Ok((Ok(entry), next))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_non_fatbin_and_empty() {
        assert!(matches!(read_fatbin(b""), Err(Error::BadContainer { .. })));
        let e = read_fatbin(b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0").unwrap_err();
        assert!(e.to_string().contains("magic is 0x464c457f"), "{e}");
    }

    #[test]
    fn truncated_container_names_offset() {
        let mut b = Vec::new();
        b.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&16u16.to_le_bytes());
        b.extend_from_slice(&(1u64 << 40).to_le_bytes());
        let e = read_fatbin(&b).unwrap_err();
        assert!(matches!(e, Error::Truncated { offset: 16, .. }), "{e}");
    }

    #[test]
    fn empty_container_is_valid() {
        let mut b = Vec::new();
        b.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&16u16.to_le_bytes());
        b.extend_from_slice(&0u64.to_le_bytes());
        let c = read_fatbin(&b).unwrap();
        assert_eq!((c.len(), c[0].len, c[0].entries.len()), (1, 16, 0));
    }
}
