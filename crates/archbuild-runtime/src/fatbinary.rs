//! A fat binary parsed once: the list of images the loader chooses from, and extraction (with
//! decompression) of exactly the one image it loads.
//!
//! Like the driver, only the first container counts: a buffer with several containers is what a
//! linked program's `.nv_fatbin` section holds (one per translation unit), and the driver's
//! `cuModuleLoadData` reads only the first. Unlike the driver, the loader does not hand the
//! whole container over and let the driver pick: it chooses, extracts that image and loads it.

use std::borrow::Cow;
use std::sync::OnceLock;

use archbuild_arch::{
    toolkit_for_elf_abi, CudaVersion, Handoff, ImageCompression, ImageInfo, PtxIsa, Target,
    TargetKind,
};
use archbuild_fatbin::{read_fatbin, Compression, Container, Entry};

use crate::error::{Error, Result};

/// The usual fix when a fat binary holds nothing loadable.
const REBUILD: &str = "rebuild it with archbuild (ARCHBUILD_ARCHS names the archs)";

/// One loadable image (cubin or PTX) of a fat binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Position in [`FatBinary::images`] (LTO-IR entries, which cannot be loaded, are skipped).
    pub index: usize,
    /// `sm_XY` for a cubin, `compute_XY` for PTX.
    pub target: Target,
    /// The PTX ISA of a PTX image.
    pub ptx_isa: Option<PtxIsa>,
    /// How the image is stored in the fat binary.
    pub compression: Compression,
    /// Size once decompressed.
    pub size: u64,
    /// A cubin's ELF ABI version (`e_ident[EI_ABIVERSION]`: 8 for CUDA 13, 7 for CUDA 12 and
    /// older).
    pub elf_abi_version: Option<u8>,
    /// The major version of the toolkit that made a cubin: from its ELF ABI version, else from
    /// [`FatBinary::made_by`]; `None` when unknown.
    pub made_by: Option<u32>,
    header_offset: usize,
}

/// A fat binary and its images.
#[derive(Debug, Clone)]
pub struct FatBinary {
    bytes: Cow<'static, [u8]>,
    images: Vec<Image>,
    /// Per image, a digest of its stored bytes, computed on first need (JIT cache keys).
    digests: Vec<OnceLock<[u8; 32]>>,
    /// Per image, its kernel names, read on first need (variants, missing-kernel errors).
    kernels: Vec<OnceLock<Vec<String>>>,
    /// Kernel variant groups the loader resolves ([`FatBinary::with_variants`]).
    variants: Vec<crate::variants::VariantGroup>,
    /// How the program hands this fat binary to the driver ([`FatBinary::handed_over`]).
    handoff: Handoff,
}

impl FatBinary {
    /// Parses a fat binary embedded in the program (`include_bytes!`), without copying it.
    pub fn new(bytes: &'static [u8]) -> Result<Self> {
        Self::parse(Cow::Borrowed(bytes))
    }

    /// Parses a fat binary read at run time.
    pub fn from_vec(bytes: Vec<u8>) -> Result<Self> {
        Self::parse(Cow::Owned(bytes))
    }

    fn parse(bytes: Cow<'static, [u8]>) -> Result<Self> {
        let images = {
            let containers = read_fatbin(&bytes).map_err(Box::new)?;
            let first = containers.first().ok_or_else(|| Error::NoImages {
                detail: "no container".into(),
                fix: REBUILD.into(),
            })?;
            let mut images = Vec::new();
            for e in &first.entries {
                let target = e.target();
                let elf_abi_version = e.elf_abi_version();
                images.push(Image {
                    index: images.len(),
                    target,
                    ptx_isa: e.ptx_isa(),
                    compression: e.compression,
                    size: e.uncompressed_size,
                    elf_abi_version,
                    made_by: elf_abi_version.and_then(toolkit_for_elf_abi),
                    header_offset: e.offset,
                });
            }
            images
        };
        if images.is_empty() {
            return Err(Error::NoImages {
                detail: "no cubin, no PTX and no LTO-IR".into(),
                fix: REBUILD.into(),
            });
        }
        let digests = images.iter().map(|_| OnceLock::new()).collect();
        let kernels = images.iter().map(|_| OnceLock::new()).collect();
        Ok(Self {
            bytes,
            images,
            digests,
            kernels,
            variants: Vec::new(),
            handoff: Handoff::Image,
        })
    }

    /// Records the toolkit that built this fat binary (the build record's `toolkit`), for the
    /// cubins whose ELF ABI version does not tell (version 7 is CUDA 12 or older): their driver
    /// floor follows that toolkit's major version.
    pub fn made_by(self, toolkit: CudaVersion) -> Self {
        self.made_by_each(|_| Some(toolkit))
    }

    /// [`FatBinary::made_by`] per image: the toolkit that made each target's image (a build
    /// record's `made_by`), for a fat binary whose images come from several toolkits.
    pub fn made_by_each(mut self, toolkit_of: impl Fn(Target) -> Option<CudaVersion>) -> Self {
        for img in &mut self.images {
            if img.target.kind == TargetKind::Cubin && img.made_by.is_none() {
                img.made_by = toolkit_of(img.target).map(CudaVersion::major);
            }
        }
        self
    }

    /// Says how the program hands this fat binary to the driver: [`Handoff::Image`] (archbuild's
    /// loader, which decompresses the chosen image itself; the default) or
    /// [`Handoff::FatBinary`] (the CUDA runtime registering an executable's `.nv_fatbin`: the
    /// driver decompresses, so zstd entries need its floor).
    pub fn handed_over(mut self, handoff: Handoff) -> Self {
        self.handoff = handoff;
        self
    }

    /// How the program hands this fat binary to the driver.
    pub fn handoff(&self) -> Handoff {
        self.handoff
    }

    /// Declares kernel variant groups (the generated `VARIANTS` table of a module): every load
    /// resolves each group on the chosen image (`Loaded::variant`, the load report, preflight).
    pub fn with_variants(mut self, table: &[(&str, &[&str])]) -> Self {
        self.variants = crate::variants::VariantGroup::from_table(table);
        self
    }

    /// Declares variant groups built in code.
    pub fn with_variant_groups(mut self, groups: Vec<crate::variants::VariantGroup>) -> Self {
        self.variants = groups;
        self
    }

    /// The declared variant groups.
    pub fn variant_groups(&self) -> &[crate::variants::VariantGroup] {
        &self.variants
    }

    /// The kernel names of image `index` (PTX `.entry` names or cubin entry symbols), read
    /// and remembered on first need.
    pub fn image_kernels(&self, index: usize) -> Result<&[String]> {
        let Some(slot) = self.kernels.get(index) else {
            return Ok(&[]);
        };
        if let Some(k) = slot.get() {
            return Ok(k);
        }
        let data = self.image_data(index)?;
        let img = &self.images[index];
        let bad = |source| Error::Image {
            index,
            target: img.target.to_string(),
            source: Box::new(source),
        };
        let names = match img.target.kind {
            // NVVM IR names its kernels only once linked (`note_linked`); unknown until then.
            TargetKind::LtoIr => return Ok(&[]),
            TargetKind::Ptx => {
                archbuild_fatbin::ptx::parse_ptx(&data)
                    .map_err(bad)?
                    .entries
            }
            TargetKind::Cubin => {
                archbuild_fatbin::cubin::parse_cubin(&data)
                    .map_err(bad)?
                    .kernels
            }
        };
        Ok(slot.get_or_init(|| names))
    }

    /// Records the kernels of the cubin linked from LTO-IR image `index`, which the IR itself
    /// does not list (`image_kernels`).
    pub(crate) fn note_linked(&self, index: usize, cubin: &[u8]) {
        let is_lto = self.images.get(index).map(|i| i.target.kind) == Some(TargetKind::LtoIr);
        if let (true, Some(slot)) = (is_lto, self.kernels.get(index)) {
            if let Ok(c) = archbuild_fatbin::cubin::parse_cubin(cubin) {
                let _ = slot.set(c.kernels);
            }
        }
    }

    /// [`FatBinary::note_linked`], then `load` of the cubin.
    pub(crate) fn note_linked_then<T>(
        &self,
        index: usize,
        cubin: Vec<u8>,
        load: impl FnOnce(Vec<u8>) -> T,
    ) -> T {
        self.note_linked(index, &cubin);
        load(cubin)
    }

    /// The images that contain kernel `name`.
    pub fn images_with_kernel(&self, name: &str) -> Result<Vec<Target>> {
        let mut out = Vec::new();
        for (i, img) in self.images.iter().enumerate() {
            if self.image_kernels(i)?.iter().any(|k| k == name) {
                out.push(img.target);
            }
        }
        Ok(out)
    }

    /// The loadable images, in container order.
    pub fn images(&self) -> &[Image] {
        &self.images
    }

    /// The images as `archbuild-arch`'s selection takes them.
    pub fn image_infos(&self) -> Vec<ImageInfo> {
        self.images
            .iter()
            .map(|i| {
                ImageInfo::new(i.target, i.ptx_isa)
                    .made_by(i.made_by)
                    .compression(match i.compression {
                        Compression::None => ImageCompression::None,
                        Compression::Lz4 => ImageCompression::Lz4,
                        Compression::Zstd { .. } => ImageCompression::Zstd,
                    })
            })
            .collect()
    }

    /// The whole fat binary, as the driver would take it.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes of image `index`, decompressed; PTX without its terminating NUL.
    pub fn image_data(&self, index: usize) -> Result<Cow<'_, [u8]>> {
        let (img, containers) = self.entry(index)?;
        let entry = Self::find(&containers, img)?;
        let data = entry.data().map_err(|source| Error::Image {
            index,
            target: img.target.to_string(),
            source: Box::new(source),
        })?;
        Ok(match data {
            Cow::Borrowed(b) => Cow::Borrowed(self.rebase(b)),
            Cow::Owned(v) => Cow::Owned(v),
        })
    }

    /// BLAKE3 of image `index` as stored (compressed or not) with its compression: identifies
    /// the image's content without decompressing it, so a JIT cache hit never decompresses or
    /// hashes the (possibly megabytes of) PTX text. Computed once per image.
    pub fn image_digest(&self, index: usize) -> Result<[u8; 32]> {
        if let Some(d) = self.digests.get(index).and_then(OnceLock::get) {
            return Ok(*d);
        }
        let (img, containers) = self.entry(index)?;
        let entry = Self::find(&containers, img)?;
        let mut h = blake3::Hasher::new();
        h.update(b"archbuild-image-v2\0");
        h.update(img.compression.name().as_bytes());
        h.update(&[0]);
        h.update(entry.payload);
        let d: [u8; 32] = *h.finalize().as_bytes();
        Ok(*self.digests[index].get_or_init(|| d))
    }

    // Entries borrow the bytes, so they are not kept; finding one again is a walk over a few
    // headers (the payloads are neither copied nor checked again).
    fn entry(&self, index: usize) -> Result<(&Image, Vec<Container<'_>>)> {
        let img = self.images.get(index).ok_or_else(|| Error::NoImages {
            detail: format!("no image [{index}] (it has {})", self.images.len()),
            fix: "ask for an index from `FatBinary::images`".into(),
        })?;
        Ok((img, read_fatbin(&self.bytes).map_err(Box::new)?))
    }

    fn find<'c, 'a>(containers: &'c [Container<'a>], img: &Image) -> Result<&'c Entry<'a>> {
        containers[0]
            .entries
            .iter()
            .find(|e| e.offset == img.header_offset)
            .ok_or_else(|| Error::NoImages {
                detail: format!("no entry at offset {}", img.header_offset),
                fix: REBUILD.into(),
            })
    }

    /// A slice of a temporary container list, re-borrowed from `self.bytes`.
    fn rebase(&self, b: &[u8]) -> &[u8] {
        let start = b.as_ptr() as usize - self.bytes.as_ptr() as usize;
        &self.bytes[start..start + b.len()]
    }
}

/// A fat binary embedded with `include_bytes!`, parsed on first use and then kept:
///
/// ```ignore
/// static KERNELS: EmbeddedFatbin =
///     EmbeddedFatbin::new(include_bytes!(concat!(env!("OUT_DIR"), "/kernels.fatbin")));
/// let fatbin = KERNELS.get()?;
/// ```
#[derive(Debug)]
pub struct EmbeddedFatbin {
    bytes: &'static [u8],
    parsed: OnceLock<std::result::Result<FatBinary, String>>,
}

impl EmbeddedFatbin {
    /// Wraps the embedded bytes; nothing is parsed yet.
    pub const fn new(bytes: &'static [u8]) -> Self {
        Self {
            bytes,
            parsed: OnceLock::new(),
        }
    }

    /// The parsed fat binary (parsed once, on the first call).
    pub fn get(&self) -> Result<&FatBinary> {
        match self
            .parsed
            .get_or_init(|| FatBinary::new(self.bytes).map_err(|e| e.to_string()))
        {
            Ok(f) => Ok(f),
            // Parsing is deterministic: parse again for the error itself (the error path only).
            Err(msg) => Err(match FatBinary::new(self.bytes) {
                Err(e) => e,
                Ok(_) => Error::NoImages {
                    detail: format!("an unreadable embedded image ({msg})"),
                    fix: REBUILD.into(),
                },
            }),
        }
    }
}
