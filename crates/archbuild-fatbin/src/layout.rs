//! Byte-layout constants of the NVIDIA fat binary container (see `docs/fatbin.md`), plus small
//! bounds-checked little-endian readers that every parser in this crate uses so that no offset
//! is ever trusted.

use crate::Error;

/// Container magic at offset 0.
pub(crate) const FATBIN_MAGIC: u32 = 0xBA55_ED50;
/// Container version written (and the only one read).
pub(crate) const FATBIN_VERSION: u16 = 1;
/// Size of the container header; entries start right after it.
pub(crate) const CONTAINER_HEADER: usize = 16;
/// Fixed part of an entry header.
pub(crate) const ENTRY_FIXED: usize = 64;
/// Entry header version (`0x0101`).
pub(crate) const ENTRY_VERSION: u16 = 0x0101;

pub(crate) const KIND_PTX: u16 = 1;
pub(crate) const KIND_ELF: u16 = 2;
pub(crate) const KIND_LTOIR: u16 = 8;

/// 64-bit host.
pub(crate) const FLAG_64BIT: u64 = 0x1;
/// Host is Linux.
pub(crate) const FLAG_HOST_LINUX: u64 = 0x10;
/// Payload is a raw LZ4 block.
pub(crate) const FLAG_LZ4: u64 = 0x2000;
/// Payload is a zstd frame.
pub(crate) const FLAG_ZSTD: u64 = 0x8000;
/// LTO-IR entry.
pub(crate) const FLAG_LTOIR: u64 = 0x10000;
/// Architecture-specific target (`sm_90a`).
pub(crate) const FLAG_ARCH_SPECIFIC: u64 = 0x10_0000;
/// Family-specific target (`sm_100f`).
pub(crate) const FLAG_FAMILY_SPECIFIC: u64 = 0x20_0000;
/// The header's variable area carries a copy of the cubin's `.nv.compat` section.
pub(crate) const FLAG_COMPAT_COPY: u64 = 0x100_0000;

/// Flags `fatbinary` sets on every entry by default (64-bit Linux host).
pub(crate) const DEFAULT_FLAGS: u64 = FLAG_64BIT | FLAG_HOST_LINUX;

/// Largest uncompressed image this crate will ever allocate (1 GiB). Real cubins are far below.
pub(crate) const MAX_IMAGE: u64 = 1 << 30;
/// Largest expansion accepted from a zstd frame relative to its stored size. zstd's RLE blocks
/// reach ~32000x on all-zero data; a header claiming more is corrupt, not compressed.
pub(crate) const MAX_ZSTD_RATIO: u64 = 1 << 16;
/// An LZ4 block cannot expand by more than ~255x (one length byte per 255 output bytes).
pub(crate) const MAX_LZ4_RATIO: u64 = 256;

/// Rounds `n` up to a multiple of 8 (fat binary alignment).
pub(crate) const fn pad8(n: usize) -> usize {
    (n + 7) & !7
}

/// `bytes[offset..offset + len]`, or a `Truncated` error naming `what`.
pub(crate) fn slice<'a>(
    bytes: &'a [u8],
    offset: usize,
    len: u64,
    what: &'static str,
) -> Result<&'a [u8], Error> {
    let have = bytes.len().saturating_sub(offset);
    match usize::try_from(len) {
        Ok(l) if offset <= bytes.len() && l <= have => Ok(&bytes[offset..offset + l]),
        _ => Err(Error::truncated(what, offset, len, have)),
    }
}

pub(crate) fn u16_at(bytes: &[u8], offset: usize, what: &'static str) -> Result<u16, Error> {
    let s = slice(bytes, offset, 2, what)?;
    Ok(u16::from_le_bytes([s[0], s[1]]))
}

pub(crate) fn u32_at(bytes: &[u8], offset: usize, what: &'static str) -> Result<u32, Error> {
    let s = slice(bytes, offset, 4, what)?;
    Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

pub(crate) fn u64_at(bytes: &[u8], offset: usize, what: &'static str) -> Result<u64, Error> {
    let s = slice(bytes, offset, 8, what)?;
    let mut b = [0u8; 8];
    b.copy_from_slice(s);
    Ok(u64::from_le_bytes(b))
}

/// A short hex rendering of the first bytes, for error messages.
pub(crate) fn hex_head(bytes: &[u8]) -> String {
    let head: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
    if head.is_empty() {
        "nothing (empty)".to_string()
    } else {
        head.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_checks_bounds_without_overflow() {
        let b = [1u8, 2, 3, 4];
        assert_eq!(slice(&b, 1, 3, "x").unwrap(), &[2, 3, 4]);
        assert!(slice(&b, 1, 4, "x").is_err());
        assert!(slice(&b, 9, 0, "x").is_err());
        assert!(slice(&b, 4, 0, "x").unwrap().is_empty());
        assert!(slice(&b, 0, u64::MAX, "x").is_err());
        assert_eq!(u32_at(&b, 0, "x").unwrap(), 0x0403_0201);
        assert!(u64_at(&b, 0, "x").is_err());
        assert_eq!(pad8(0), 0);
        assert_eq!(pad8(1), 8);
        assert_eq!(pad8(8), 8);
    }
}
