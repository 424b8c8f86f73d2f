//! The crate's one error type. Every message is a lowercase fragment that says what was wrong,
//! where (byte offset within the input), what is accepted, and how to fix it.

use archbuild_arch::Arch;

/// Everything that can go wrong reading or writing fat binaries, cubins, PTX and host ELF files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input ends before a structure it declares.
    #[error(
        "truncated {what} at offset {offset}: needs {need} bytes, only {have} left; \
         the file is cut short or not a {what}, re-create or re-download it"
    )]
    Truncated {
        what: &'static str,
        offset: usize,
        need: u64,
        have: usize,
    },

    /// A fat binary container header is wrong.
    #[error("invalid fat binary container at offset {offset}: {reason}; {hint}")]
    BadContainer {
        offset: usize,
        reason: String,
        hint: &'static str,
    },

    /// An entry header inside a container is wrong.
    #[error("invalid fat binary entry at offset {offset}: {reason}; {hint}")]
    BadEntry {
        offset: usize,
        reason: String,
        hint: &'static str,
    },

    /// A compressed entry did not decompress to what its header says.
    #[error(
        "cannot decompress {compression} entry at offset {offset}: {reason}; \
         the fat binary is corrupt, rebuild it (or write it with `--compression none`)"
    )]
    Decompress {
        offset: usize,
        compression: &'static str,
        reason: String,
    },

    /// A header claims an image larger than this reader will allocate for its input.
    #[error(
        "entry at offset {offset} claims {claimed} uncompressed bytes from {stored} stored bytes, \
         more than the {cap}-byte limit for that input; the header is corrupt (refusing to allocate)"
    )]
    TooLarge {
        offset: usize,
        claimed: u64,
        stored: usize,
        cap: u64,
    },

    /// A compressor failed while writing.
    #[error(
        "{compression} compression of {what} failed: {reason}; write it with `--compression none`"
    )]
    Compress {
        compression: &'static str,
        what: String,
        reason: String,
    },

    /// The bytes are not a CUDA cubin (device ELF) or it is malformed.
    #[error("not a valid cubin{at}: {reason}; pass a cubin made by `nvcc -cubin` or `ptxas`")]
    BadCubin { at: String, reason: String },

    /// The bytes are not PTX text or a required directive is missing or malformed.
    #[error("not valid PTX{at}: {reason}; pass PTX made by `nvcc -ptx` (it starts with `.version` and `.target`)")]
    BadPtx { at: String, reason: String },

    /// A host ELF (object, executable, shared library) could not be parsed.
    #[error("cannot read host ELF file: {reason}; pass a `.o`, executable or `.so` built by nvcc")]
    BadHostElf { reason: String },

    /// An image declares a different target than the one it is added as.
    #[error(
        "{what} is for `{found}` but was added as `{declared}`; add it with arch `{found}` \
         or rebuild it for `{declared}`"
    )]
    ArchMismatch {
        what: String,
        declared: String,
        found: String,
    },

    /// Two different images for the same kind and arch.
    #[error(
        "conflicting {kind} images for `{target}`: {first} ({first_len} bytes) differs from {second} \
         ({second_len} bytes); keep only one of them (e.g. drop the duplicate arch from one shard)"
    )]
    Conflict {
        kind: &'static str,
        arch: Arch,
        /// nvcc's name of the slot: `sm_86`, `compute_90`.
        target: String,
        first: String,
        first_len: usize,
        second: String,
        second_len: usize,
    },

    /// A merge input holds an entry of a kind merge cannot carry (a `fatbinary --concat`
    /// group, or a kind newer than this reader).
    #[error(
        "cannot merge {input}: its entry at offset {offset} has kind {kind:#x}, which merge \
         cannot carry (it takes cubin, PTX and LTO-IR entries; 0x100 is a `fatbinary --concat` \
         group); rebuild it without `--concat`, or merge the fat binaries it was made from"
    )]
    MergeUnknownKind {
        /// The input's name: `input 0`, or the file it came from.
        input: String,
        offset: usize,
        kind: u16,
    },

    /// One container of a file does not read (`loadable_modules`); `location` names it.
    #[error("{location}: {source}")]
    InContainer {
        /// `container 2`, `.nv_fatbin container 0`.
        location: String,
        source: Box<Error>,
    },

    /// A file that reads and holds no CUDA image at all.
    #[error(
        "no CUDA images: no .nv_fatbin section and no fat binary, cubin or PTX inside; build it \
         with nvcc or `cargo archbuild compile`"
    )]
    NoImages,

    /// An image too large for the fat binary's 32-bit fields, or otherwise unrepresentable.
    #[error("cannot pack {what}: {reason}")]
    Unpackable { what: String, reason: String },

    /// A compression name that is not one of the accepted ones.
    #[error(
        "unknown compression `{0}`: use `none` (or `stored`), `default`, `zstd` (or `balance`), \
         `lz4` (or `speed`) or `size`"
    )]
    UnknownCompression(String),

    /// The bytes are none of the formats `read_any` understands.
    #[error(
        "unrecognised file ({len} bytes, starts with {head}): expected a fat binary, cubin, \
         PTX text, or an ELF object/executable/shared library with `.nv_fatbin`"
    )]
    UnknownFormat { len: usize, head: String },
}

impl Error {
    pub(crate) fn truncated(what: &'static str, offset: usize, need: u64, have: usize) -> Self {
        Error::Truncated {
            what,
            offset,
            need,
            have,
        }
    }

    pub(crate) fn bad_cubin(reason: impl Into<String>) -> Self {
        Error::BadCubin {
            at: String::new(),
            reason: reason.into(),
        }
    }

    pub(crate) fn bad_ptx(reason: impl Into<String>) -> Self {
        Error::BadPtx {
            at: String::new(),
            reason: reason.into(),
        }
    }

    /// Adds "at <location>" to cubin/PTX errors found inside a container.
    pub(crate) fn located(self, location: &str) -> Self {
        match self {
            Error::BadCubin { reason, .. } => Error::BadCubin {
                at: format!(" at {location}"),
                reason,
            },
            Error::BadPtx { reason, .. } => Error::BadPtx {
                at: format!(" at {location}"),
                reason,
            },
            other => other,
        }
    }
}
