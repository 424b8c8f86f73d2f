//! Entry payload compression: zstd frames (with content size, no checksum, as `fatbinary`
//! writes them) and raw LZ4HC blocks (as `fatbinary --compress-mode=speed` writes them). Decompression is bounded: the output never grows past what
//! the header claims, and a claim larger than the input could plausibly expand to is refused
//! before anything is allocated.

use std::borrow::Cow;
use std::io::Read;

use crate::layout::{MAX_IMAGE, MAX_LZ4_RATIO, MAX_ZSTD_RATIO};
use crate::model::{Compression, Entry, EntryKind};
use crate::Error;

/// `fatbinary`'s LZ4HC level (its `speed` mode), checked byte for byte against its output.
const LZ4HC_LEVEL: i32 = 3;

/// Compresses one image. `what` names it for errors.
pub(crate) fn compress(data: &[u8], how: Compression, what: &str) -> Result<Vec<u8>, Error> {
    match how {
        Compression::None => Ok(data.to_vec()),
        Compression::Zstd { level } => {
            // `bulk::compress` pledges the source size, so the frame records its content size
            // (the CUDA driver and cuobjdump both accept that; fatbinary writes the same).
            zstd::bulk::compress(data, level).map_err(|e| Error::Compress {
                compression: "zstd",
                what: what.to_string(),
                reason: e.to_string(),
            })
        }
        // LZ4HC level 3 is what `fatbinary --compress-mode=speed` writes: the same bytes, and
        // ~25% smaller than the fast compressor. Decoding stays with the pure-Rust lz4_flex.
        Compression::Lz4 => lz4::block::compress(
            data,
            Some(lz4::block::CompressionMode::HIGHCOMPRESSION(LZ4HC_LEVEL)),
            false,
        )
        .map_err(|e| Error::Compress {
            compression: "lz4",
            what: what.to_string(),
            reason: e.to_string(),
        }),
    }
}

/// The largest uncompressed size believable for `stored` bytes of `how`.
pub(crate) fn size_cap(stored: usize, how: Compression) -> u64 {
    let ratio = match how {
        Compression::None => 1,
        Compression::Zstd { .. } => MAX_ZSTD_RATIO,
        Compression::Lz4 => MAX_LZ4_RATIO,
    };
    (stored as u64)
        .saturating_mul(ratio)
        .saturating_add(4096)
        .min(MAX_IMAGE)
}

/// Decompresses `payload` that the header at `offset` says expands to `claimed` bytes
/// (0 = unknown: then up to the cap, any length accepted).
pub(crate) fn decompress(
    payload: &[u8],
    how: Compression,
    claimed: u64,
    offset: usize,
) -> Result<Vec<u8>, Error> {
    let cap = size_cap(payload.len(), how);
    if claimed > cap {
        return Err(Error::TooLarge {
            offset,
            claimed,
            stored: payload.len(),
            cap,
        });
    }
    let limit = if claimed == 0 { cap } else { claimed };
    let out = match how {
        Compression::None => payload.to_vec(),
        Compression::Zstd { .. } => decompress_zstd(payload, limit, offset)?,
        Compression::Lz4 => decompress_lz4(payload, limit, offset)?,
    };
    if claimed != 0 && out.len() as u64 != claimed {
        return Err(Error::Decompress {
            offset,
            compression: how.name(),
            reason: format!("got {} bytes, the header says {claimed}", out.len()),
        });
    }
    Ok(out)
}

fn decompress_zstd(payload: &[u8], limit: u64, offset: usize) -> Result<Vec<u8>, Error> {
    let err = |reason: String| Error::Decompress {
        offset,
        compression: "zstd",
        reason,
    };
    let decoder =
        zstd::stream::read::Decoder::with_buffer(payload).map_err(|e| err(e.to_string()))?;
    // Read at most one byte past the limit so an over-long stream is detected without letting a
    // decompression bomb allocate more than the limit. The initial capacity is bounded by the
    // input size, so a lying header cannot make us reserve memory up front.
    let initial = limit.min(payload.len() as u64 * 8 + 4096) as usize;
    let mut out = Vec::with_capacity(initial);
    decoder
        .single_frame()
        .take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| err(e.to_string()))?;
    if out.len() as u64 > limit {
        return Err(err(format!(
            "the frame expands past the {limit} bytes the header allows"
        )));
    }
    Ok(out)
}

fn decompress_lz4(payload: &[u8], limit: u64, offset: usize) -> Result<Vec<u8>, Error> {
    // `limit` is at most 256x the input (size_cap), so this allocation is bounded.
    let mut out = vec![0u8; limit as usize];
    let n = lz4_flex::block::decompress_into(payload, &mut out).map_err(|e| Error::Decompress {
        offset,
        compression: "lz4",
        reason: e.to_string(),
    })?;
    out.truncate(n);
    Ok(out)
}

/// PTX images are stored with a terminating NUL; the text is everything before the first NUL.
pub(crate) fn ptx_text(bytes: &[u8]) -> &[u8] {
    match bytes.iter().position(|&b| b == 0) {
        Some(n) => &bytes[..n],
        None => bytes,
    }
}

impl<'a> Entry<'a> {
    /// The image: a cubin's exact ELF bytes, PTX text without its terminating NUL, or LTO-IR.
    /// Stored entries are borrowed; compressed ones are decompressed (bounded, see module docs).
    ///
    /// nvcc's compressed LTO-IR entries use an encoding of NVIDIA's own (flag 0x8000 but no zstd
    /// frame); their `data()` is an error, while `merge` still passes them through.
    pub fn data(&self) -> Result<Cow<'a, [u8]>, Error> {
        if self.kind == EntryKind::LtoIr && self.compression != Compression::None {
            return Err(Error::Decompress {
                offset: self.offset,
                compression: "LTO-IR",
                reason: "nvcc's compressed LTO-IR is in NVIDIA's private encoding, only nvJitLink reads it".into(),
            });
        }
        let bytes: Cow<'a, [u8]> = match self.compression {
            Compression::None => Cow::Borrowed(self.payload),
            how => Cow::Owned(decompress(
                self.payload,
                how,
                self.uncompressed_size,
                self.offset,
            )?),
        };
        if self.kind != EntryKind::Ptx {
            return Ok(bytes);
        }
        Ok(match bytes {
            Cow::Borrowed(b) => Cow::Borrowed(ptx_text(b)),
            Cow::Owned(mut v) => {
                let n = ptx_text(&v).len();
                v.truncate(n);
                Cow::Owned(v)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zstd_and_lz4_round_trip() {
        let data: Vec<u8> = (0..10_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        for how in [
            Compression::Zstd { level: 5 },
            Compression::Lz4,
            Compression::None,
        ] {
            let c = compress(&data, how, "test").unwrap();
            assert_eq!(decompress(&c, how, data.len() as u64, 0).unwrap(), data);
            assert_eq!(decompress(&c, how, 0, 0).unwrap(), data);
        }
    }

    #[test]
    fn zstd_frame_records_content_size() {
        let c = compress(b"hello hello hello", Compression::Zstd { level: 5 }, "t").unwrap();
        assert_eq!(&c[..4], &[0x28, 0xb5, 0x2f, 0xfd]);
        assert_eq!(
            zstd::zstd_safe::get_frame_content_size(&c).ok(),
            Some(Some(17))
        );
    }

    #[test]
    fn lying_sizes_are_refused_not_allocated() {
        let c = compress(&[7u8; 1000], Compression::Lz4, "t").unwrap();
        let e = decompress(&c, Compression::Lz4, 1 << 40, 16).unwrap_err();
        assert!(matches!(e, Error::TooLarge { offset: 16, .. }), "{e}");
        let e = decompress(&c, Compression::Lz4, 999, 0).unwrap_err();
        assert!(e.to_string().contains("lz4"), "{e}");
        let z = compress(&[7u8; 1000], Compression::Zstd { level: 5 }, "t").unwrap();
        let e = decompress(&z, Compression::Zstd { level: 0 }, 10, 0).unwrap_err();
        assert!(e.to_string().contains("expands past"), "{e}");
        let e = decompress(b"not zstd at all", Compression::Zstd { level: 0 }, 10, 0).unwrap_err();
        assert!(matches!(e, Error::Decompress { .. }), "{e}");
    }
}
