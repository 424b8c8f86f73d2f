//! The crate's one error type. Every message says what went wrong and names the fix, because
//! these errors surface at program start-up on a user's machine, far from the build.

use std::io;
use std::path::PathBuf;

/// Everything that can go wrong while checking, compiling or loading a fat binary.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// libcuda could not be loaded or initialised.
    #[error(
        "no CUDA driver: {detail}; install the NVIDIA driver (it provides libcuda.so.1) \
         or run on a machine with an NVIDIA GPU"
    )]
    NoDriver { detail: String },

    /// The driver works but sees no GPU.
    #[error("no CUDA GPU visible: {detail}; check `nvidia-smi` and CUDA_VISIBLE_DEVICES")]
    NoDevice { detail: String },

    /// An ordinal past the last visible GPU.
    #[error(
        "GPU {ordinal} does not exist: {count} GPU(s) visible; use an ordinal below {count} \
         or check CUDA_VISIBLE_DEVICES"
    )]
    NoSuchDevice { ordinal: usize, count: usize },

    /// A CUDA driver call failed; `code` is the `CUresult`.
    #[error("{op} on GPU {ordinal} failed with {name} ({code}){log}; {hint}")]
    Driver {
        op: &'static str,
        ordinal: usize,
        code: u32,
        name: String,
        /// The JIT error log, prefixed with `: ` when there is one.
        log: String,
        hint: String,
    },

    /// The embedded fat binary could not be parsed.
    #[error("cannot read the fat binary: {0}")]
    Fatbin(#[from] Box<archbuild_fatbin::Error>),

    /// The fat binary parsed but holds nothing the loader can use.
    #[error("the fat binary holds {detail}; {fix}")]
    NoImages { detail: String, fix: String },

    /// One image of the fat binary could not be extracted (bad compression, bad PTX).
    #[error("image [{index}] {target} of the fat binary: {source}")]
    Image {
        index: usize,
        target: String,
        #[source]
        source: Box<archbuild_fatbin::Error>,
    },

    /// A kernel the image loaded for this GPU does not contain.
    #[error("{gpu}: the loaded image {image} has no kernel `{kernel}`: {detail}")]
    KernelMissing {
        kernel: String,
        gpu: String,
        image: String,
        /// Which images have it, and the fix.
        detail: String,
    },

    /// A variant group that was never declared.
    #[error(
        "no variant group `{group}` is declared for this fat binary (declared: {declared}); \
         fix: pass the module's generated VARIANTS table to `FatBinary::with_variants`, or use \
         one of the declared names"
    )]
    UnknownVariantGroup { group: String, declared: String },

    /// The image loaded for this GPU has no variant of a group.
    #[error("{gpu}: {choice}; fix: build one of the group's kernels for this GPU's arch, or add a fallback kernel that every arch compiles")]
    NoVariant { gpu: String, choice: String },

    /// No image of the fat binary can run on this GPU.
    #[error("{gpu}: {reason}; {fix}")]
    NoImage {
        gpu: String,
        reason: String,
        fix: String,
    },

    /// The chosen PTX is newer than the driver can JIT and no suitable nvJitLink was found.
    #[error("{0}")]
    PtxTooNew(Box<PtxTooNew>),

    /// nvJitLink ran and failed.
    #[error(
        "nvJitLink {version} failed to compile {target} for {arch}: {call} returned {code}{log}; \
         check that the PTX is valid for {arch}, or add a cubin for this GPU to the fat binary"
    )]
    NvJitLink {
        version: String,
        target: String,
        arch: String,
        call: &'static str,
        code: i32,
        log: String,
    },

    /// A libnvJitLink could not be opened or lacks the functions archbuild calls.
    #[error(
        "nvJitLink at {} cannot be used: {detail}; point ARCHBUILD_NVJITLINK at a \
         libnvJitLink.so.13 (from `pip install nvidia-nvjitlink` or a CUDA toolkit), or unset it",
        path.display()
    )]
    NvJitLinkLoad { path: PathBuf, detail: String },

    /// The JIT cache directory or one of its files could not be used.
    #[error(
        "JIT cache {}: {action} failed: {source}; make the directory writable by you, point \
         ARCHBUILD_JIT_CACHE at another directory, or set it to `off`",
        path.display()
    )]
    Cache {
        path: PathBuf,
        action: &'static str,
        #[source]
        source: io::Error,
    },

    /// An environment variable holds a value archbuild does not accept.
    #[error("invalid {var} `{value}`: {detail}")]
    Env {
        var: &'static str,
        value: String,
        detail: String,
    },

    /// `ARCHBUILD_SIMULATED_GPUS` does not describe GPUs; `why` says which part is wrong.
    #[error(
        "invalid ARCHBUILD_SIMULATED_GPUS `{spec}`: {why}; write GPUs as compute capabilities \
         separated by commas, each optionally `:NAME`, then optionally `@DRIVER` (e.g. \
         `8.6,9.0@13000` or `7.5:RTX 2080,8.6@12.4`), or unset ARCHBUILD_SIMULATED_GPUS to use \
         the real driver"
    )]
    SimulatedGpus { spec: String, why: String },

    /// Preflight found GPUs that cannot run the fat binary; one line per GPU.
    #[error("{} GPU(s) cannot run this fat binary:\n  {}", failures.len(), failures.join("\n  "))]
    Preflight { failures: Vec<String> },
}

/// The details of [`Error::PtxTooNew`].
#[derive(Debug, thiserror::Error)]
#[error(
    "{gpu}: image {target} is PTX ISA {ptx_isa}, but the driver (CUDA {driver}) JIT-compiles \
     PTX only up to ISA {driver_max} and {nvjitlink}; fix: add a cubin for this GPU (add {cc} \
     to ARCHBUILD_ARCHS), or install nvJitLink from CUDA {needed} or newer (`pip install \
     nvidia-nvjitlink`, or set ARCHBUILD_NVJITLINK to its libnvJitLink.so), or update the \
     NVIDIA driver to one for CUDA {needed} or newer"
)]
pub struct PtxTooNew {
    /// "GPU 0 NVIDIA H100 80GB HBM3 (9.0)".
    pub gpu: String,
    pub target: String,
    pub cc: String,
    pub ptx_isa: String,
    pub driver: String,
    pub driver_max: String,
    /// The first CUDA version whose driver or nvJitLink compiles this PTX.
    pub needed: String,
    /// Why nvJitLink could not help: "no nvJitLink was found (…)" etc.
    pub nvjitlink: String,
}

impl Error {
    /// The `CUresult` of a failed driver call, e.g. 209 (`CUDA_ERROR_NO_BINARY_FOR_GPU`).
    pub fn driver_code(&self) -> Option<u32> {
        match self {
            Error::Driver { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// A driver-call error with the name and fix that belong to `code`.
    pub(crate) fn driver(
        op: &'static str,
        ordinal: usize,
        code: u32,
        name: String,
        log: &str,
    ) -> Self {
        let log = log.trim();
        Error::Driver {
            op,
            ordinal,
            code,
            name,
            log: if log.is_empty() {
                String::new()
            } else {
                format!(": {log}")
            },
            hint: hint_for(code).to_string(),
        }
    }
}

/// The `CUresult` codes archbuild reasons about (values from `cuda.h`).
pub mod cu {
    pub const INVALID_VALUE: u32 = 1;
    pub const NOT_INITIALIZED: u32 = 3;
    pub const NO_DEVICE: u32 = 100;
    pub const INVALID_DEVICE: u32 = 101;
    pub const INVALID_IMAGE: u32 = 200;
    pub const INVALID_CONTEXT: u32 = 201;
    pub const NO_BINARY_FOR_GPU: u32 = 209;
    pub const INVALID_PTX: u32 = 218;
    pub const JIT_COMPILER_NOT_FOUND: u32 = 221;
    pub const UNSUPPORTED_PTX_VERSION: u32 = 222;
    pub const JIT_COMPILATION_DISABLED: u32 = 223;
    pub const NOT_FOUND: u32 = 500;

    /// `cuGetErrorName` for the codes above, for messages made without a driver.
    pub fn name(code: u32) -> String {
        let s = match code {
            0 => "CUDA_SUCCESS",
            INVALID_VALUE => "CUDA_ERROR_INVALID_VALUE",
            NOT_INITIALIZED => "CUDA_ERROR_NOT_INITIALIZED",
            NO_DEVICE => "CUDA_ERROR_NO_DEVICE",
            INVALID_DEVICE => "CUDA_ERROR_INVALID_DEVICE",
            INVALID_IMAGE => "CUDA_ERROR_INVALID_IMAGE",
            INVALID_CONTEXT => "CUDA_ERROR_INVALID_CONTEXT",
            NO_BINARY_FOR_GPU => "CUDA_ERROR_NO_BINARY_FOR_GPU",
            INVALID_PTX => "CUDA_ERROR_INVALID_PTX",
            JIT_COMPILER_NOT_FOUND => "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
            UNSUPPORTED_PTX_VERSION => "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
            JIT_COMPILATION_DISABLED => "CUDA_ERROR_JIT_COMPILATION_DISABLED",
            NOT_FOUND => "CUDA_ERROR_NOT_FOUND",
            _ => return format!("CUresult {code}"),
        };
        s.to_string()
    }
}

/// The fix for a driver error code, as a lowercase fragment.
fn hint_for(code: u32) -> &'static str {
    match code {
        cu::NO_BINARY_FOR_GPU => {
            "no image in it runs on this GPU: add the GPU's compute capability to ARCHBUILD_ARCHS \
             (or add `+PTX` to the newest arch) and rebuild"
        }
        cu::UNSUPPORTED_PTX_VERSION => {
            "the PTX is newer than this driver can compile: add a cubin for this GPU, install \
             nvJitLink (ARCHBUILD_NVJITLINK), or update the NVIDIA driver"
        }
        cu::INVALID_PTX => {
            "the driver rejected the PTX (for example its .target is newer than the GPU): build \
             PTX for an arch at or below the GPU's compute capability"
        }
        cu::INVALID_IMAGE => "the image is damaged or not for CUDA: rebuild the fat binary",
        cu::JIT_COMPILATION_DISABLED => {
            "PTX JIT is disabled (CUDA_DISABLE_PTX_JIT): unset it or add a cubin for this GPU"
        }
        cu::NO_DEVICE | cu::INVALID_DEVICE => "check `nvidia-smi` and CUDA_VISIBLE_DEVICES",
        cu::INVALID_CONTEXT => {
            "use a stream of the context the module was loaded in (`Loader::load_raw_in` loads \
             into yours)"
        }
        cu::NOT_FOUND => {
            "the module has no kernel of that name: check the spelling; C++ kernels need their \
             mangled name unless declared `extern \"C\"`"
        }
        _ => "see the CUDA driver API documentation for this error code",
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
