//! The build cache's store: keys, verified entries and the optional remote tier all live in
//! `archbuild-store`, shared with the runtime's JIT cache. The build's namespaces are one enum
//! here, so an entry is never written under one spelling and looked up under another.

pub(crate) use archbuild_store::{Key, KeyBuilder, Store};

/// A namespace of the build cache: a folder of entries of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ns {
    /// PTX of a cicc job, under its preprocessed (or direct) key.
    Ptx,
    /// A cubin, under its ptxas key.
    Cubin,
    /// "ptxas on the PTX stored under this cicc key" → the cubin's key.
    CubinAlias,
    /// What a compile printed, beside its output (local tier only).
    Log,
    /// The host-side stub of a library source's cicc job.
    Stub,
    /// The module ID cicc generated for a library source.
    ModuleId,
    /// A host library's host object.
    HostObj,
    /// Direct mode's manifests: the inputs' state → the result's key.
    Deps,
    /// A packed output's stamp (the no-op shortcut; local tier only).
    Pack,
    /// A toolkit's `nvcc --version` text.
    Toolkit,
    /// The ptxas flags `nvcc --dryrun` gives for a build's flags (`prepare/ptxas_line.rs`).
    PtxasLine,
}

impl Ns {
    /// The folder name, as caches written by earlier versions have it.
    pub(crate) const fn dir(self) -> &'static str {
        match self {
            Ns::Ptx => "ptx",
            Ns::Cubin => "cubin",
            Ns::CubinAlias => "cubin-alias",
            Ns::Log => "log",
            Ns::Stub => "stub",
            Ns::ModuleId => "module-id",
            Ns::HostObj => "host-obj",
            Ns::Deps => "deps",
            Ns::Pack => "pack",
            Ns::Toolkit => "toolkit",
            Ns::PtxasLine => "ptxas-line",
        }
    }
}
