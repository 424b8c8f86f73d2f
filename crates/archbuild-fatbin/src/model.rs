//! The data model shared by the reader and the writer: entry kinds, compression choices, and the
//! zero-copy [`Entry`] / [`Container`] views that [`crate::read_fatbin`] returns.

use std::fmt;
use std::str::FromStr;

use archbuild_arch::{Arch, ComputeCapability, PtxIsa, Target, Variant};

use crate::Error;

/// What an entry holds.
///
/// Ordered ELF < PTX < LTO-IR: the writer's canonical order within one arch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntryKind {
    /// A cubin (CUDA device ELF), header kind 2.
    Elf,
    /// PTX text, header kind 1.
    Ptx,
    /// NVVM LTO-IR (from `-dlto`), header kind 8.
    LtoIr,
}

impl EntryKind {
    /// The name `cuobjdump` uses: `ELF`, `PTX`, `LTO-IR`.
    pub const fn name(self) -> &'static str {
        match self {
            EntryKind::Elf => "ELF",
            EntryKind::Ptx => "PTX",
            EntryKind::LtoIr => "LTO-IR",
        }
    }
}

impl fmt::Display for EntryKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How one entry's payload is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Stored as is.
    None,
    /// A zstd frame with content size (flag 0x8000). When read back the level is unknown and
    /// reported as 0.
    Zstd { level: i32 },
    /// A raw LZ4 block, no frame (flag 0x2000).
    Lz4,
}

impl Compression {
    /// Short name for listings and errors: `none`, `zstd`, `lz4`.
    pub const fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Zstd { .. } => "zstd",
            Compression::Lz4 => "lz4",
        }
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Compression::Zstd { level } if *level != 0 => write!(f, "zstd-{level}"),
            other => f.write_str(other.name()),
        }
    }
}

/// Compression per entry kind (LTO-IR is always stored: its payload is not plain zstd).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompressionChoice {
    pub elf: Compression,
    pub ptx: Compression,
}

impl CompressionChoice {
    /// Everything stored (`fatbinary --compress=false`, `nvcc --compress-mode=none`).
    pub fn stored() -> Self {
        Self {
            elf: Compression::None,
            ptx: Compression::None,
        }
    }

    /// What `fatbinary` does by default: PTX as a zstd-5 frame, cubins stored.
    pub fn nvcc_default() -> Self {
        Self {
            elf: Compression::None,
            ptx: Compression::Zstd { level: 5 },
        }
    }

    /// `fatbinary --compress-all` (mode `balance`): everything zstd level 5.
    pub fn all_zstd() -> Self {
        Self {
            elf: Compression::Zstd { level: 5 },
            ptx: Compression::Zstd { level: 5 },
        }
    }

    /// `--compress-all --compress-mode=speed`: everything as LZ4 blocks; the choice that the
    /// oldest drivers decode.
    pub fn all_lz4() -> Self {
        Self {
            elf: Compression::Lz4,
            ptx: Compression::Lz4,
        }
    }

    /// `--compress-all --compress-mode=size`: everything zstd level 19.
    pub fn size() -> Self {
        Self {
            elf: Compression::Zstd { level: 19 },
            ptx: Compression::Zstd { level: 19 },
        }
    }

    /// The compression used for entries of `kind`.
    pub fn for_kind(self, kind: EntryKind) -> Compression {
        match kind {
            EntryKind::Elf => self.elf,
            EntryKind::Ptx => self.ptx,
            EntryKind::LtoIr => Compression::None,
        }
    }
}

impl fmt::Display for CompressionChoice {
    /// `cubins zstd-19, PTX zstd-19`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cubins {}, PTX {}", self.elf, self.ptx)
    }
}

impl Default for CompressionChoice {
    fn default() -> Self {
        Self::nvcc_default()
    }
}

impl FromStr for CompressionChoice {
    type Err = Error;

    /// Accepts `none`/`stored`, `default`, `zstd`/`balance`, `lz4`/`speed`, `size`.
    /// Takes the words of [`COMPRESSION_WORDS`].
    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" | "stored" => Ok(Self::stored()),
            "default" => Ok(Self::nvcc_default()),
            "zstd" | "balance" => Ok(Self::all_zstd()),
            "lz4" | "speed" => Ok(Self::all_lz4()),
            "size" => Ok(Self::size()),
            _ => Err(Error::UnknownCompression(s.to_string())),
        }
    }
}

/// Every compression word archbuild takes, with its meaning: the one vocabulary of
/// `Build::compression`, `--compression`, `ARCHBUILD_COMPRESSION` and Cargo.toml.
pub const COMPRESSION_WORDS: &str = "`none` (stored), `default` (PTX zstd, cubins stored, as \
    nvcc), `speed` (all LZ4, for the oldest drivers; also `lz4`), `balance` (all zstd; also \
    `zstd`) or `size` (smallest)";

/// One entry of a fat binary container, borrowed from the input bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// Offset of the entry header within the input slice.
    pub offset: usize,
    pub kind: EntryKind,
    /// The header's arch with the `a`/`f` variant from the flags.
    pub arch: Arch,
    /// PTX: ISA major; ELF: `EI_VERSION` (1).
    pub version_major: u16,
    /// PTX: ISA minor; ELF: `EI_ABIVERSION` (8 for CUDA 13, 7 for CUDA 12).
    pub version_minor: u16,
    pub flags: u64,
    /// How the payload is stored; a zstd level is unknown when read and given as 0.
    pub compression: Compression,
    /// The raw stored bytes (the compressed stream if compressed), without padding where the
    /// real size is known (compressed size; ELF extent; PTX up to its NUL).
    pub payload: &'a [u8],
    /// Size of the image once decompressed (for stored entries: the payload's length).
    pub uncompressed_size: u64,
    /// The identifier string (`fatbinary --ident`), if any.
    pub identifier: Option<&'a str>,
    /// The options string (ptxas command line) when an options descriptor is present; `Some("")`
    /// for the empty descriptor every PTX entry needs (and sm_100+ ELF entries carry). `None`
    /// when there is no descriptor.
    pub options: Option<&'a str>,
    /// The `.nv.compat` copy that sm_100+ ELF entries carry (flag 0x1000000).
    pub compat: Option<&'a [u8]>,
    /// The u64 at +48: 0, except on nvcc's LTO-IR entries (meaning unknown); kept by `merge`.
    pub header_reserved: u64,
}

impl Entry<'_> {
    /// The build target this entry serves: ELF → `sm_XY`, PTX → `compute_XY`, LTO-IR →
    /// `lto_XY`.
    pub fn target(&self) -> Target {
        match self.kind {
            EntryKind::Elf => Target::cubin(self.arch),
            EntryKind::Ptx => Target::ptx(self.arch),
            EntryKind::LtoIr => Target::lto(self.arch),
        }
    }

    /// The ELF ABI version (`e_ident[EI_ABIVERSION]`) of a cubin entry: 8 for CUDA 13, 7 for
    /// CUDA 12 and older. Read from the stored cubin when it is stored, else from the header,
    /// which mirrors it; `None` for other kinds or when neither says.
    pub fn elf_abi_version(&self) -> Option<u8> {
        if self.kind != EntryKind::Elf {
            return None;
        }
        if self.compression == Compression::None && self.payload.starts_with(b"\x7fELF") {
            return self.payload.get(8).copied();
        }
        u8::try_from(self.version_minor).ok().filter(|&v| v != 0)
    }

    /// The PTX ISA version of a PTX entry (from the header, which mirrors `.version`).
    pub fn ptx_isa(&self) -> Option<PtxIsa> {
        match self.kind {
            EntryKind::Ptx => Some(PtxIsa::new(
                self.version_major.into(),
                self.version_minor.into(),
            )),
            _ => None,
        }
    }
}

/// One fat binary container: a 16-byte header and its entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Container<'a> {
    /// Offset of the container header within the input slice.
    pub offset: usize,
    /// Bytes the container spans (header included).
    pub len: usize,
    pub entries: Vec<Entry<'a>>,
    /// Entries of kinds this crate does not model (e.g. 0x100 `--concat` groups): `(offset, kind)`.
    /// They are skipped, not lost: `merge` refuses containers that have any.
    pub unknown: Vec<(usize, u16)>,
}

/// The arch an entry header names: SM number plus variant from the `a`/`f` flags.
pub(crate) fn arch_from_header(sm: u32, flags: u64) -> Arch {
    let variant = if flags & crate::layout::FLAG_ARCH_SPECIFIC != 0 {
        Variant::Arch
    } else if flags & crate::layout::FLAG_FAMILY_SPECIFIC != 0 {
        Variant::Family
    } else {
        Variant::Plain
    };
    Arch::new(ComputeCapability::from_sm(sm), variant)
}

/// The `a`/`f` flag bits for an arch.
pub(crate) fn variant_flags(arch: Arch) -> u64 {
    match arch.variant {
        Variant::Plain => 0,
        Variant::Arch => crate::layout::FLAG_ARCH_SPECIFIC,
        Variant::Family => crate::layout::FLAG_FAMILY_SPECIFIC,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compression_names_parse() {
        assert_eq!(
            "stored".parse::<CompressionChoice>().unwrap(),
            CompressionChoice::stored()
        );
        assert_eq!(
            "None".parse::<CompressionChoice>().unwrap(),
            CompressionChoice::stored()
        );
        assert_eq!(
            "default".parse::<CompressionChoice>().unwrap().ptx,
            Compression::Zstd { level: 5 }
        );
        assert_eq!(
            "balance".parse::<CompressionChoice>().unwrap(),
            CompressionChoice::all_zstd()
        );
        assert_eq!(
            "speed".parse::<CompressionChoice>().unwrap(),
            CompressionChoice::all_lz4()
        );
        assert_eq!(
            "size".parse::<CompressionChoice>().unwrap().elf,
            Compression::Zstd { level: 19 }
        );
        let err = "fast".parse::<CompressionChoice>().unwrap_err().to_string();
        assert!(err.contains("`fast`") && err.contains("`lz4`"), "{err}");
    }

    #[test]
    fn header_arch_carries_variant() {
        assert_eq!(arch_from_header(90, 0x100011).sm_name(), "90a");
        assert_eq!(arch_from_header(100, 0x200011).sm_name(), "100f");
        assert_eq!(arch_from_header(86, 0x11).sm_name(), "86");
        assert_eq!(variant_flags(arch_from_header(120, 0x100000)), 0x100000);
    }
}
