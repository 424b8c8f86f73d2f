//! Reading and writing NVIDIA fat binaries, the container that `nvcc`/`fatbinary` produce,
//! `cuobjdump` lists and the CUDA driver's `cuModuleLoadData` loads.
//!
//! - [`FatbinWriter`] packs cubins, PTX and LTO-IR (stored, zstd or LZ4 per entry kind) into
//!   deterministic bytes; [`merge`] combines fat binaries (e.g. CI shards) into the same bytes.
//! - [`read_fatbin`] reads one or several concatenated containers zero-copy; [`Entry::data`]
//!   decompresses on request with bounded allocation.
//! - [`cubin::parse_cubin`], [`ptx::parse_ptx`] and [`host::scan_host_elf`] read cubins, PTX
//!   headers and fat binaries embedded in `.o` files, executables and shared libraries;
//!   [`ptx_params::entry_params`] reads each kernel's parameter layout from its PTX;
//!   [`scan_embedded`] finds fat binaries embedded as plain bytes (`include_bytes!`);
//!   [`read_any`] lists the images of any of these uniformly; [`loadable_modules`] splits any
//!   of them into the containers the driver loads one by one.
//!
//! Every reader takes `&[u8]`, checks each offset and size, and returns an [`Error`] instead of
//! panicking. The byte layout is described in `docs/fatbin.md`.

mod compress;
pub mod cubin;
mod embed;
mod encode;
mod error;
pub mod host;
mod inspect;
mod layout;
mod loadable;
mod merge;
mod model;
pub mod ptx;
pub mod ptx_params;
mod reader;
mod scan;
mod writer;

pub use compress::{writers, Writers};
pub use embed::{embedded_c_source, embedded_relocatable_c_source};
pub use error::Error;
pub use inspect::{detect, read_any, read_any_with, Detail, FileKind, ImageRecord};
pub use loadable::{loadable_modules, LoadableModule};
pub use merge::{merge, merge_named};
pub use model::{Compression, CompressionChoice, Container, Entry, EntryKind, COMPRESSION_WORDS};
pub use reader::read_fatbin;
pub use scan::scan_embedded;
pub use writer::FatbinWriter;

/// Re-exported so callers need no direct dependency to name the arch types used here.
pub use archbuild_arch::{Arch, ComputeCapability, PtxIsa, Target, TargetKind, Variant};
