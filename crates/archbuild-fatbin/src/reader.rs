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
        let Parsed { found, next } = parse_entry(&bytes[..end], pos)?;
        match found {
            Found::Entry(e) => container.entries.push(e),
            Found::Unknown(kind) => container.unknown.push((pos, kind)),
        }
        pos = next;
    }
    Ok(container)
}

/// What [`parse_entry`] found at an offset.
enum Found<'a> {
    /// An entry of a modelled kind.
    Entry(Entry<'a>),
    /// A well-formed entry of an unmodelled kind (its kind code).
    Unknown(u16),
}

/// One parsed entry and where the next one starts.
struct Parsed<'a> {
    found: Found<'a>,
    next: usize,
}

/// The fixed 64 bytes of an entry header, as the file says (nothing checked yet but that they
/// are there).
struct Fixed {
    kind_code: u16,
    header_size: usize,
    padded: u64,
    compressed_size: usize,
    options_offset: usize,
    minor: u16,
    major: u16,
    sm: u32,
    ident_offset: usize,
    ident_len: usize,
    flags: u64,
    reserved: u64,
    uncompressed: u64,
}

impl Fixed {
    fn read(bytes: &[u8], pos: usize) -> Result<Self, Error> {
        let what = "fat binary entry header";
        slice(bytes, pos, ENTRY_FIXED as u64, what)?;
        Ok(Fixed {
            kind_code: u16_at(bytes, pos, what)?,
            header_size: u32_at(bytes, pos + 4, what)? as usize,
            padded: u64_at(bytes, pos + 8, what)?,
            compressed_size: u32_at(bytes, pos + 16, what)? as usize,
            options_offset: u32_at(bytes, pos + 20, what)? as usize,
            minor: u16_at(bytes, pos + 24, what)?,
            major: u16_at(bytes, pos + 26, what)?,
            sm: u32_at(bytes, pos + 28, what)?,
            ident_offset: u32_at(bytes, pos + 32, what)? as usize,
            ident_len: u32_at(bytes, pos + 36, what)? as usize,
            flags: u64_at(bytes, pos + 40, what)?,
            reserved: u64_at(bytes, pos + 48, what)?,
            uncompressed: u64_at(bytes, pos + 56, what)?,
        })
    }
}

/// A whole entry header (fixed part and variable area), for reading the strings it holds.
struct Header<'a> {
    /// The entry's offset, which errors name.
    pos: usize,
    bytes: &'a [u8],
}

impl<'a> Header<'a> {
    fn bad(&self, reason: String) -> Error {
        Error::BadEntry {
            offset: self.pos,
            reason,
            hint: HINT_CORRUPT,
        }
    }

    /// A string inside the variable area: `off..off+len`, with off past the fixed header.
    fn area(&self, off: usize, len: usize, name: &str) -> Result<&'a [u8], Error> {
        let size = self.bytes.len();
        if off < ENTRY_FIXED || off.checked_add(len).is_none_or(|e| e > size) {
            return Err(self.bad(format!(
                "{name} at {off}+{len} lies outside the {size}-byte header"
            )));
        }
        Ok(&self.bytes[off..off + len])
    }

    fn utf8(&self, b: &'a [u8], name: &str) -> Result<&'a str, Error> {
        std::str::from_utf8(b).map_err(|_| self.bad(format!("{name} is not UTF-8")))
    }

    fn identifier(&self, f: &Fixed) -> Result<Option<&'a str>, Error> {
        if f.ident_offset == 0 {
            return Ok(None);
        }
        let b = self.area(f.ident_offset, f.ident_len, "identifier")?;
        self.utf8(b, "identifier").map(Some)
    }

    /// The options string and the `.nv.compat` copy, when the header has them.
    fn options(&self, f: &Fixed) -> Result<(Option<&'a str>, Option<&'a [u8]>), Error> {
        if f.options_offset == 0 {
            return Ok((None, None));
        }
        let desc = self.area(f.options_offset, 8, "options descriptor")?;
        let str_off = u32::from_le_bytes([desc[0], desc[1], desc[2], desc[3]]) as usize;
        let len = u32::from_le_bytes([desc[4], desc[5], desc[6], desc[7]]) as usize;
        if f.flags & FLAG_COMPAT_COPY == 0 {
            let b = self.area(str_off, len, "options string")?;
            return Ok((Some(self.utf8(b, "options string")?), None));
        }
        // fatbinary: the options string (NUL-terminated, usually empty) at `str_off`, the
        // `.nv.compat` copy right after its NUL, and `len` is the copy's length.
        let rest = self.area(
            str_off,
            self.bytes.len().saturating_sub(str_off),
            "options string",
        )?;
        let nul = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| self.bad("options string has no terminating NUL".into()))?;
        let options = self.utf8(&rest[..nul], "options string")?;
        let compat = self.area(str_off + nul + 1, len, "`.nv.compat` copy")?;
        Ok((Some(options), Some(compat)))
    }

    fn compression(&self, flags: u64) -> Result<Compression, Error> {
        Ok(match (flags & FLAG_ZSTD != 0, flags & FLAG_LZ4 != 0) {
            (false, false) => Compression::None,
            (true, false) => Compression::Zstd { level: 0 },
            (false, true) => Compression::Lz4,
            (true, true) => {
                return Err(self.bad(format!("flags {flags:#x} claim both zstd and lz4")))
            }
        })
    }

    /// The payload proper and its uncompressed size: a compressed payload is cut to its
    /// compressed size; an uncompressed one to its content (PTX text, the ELF's extent).
    fn payload(
        &self,
        f: &Fixed,
        kind: EntryKind,
        compression: Compression,
        padded: &'a [u8],
    ) -> Result<(&'a [u8], u64), Error> {
        if compression != Compression::None {
            if f.compressed_size > padded.len() {
                return Err(self.bad(format!(
                    "compressed size {} exceeds the {}-byte payload",
                    f.compressed_size,
                    padded.len()
                )));
            }
            let p = if f.compressed_size == 0 {
                padded
            } else {
                &padded[..f.compressed_size]
            };
            return Ok((p, f.uncompressed));
        }
        let p = match kind {
            EntryKind::Ptx => ptx_text(padded),
            EntryKind::Elf => elf_extent(padded).map_or(padded, |n| &padded[..n]),
            EntryKind::LtoIr => padded,
        };
        Ok((p, p.len() as u64))
    }
}

/// Parses the entry header at `pos` (bounds: `bytes` ends where the container does): the entry,
/// or the kind of a well-formed entry of an unmodelled kind, and the next entry's offset.
fn parse_entry(bytes: &[u8], pos: usize) -> Result<Parsed<'_>, Error> {
    let f = Fixed::read(bytes, pos)?;
    if f.header_size < ENTRY_FIXED {
        return Err(Error::BadEntry {
            offset: pos,
            reason: format!("header size {} is below the fixed 64 bytes", f.header_size),
            hint: HINT_CORRUPT,
        });
    }
    let header = Header {
        pos,
        bytes: slice(bytes, pos, f.header_size as u64, "fat binary entry header")?,
    };
    let padded = slice(
        bytes,
        pos + f.header_size,
        f.padded,
        "fat binary entry payload",
    )?;
    let next = pos + f.header_size + padded.len();
    let kind = match f.kind_code {
        KIND_PTX => EntryKind::Ptx,
        KIND_ELF => EntryKind::Elf,
        KIND_LTOIR => EntryKind::LtoIr,
        other => {
            return Ok(Parsed {
                found: Found::Unknown(other),
                next,
            })
        }
    };
    let identifier = header.identifier(&f)?;
    let (options, compat) = header.options(&f)?;
    let compression = header.compression(f.flags)?;
    let (payload, uncompressed_size) = header.payload(&f, kind, compression, padded)?;
    let entry = Entry {
        offset: pos,
        kind,
        arch: arch_from_header(f.sm, f.flags),
        version_major: f.major,
        version_minor: f.minor,
        flags: f.flags,
        compression,
        payload,
        uncompressed_size,
        identifier,
        options,
        compat,
        header_reserved: f.reserved,
    };
    Ok(Parsed {
        found: Found::Entry(entry),
        next,
    })
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
