//! [`FatbinWriter`]: packs cubins, PTX and LTO-IR into one container the CUDA driver and
//! `cuobjdump` accept, with the header layout `fatbinary` (CUDA 13.5) writes.
//!
//! Output is deterministic: entries are written in canonical order, sorted by `(arch, kind)`
//! with ELF before PTX before LTO-IR, whatever order they were added in, and each entry is
//! compressed independently. So `merge(write(a), write(b)) == write(a ∪ b)` byte for byte.

use std::borrow::Cow;

use archbuild_arch::{Arch, Variant};

use crate::compress::compress;
use crate::cubin::{elf_extent, nv_compat, parse_cubin};
use crate::encode::{encode_container, RawEntry};
use crate::layout::*;
use crate::model::{variant_flags, Compression, CompressionChoice, EntryKind};
use crate::ptx::parse_ptx;
use crate::Error;

/// One image waiting to be written.
#[derive(Clone, Debug)]
struct Image {
    kind: EntryKind,
    arch: Arch,
    /// ELF image, PTX text without NUL, or LTO-IR.
    bytes: Vec<u8>,
    major: u16,
    minor: u16,
    /// `.nv.compat` copy carried in the header (sm_100+ cubins).
    compat: Option<Vec<u8>>,
}

/// Builds a fat binary. Compression defaults to [`CompressionChoice::nvcc_default`] where this
/// build writes zstd (`c-writers`), else to the same with PTX as LZ4 ([`crate::writers`]).
#[derive(Clone, Debug)]
pub struct FatbinWriter {
    images: Vec<Image>,
    compression: CompressionChoice,
}

impl Default for FatbinWriter {
    fn default() -> Self {
        let nvcc = CompressionChoice::nvcc_default();
        let compression = if crate::writers().writes(nvcc.ptx) {
            nvcc
        } else {
            CompressionChoice {
                ptx: Compression::Lz4,
                ..nvcc
            }
        };
        Self {
            images: Vec::new(),
            compression,
        }
    }
}

impl FatbinWriter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets how ELF and PTX entries are stored.
    pub fn compression(&mut self, c: CompressionChoice) -> &mut Self {
        self.compression = c;
        self
    }

    /// Adds a cubin for `arch`. Refuses a cubin whose ELF target differs from `arch` (an `a`
    /// cubin must be added as `a`; `f` is invisible in cubins so `sm_100f` accepts an sm_100
    /// cubin), and a cubin with bytes past its ELF end.
    pub fn add_cubin(&mut self, cubin: &[u8], arch: Arch) -> Result<&mut Self, Error> {
        let info = parse_cubin(cubin)?;
        let ok = info.arch.cc == arch.cc
            && match arch.variant {
                Variant::Arch => info.arch.variant == Variant::Arch,
                Variant::Plain | Variant::Family => info.arch.variant == Variant::Plain,
            };
        if !ok {
            return Err(Error::ArchMismatch {
                what: "cubin".into(),
                declared: format!("sm_{}", arch.sm_name()),
                found: format!("sm_{}", info.arch.sm_name()),
            });
        }
        match elf_extent(cubin) {
            Some(n) if n == cubin.len() => {}
            Some(n) => {
                return Err(Error::bad_cubin(format!(
                    "it has {} bytes after its ELF end at {n}",
                    cubin.len() - n
                )))
            }
            None => {
                return Err(Error::bad_cubin(
                    "its section or program headers lie past its end",
                ))
            }
        }
        // fatbinary copies `.nv.compat` into the header of sm_100+ entries (flag 0x1000000).
        let compat = if arch.cc.sm() >= 100 {
            nv_compat(cubin)?.map(<[u8]>::to_vec)
        } else {
            None
        };
        self.push(Image {
            kind: EntryKind::Elf,
            arch,
            bytes: cubin.to_vec(),
            major: cubin[6].into(), // EI_VERSION
            minor: info.abi_version.into(),
            compat,
        })
    }

    /// Adds PTX text for `arch` (its `.target` must be `sm_<arch>`). A trailing NUL is allowed.
    pub fn add_ptx(&mut self, ptx: &[u8], arch: Arch) -> Result<&mut Self, Error> {
        let text = crate::compress::ptx_text(ptx);
        if ptx[text.len()..].iter().any(|&b| b != 0) {
            return Err(Error::bad_ptx(format!(
                "it has a NUL byte at offset {} before its end",
                text.len()
            )));
        }
        let info = parse_ptx(text)?;
        if info.target != arch {
            return Err(Error::ArchMismatch {
                what: format!("PTX (`.target sm_{}`)", info.target.sm_name()),
                declared: format!("compute_{}", arch.sm_name()),
                found: format!("compute_{}", info.target.sm_name()),
            });
        }
        let part = |n: u32| {
            u16::try_from(n)
                .map_err(|_| Error::bad_ptx(format!("`.version {}` is out of range", info.isa)))
        };
        self.push(Image {
            kind: EntryKind::Ptx,
            arch,
            bytes: text.to_vec(),
            major: part(info.isa.major)?,
            minor: part(info.isa.minor)?,
            compat: None,
        })
    }

    /// Adds NVVM LTO-IR (the `.ltoir` file of `nvcc -dlto -ltoir -arch=lto_90`) for `arch`,
    /// stored uncompressed with an empty NVVM options string; nvJitLink links it with `-lto`.
    pub fn add_ltoir(&mut self, ir: &[u8], arch: Arch) -> Result<&mut Self, Error> {
        if ir.is_empty() {
            return Err(Error::Unpackable {
                what: format!("LTO-IR for `lto_{}`", arch.sm_name()),
                reason: "it is empty; pass the file `nvcc -dlto -dc` wrote".into(),
            });
        }
        // nvcc records the NVVM IR version from the `.ltoir` header (bytes 4 and 5 after the
        // magic; 1.67 from CUDA 13.5 for every arch) as the entry's "code version".
        let (major, minor) = match ir {
            [0xed, 0x43, 0x4e, 0x7f, major, minor, ..] => (u16::from(*major), u16::from(*minor)),
            _ => (0, 0),
        };
        self.push(Image {
            kind: EntryKind::LtoIr,
            arch,
            bytes: ir.to_vec(),
            major,
            minor,
            compat: None,
        })
    }

    /// Identical re-adds collapse; a different image for the same kind and arch is refused.
    fn push(&mut self, image: Image) -> Result<&mut Self, Error> {
        if let Some(prev) = self
            .images
            .iter()
            .find(|i| i.kind == image.kind && i.arch == image.arch)
        {
            if prev.bytes == image.bytes {
                return Ok(self);
            }
            return Err(Error::Conflict {
                kind: image.kind.name(),
                arch: image.arch,
                target: slot_name(image.kind, image.arch),
                first: "the image added first".into(),
                first_len: prev.bytes.len(),
                second: "the image added now".into(),
                second_len: image.bytes.len(),
            });
        }
        self.images.push(image);
        Ok(self)
    }

    /// The fat binary: one container, entries in canonical order, compressed in parallel.
    pub fn write(&self) -> Result<Vec<u8>, Error> {
        let mut order: Vec<&Image> = self.images.iter().collect();
        order.sort_by_key(|i| (i.arch, i.kind));
        let choice = self.compression;
        let entries = parallel_map(&order, |img| raw_entry(img, choice.for_kind(img.kind)))?;
        encode_container(&entries)
    }
}

/// nvcc's name for a (kind, arch) slot: `sm_86`, `compute_90a`, `lto_90`.
pub(crate) fn slot_name(kind: EntryKind, arch: Arch) -> String {
    let prefix = match kind {
        EntryKind::Elf => "sm_",
        EntryKind::Ptx => "compute_",
        EntryKind::LtoIr => "lto_",
    };
    format!("{prefix}{}", arch.sm_name())
}

/// Builds one entry, compressing its image.
fn raw_entry(img: &Image, how: Compression) -> Result<RawEntry<'_>, Error> {
    let mut flags = DEFAULT_FLAGS | variant_flags(img.arch);
    let (mut options, mut compat) = (None, None);
    match img.kind {
        EntryKind::Ptx => options = Some(Cow::Borrowed(&[][..])), // required: the driver crashes without it
        EntryKind::Elf => {
            if let Some(c) = &img.compat {
                options = Some(Cow::Borrowed(&[][..]));
                compat = Some(Cow::Borrowed(&c[..]));
                flags |= FLAG_COMPAT_COPY;
            }
        }
        EntryKind::LtoIr => {
            // Like PTX, an LTO-IR entry must carry the options descriptor (here: no NVVM
            // options): without it `cuobjdump` calls the header invalid and nvJitLink 13.5
            // crashes on the fat binary (both seen here; nvcc always writes one).
            options = Some(Cow::Borrowed(&[][..]));
            flags |= FLAG_LTOIR;
        }
    }
    let kind = match img.kind {
        EntryKind::Elf => KIND_ELF,
        EntryKind::Ptx => KIND_PTX,
        EntryKind::LtoIr => KIND_LTOIR,
    };
    let mut entry = RawEntry {
        kind,
        sm: img.arch.cc.sm(),
        flags,
        reserved: 0,
        major: img.major,
        minor: img.minor,
        identifier: None,
        options,
        compat,
        payload: Cow::Borrowed(&img.bytes[..]),
        append_nul: img.kind == EntryKind::Ptx,
        compressed: None,
    };
    if how != Compression::None {
        let what = format!("{} for `{}`", img.kind, img.arch.sm_name());
        let compressed = if img.kind == EntryKind::Ptx {
            let mut with_nul = Vec::with_capacity(img.bytes.len() + 1);
            with_nul.extend_from_slice(&img.bytes);
            with_nul.push(0);
            compress(&with_nul, how, &what)?
        } else {
            compress(&img.bytes, how, &what)?
        };
        let uncompressed = img.bytes.len() as u64 + u64::from(entry.append_nul);
        entry.payload = Cow::Owned(compressed);
        entry.append_nul = false;
        entry.compressed = Some(uncompressed);
        entry.flags |= match how {
            Compression::Lz4 => FLAG_LZ4,
            _ => FLAG_ZSTD,
        };
    }
    Ok(entry)
}

/// Maps `f` over `items` on up to `available_parallelism` scoped threads, keeping order.
pub(crate) fn parallel_map<'a, T: Sync, R: Send>(
    items: &'a [T],
    f: impl Fn(&'a T) -> Result<R, Error> + Sync,
) -> Result<Vec<R>, Error> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut slots: Vec<Option<Result<R, Error>>> = (0..items.len()).map(|_| None).collect();
    let results = std::sync::Mutex::new(&mut slots);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                if let Ok(mut slots) = results.lock() {
                    slots[i] = Some(r);
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|r| {
            r.unwrap_or_else(|| {
                Err(Error::Compress {
                    compression: "parallel",
                    what: "an entry".into(),
                    reason: "a worker thread stopped before finishing".into(),
                })
            })
        })
        .collect()
}
