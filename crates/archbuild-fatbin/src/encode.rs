//! Serialises entries into one container with exactly the header layout `fatbinary` writes.
//! Shared by [`crate::FatbinWriter`] (fresh images) and [`crate::merge`] (entries passed through
//! from other fat binaries), so both produce identical bytes for identical entries.

use std::borrow::Cow;

use crate::layout::*;
use crate::Error;

/// One entry ready to be laid out: header fields plus the bytes to store.
#[derive(Clone, Debug)]
pub(crate) struct RawEntry<'a> {
    pub kind: u16,
    pub sm: u32,
    pub flags: u64,
    /// The u64 at +48 (0 except on nvcc's LTO-IR entries).
    pub reserved: u64,
    pub major: u16,
    pub minor: u16,
    pub identifier: Option<Cow<'a, [u8]>>,
    /// The options string (ptxas command line); `Some` writes the descriptor, which every PTX
    /// entry must have.
    pub options: Option<Cow<'a, [u8]>>,
    /// The `.nv.compat` copy of sm_100+ ELF entries: stored right after the options string's
    /// NUL, its length in the descriptor's length field (as `fatbinary` lays it out).
    pub compat: Option<Cow<'a, [u8]>>,
    /// The stored bytes: the image, or its compressed stream.
    pub payload: Cow<'a, [u8]>,
    /// Store a NUL after `payload` (stored PTX text).
    pub append_nul: bool,
    /// `Some(uncompressed size)` when `payload` is compressed.
    pub compressed: Option<u64>,
}

impl RawEntry<'_> {
    /// Header size: 64 fixed bytes, then the identifier and the options descriptor + string,
    /// each NUL-terminated and padded to 8.
    fn layout(&self) -> (usize, usize, usize, usize) {
        let mut size = ENTRY_FIXED;
        let ident_off = if let Some(id) = &self.identifier {
            let off = size;
            size += pad8(id.len() + 1);
            off
        } else {
            0
        };
        let options_off = if self.options.is_some() || self.compat.is_some() {
            let off = size;
            let opt = self.options.as_ref().map_or(0, |o| o.len());
            let compat = self.compat.as_ref().map_or(0, |c| c.len());
            size += 8 + pad8(opt + 1 + compat);
            off
        } else {
            0
        };
        let stored = self.payload.len() + usize::from(self.append_nul);
        (size, ident_off, options_off, stored)
    }

    fn encoded_len(&self) -> usize {
        let (header, _, _, stored) = self.layout();
        header + pad8(stored)
    }

    fn encode(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        let (header, ident_off, options_off, stored) = self.layout();
        let too_big = |what: &str| Error::Unpackable {
            what: format!("entry for sm {} ({} bytes)", self.sm, stored),
            reason: format!("its {what} does not fit the fat binary's 32-bit field"),
        };
        let compressed_size = match self.compressed {
            Some(_) => u32::try_from(stored).map_err(|_| too_big("compressed size"))?,
            None => 0,
        };
        let ident_len = self.identifier.as_ref().map_or(0, |i| i.len());
        let start = out.len();
        out.extend_from_slice(&self.kind.to_le_bytes());
        out.extend_from_slice(&ENTRY_VERSION.to_le_bytes());
        out.extend_from_slice(&(header as u32).to_le_bytes());
        out.extend_from_slice(&(pad8(stored) as u64).to_le_bytes());
        out.extend_from_slice(&compressed_size.to_le_bytes());
        out.extend_from_slice(&(options_off as u32).to_le_bytes());
        out.extend_from_slice(&self.minor.to_le_bytes());
        out.extend_from_slice(&self.major.to_le_bytes());
        out.extend_from_slice(&self.sm.to_le_bytes());
        out.extend_from_slice(&(ident_off as u32).to_le_bytes());
        let ident_len = u32::try_from(ident_len).map_err(|_| too_big("identifier"))?;
        out.extend_from_slice(&ident_len.to_le_bytes());
        out.extend_from_slice(&self.flags.to_le_bytes());
        out.extend_from_slice(&self.reserved.to_le_bytes());
        out.extend_from_slice(&self.compressed.unwrap_or(0).to_le_bytes());
        if let Some(id) = &self.identifier {
            out.extend_from_slice(id);
            pad_to(out, start + ident_off + pad8(id.len() + 1));
        }
        if options_off != 0 {
            let str_off = (options_off + 8) as u32;
            let opt: &[u8] = self.options.as_deref().unwrap_or_default();
            // The length field holds the compat copy's length when there is one, else the
            // options string's (fatbinary, CUDA 13.5).
            let len = match &self.compat {
                Some(c) => u32::try_from(c.len()).map_err(|_| too_big("`.nv.compat` copy"))?,
                None => u32::try_from(opt.len()).map_err(|_| too_big("options string"))?,
            };
            out.extend_from_slice(&str_off.to_le_bytes());
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(opt);
            out.push(0);
            if let Some(c) = &self.compat {
                out.extend_from_slice(c);
            }
            pad_to(out, start + header);
        }
        debug_assert_eq!(out.len(), start + header);
        out.extend_from_slice(&self.payload);
        pad_to(out, start + header + pad8(stored));
        Ok(())
    }
}

/// Zero-fills `out` up to `len` bytes.
fn pad_to(out: &mut Vec<u8>, len: usize) {
    out.resize(len, 0);
}

/// Writes one container holding `entries` in the given order.
pub(crate) fn encode_container(entries: &[RawEntry<'_>]) -> Result<Vec<u8>, Error> {
    let body: usize = entries.iter().map(RawEntry::encoded_len).sum();
    let mut out = Vec::with_capacity(CONTAINER_HEADER + body);
    out.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
    out.extend_from_slice(&FATBIN_VERSION.to_le_bytes());
    out.extend_from_slice(&(CONTAINER_HEADER as u16).to_le_bytes());
    out.extend_from_slice(&(body as u64).to_le_bytes());
    for e in entries {
        e.encode(&mut out)?;
    }
    debug_assert_eq!(out.len(), CONTAINER_HEADER + body);
    Ok(out)
}
