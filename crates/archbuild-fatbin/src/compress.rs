//! Entry payload compression: zstd frames (with content size, no checksum, as `fatbinary`
//! writes them) and raw LZ4 blocks (as `fatbinary --compress-mode=speed` writes them).
//! Decompression is pure Rust (ruzstd, lz4_flex) and bounded: the output never grows past what
//! the header claims, and a claim larger than the input could plausibly expand to is refused
//! before anything is allocated.
//!
//! Writing is pure Rust for LZ4 (lz4_flex's fast mode). zstd, and LZ4HC as `fatbinary` writes
//! it, need C (libzstd, liblz4): they come with the `c-writers` feature, so that a build
//! script's dependents, which pack nothing, compile no C library. [`writers`] says which.

use std::borrow::Cow;
use std::io::Read;

use crate::layout::{MAX_IMAGE, MAX_LZ4_RATIO, MAX_ZSTD_RATIO};
use crate::model::{Compression, Entry, EntryKind};
use crate::Error;

/// The compressors a build of this crate has: what [`Compression`] it can write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writers {
    /// lz4_flex alone: LZ4 in its fast mode; zstd cannot be written.
    PureRust,
    /// libzstd (any level) and LZ4HC level 3, byte-identical to `fatbinary` (`c-writers`).
    C,
}

impl Writers {
    /// Whether `how` can be written.
    pub const fn writes(self, how: Compression) -> bool {
        !matches!((self, how), (Writers::PureRust, Compression::Zstd { .. }))
    }

    /// Names the encoders, for cache keys: the same choice packs other bytes with each.
    pub const fn name(self) -> &'static str {
        match self {
            Writers::PureRust => "lz4_flex-0.14",
            Writers::C => "libzstd-1.5+lz4hc-3",
        }
    }
}

/// The writers of this build (the `c-writers` feature).
pub const fn writers() -> Writers {
    if cfg!(feature = "c-writers") {
        Writers::C
    } else {
        Writers::PureRust
    }
}

/// `fatbinary`'s LZ4HC level (its `speed` mode), checked byte for byte against its output.
#[cfg(feature = "c-writers")]
const LZ4HC_LEVEL: i32 = 3;

/// Compresses one image. `what` names it for errors.
pub(crate) fn compress(data: &[u8], how: Compression, what: &str) -> Result<Vec<u8>, Error> {
    let failed = |compression: &'static str, reason: String| Error::Compress {
        compression,
        what: what.to_string(),
        reason,
    };
    match how {
        Compression::None => Ok(data.to_vec()),
        Compression::Zstd { level } => zstd_frame(data, level).map_err(|r| failed("zstd", r)),
        Compression::Lz4 => lz4_block(data).map_err(|r| failed("lz4", r)),
    }
}

/// A zstd frame that pledges the source size, so the frame records its content size (the CUDA
/// driver and cuobjdump both accept that; fatbinary writes the same).
#[cfg(feature = "c-writers")]
fn zstd_frame(data: &[u8], level: i32) -> Result<Vec<u8>, String> {
    zstd::bulk::compress(data, level).map_err(|e| e.to_string())
}

#[cfg(not(feature = "c-writers"))]
fn zstd_frame(_: &[u8], _: i32) -> Result<Vec<u8>, String> {
    Err(
        "this build has no zstd writer; turn on archbuild-fatbin's `c-writers` feature \
         (`archbuild`'s `zstd`), or choose LZ4 (`speed`) or none"
            .into(),
    )
}

/// LZ4HC level 3 is what `fatbinary --compress-mode=speed` writes: the same bytes, and ~15%
/// smaller than the fast compressor.
#[cfg(feature = "c-writers")]
fn lz4_block(data: &[u8]) -> Result<Vec<u8>, String> {
    lz4::block::compress(
        data,
        Some(lz4::block::CompressionMode::HIGHCOMPRESSION(LZ4HC_LEVEL)),
        false,
    )
    .map_err(|e| e.to_string())
}

/// lz4_flex's fast mode: a valid raw block that every reader of `fatbinary`'s decodes.
#[cfg(not(feature = "c-writers"))]
fn lz4_block(data: &[u8]) -> Result<Vec<u8>, String> {
    Ok(lz4_flex::block::compress(data))
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
        ruzstd::decoding::StreamingDecoder::new(payload).map_err(|e| err(e.to_string()))?;
    // Read at most one byte past the limit so an over-long stream is detected without letting a
    // decompression bomb allocate more than the limit. The initial capacity is bounded by the
    // input size, so a lying header cannot make us reserve memory up front.
    let initial = limit.min(payload.len() as u64 * 8 + 4096) as usize;
    let mut out = Vec::with_capacity(initial);
    decoder
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

    /// What libzstd writes (as `fatbinary` and this crate's `c-writers` do), at any level.
    fn zstd(data: &[u8], level: i32) -> Vec<u8> {
        zstd::bulk::compress(data, level).unwrap()
    }

    #[test]
    fn pure_rust_reading_takes_every_zstd_level_and_both_lz4_writers() {
        let data: Vec<u8> = (0..200_000u32)
            .flat_map(|i| ((i % 251) ^ (i / 1000)).to_le_bytes())
            .collect();
        for level in [1, 3, 5, 19] {
            let c = zstd(&data, level);
            let how = Compression::Zstd { level: 0 };
            assert_eq!(decompress(&c, how, data.len() as u64, 0).unwrap(), data);
        }
        let fast = lz4_flex::block::compress(&data);
        assert_eq!(
            decompress(&fast, Compression::Lz4, data.len() as u64, 0).unwrap(),
            data
        );
    }

    #[test]
    fn each_build_writes_what_its_writers_say() {
        let w = writers();
        assert_eq!(w == Writers::C, cfg!(feature = "c-writers"));
        let z = compress(b"abc", Compression::Zstd { level: 5 }, "t");
        assert_eq!(z.is_ok(), w.writes(Compression::Zstd { level: 5 }));
        if let Err(e) = z {
            assert!(e.to_string().contains("c-writers"), "{e}");
        }
    }

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
            let Ok(c) = compress(&data, how, "test") else {
                assert!(!writers().writes(how));
                continue;
            };
            assert_eq!(decompress(&c, how, data.len() as u64, 0).unwrap(), data);
            assert_eq!(decompress(&c, how, 0, 0).unwrap(), data);
        }
    }

    #[cfg(feature = "c-writers")]
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
        let z = zstd(&[7u8; 1000], 5);
        let e = decompress(&z, Compression::Zstd { level: 0 }, 10, 0).unwrap_err();
        assert!(e.to_string().contains("expands past"), "{e}");
        let e = decompress(b"not zstd at all", Compression::Zstd { level: 0 }, 10, 0).unwrap_err();
        assert!(matches!(e, Error::Decompress { .. }), "{e}");
    }
}
