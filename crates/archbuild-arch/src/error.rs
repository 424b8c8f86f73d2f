//! The crate's one error type. Every message names the offending input, where it came from
//! (`origin`: an environment variable, a flag, a manifest key), what is accepted, and the fix,
//! with a "did you mean" when a close accepted spelling exists. Messages are lowercase
//! fragments so callers can prefix them (`error: ...`).

use crate::cc::{ComputeCapability, Variant};

/// The accepted forms, listed once so every message says the same thing.
pub(crate) const ACCEPTED_FORMS: &str =
    "`8.6`, `86`, `sm_86`, `compute_86`, `8.6+PTX`, `86-real`, \
`86-virtual`, `lto_90`, `9.0+LTO`, `9.0a`, `sm_90a`, `100f`, a generation name (`Turing`, `Ampere`, `Ada`, `Hopper`, \
`Blackwell`, ...), `native`, `all` or `all-major`";

/// Errors from parsing arch lists, policies and simulated-GPU descriptions.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The list had no entries at all.
    #[error(
        "empty arch list in {origin}: name at least one architecture, e.g. `8.6`, \
         `7.5 8.6 8.9+PTX` or `native` (accepted forms: {forms})",
        forms = ACCEPTED_FORMS
    )]
    EmptyList { origin: String },

    /// An entry matched no accepted form.
    #[error(
        "unknown arch `{input}` in {origin}{}: accepted forms are {forms}; fix or remove the entry \
         (see docs/arch-lists.md)",
        did_you_mean(suggestion),
        forms = ACCEPTED_FORMS
    )]
    UnknownArch {
        input: String,
        origin: String,
        suggestion: Option<String>,
    },

    /// The entry is well formed but names a compute capability NVIDIA never shipped.
    #[error(
        "`{input}` in {origin} names compute capability {cc}, which no NVIDIA GPU has{}: \
         known compute capabilities are {known}; use one of them (a newer one is accepted when \
         the CUDA toolkit in use lists it)",
        did_you_mean(suggestion)
    )]
    UnknownComputeCapability {
        input: String,
        origin: String,
        cc: ComputeCapability,
        known: String,
        suggestion: Option<String>,
    },

    /// `a` below 9.0 or `f` below 10.0.
    #[error(
        "`{input}` in {origin} asks for the {} variant of {cc}, but {}; use `{cc}`{}",
        variant_name(*variant),
        variant_rule(*variant),
        variant_alternative(*variant)
    )]
    VariantUnavailable {
        input: String,
        origin: String,
        variant: Variant,
        cc: ComputeCapability,
    },

    /// LTO-IR asked for in a list whose tool has no way to say it (CMake's, PyTorch's,
    /// `CUDA_COMPUTE_CAP`'s).
    #[error(
        "`{input}` in {origin} asks for LTO-IR, which a {dialect} list cannot say (only \
         archbuild's own lists and nvcc's names have it): move the LTO-IR to ARCHBUILD_ARCHS or \
         `archs` in [package.metadata.archbuild], as `9.0+LTO` (cubin and LTO-IR) or `lto_90` \
         (LTO-IR alone), and keep to its tool's forms there"
    )]
    LtoInForeignList {
        input: String,
        origin: String,
        dialect: String,
    },

    /// `native` without any visible GPU.
    #[error(
        "`native` in {origin} means the GPUs of this machine, but none is visible (no GPU or no \
         driver found): list the architectures instead, e.g. `8.6` or `7.5 8.6 8.9+PTX`"
    )]
    NoVisibleDevices { origin: String },

    /// `all` / `all-major` without the toolkit's list.
    #[error(
        "`{word}` in {origin} means {} the CUDA toolkit can build, but the toolkit's list \
         (`nvcc --list-gpu-code`) is not available: make nvcc findable (CUDA_PATH or PATH) or \
         list the architectures instead, e.g. `7.5 8.0 8.6 8.9 9.0+PTX`",
        if word.eq_ignore_ascii_case("all") { "every architecture" } else { "every major architecture" }
    )]
    NoToolkitList { word: String, origin: String },

    /// A simulated-GPU description (`ARCHBUILD_SIMULATED_GPUS`, `--fleet`) that does not parse.
    #[error(
        "invalid {origin} `{spec}`: {why}; write GPUs as compute capabilities separated by \
         commas, each optionally `:NAME`, then optionally `@DRIVER` (e.g. `8.6,9.0@13000` or \
         `7.5:RTX 2080,8.6@12.4`)"
    )]
    SimulatedGpus {
        origin: String,
        spec: String,
        /// What is wrong with which part.
        why: String,
    },

    /// A fleet (`ARCHBUILD_FLEET`, Cargo.toml's `fleet`) that does not parse.
    #[error(
        "invalid {origin} `{spec}`: {why}; write each GPU of the fleet as `<compute \
         capability>@<driver CUDA version>` (the version `nvidia-smi` shows), separated by \
         commas, e.g. `7.5@12.4, 8.6@13.0`, or `native` for this machine's GPUs and driver"
    )]
    Fleet {
        origin: String,
        spec: String,
        /// What is wrong with which part.
        why: String,
    },

    /// An unknown selection policy name.
    #[error(
        "unknown selection policy {}{}: use `prefer-cubin` (default), `prefer-ptx`, \
         `cubin-only` or `force-ptx`",
        quoted_or_empty(input),
        did_you_mean(suggestion)
    )]
    UnknownPolicy {
        input: String,
        suggestion: Option<String>,
    },
}

fn did_you_mean(suggestion: &Option<String>) -> String {
    match suggestion {
        Some(s) => format!(" (did you mean `{s}`?)"),
        None => String::new(),
    }
}

fn quoted_or_empty(input: &str) -> String {
    if input.trim().is_empty() {
        "(empty)".to_string()
    } else {
        format!("`{input}`")
    }
}

fn variant_name(v: Variant) -> &'static str {
    match v {
        Variant::Arch => "arch-specific `a`",
        Variant::Family => "family-specific `f`",
        Variant::Plain => "plain",
    }
}

fn variant_rule(v: Variant) -> &'static str {
    match v {
        Variant::Arch => "`a` targets exist only from compute capability 9.0 on",
        Variant::Family => "`f` targets exist only from compute capability 10.0 on (CUDA 12.9+)",
        Variant::Plain => "plain targets exist for every compute capability",
    }
}

fn variant_alternative(v: Variant) -> &'static str {
    match v {
        Variant::Arch => " or an `a` target of 9.0 or newer, such as `9.0a`",
        Variant::Family => " or an `f` target of 10.0 or newer, such as `10.0f`",
        Variant::Plain => "",
    }
}
