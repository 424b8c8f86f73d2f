//! Arch lists: what the user asks to build (`"7.5 8.6 8.9+PTX"`, `"Ampere;Hopper"`, `native`),
//! resolved into a sorted, deduplicated set of targets with one canonical display form and the
//! nvcc `-gencode` flags that build it.
//!
//! Resolution of `native`, `all` and `all-major` needs facts from outside (the visible GPUs,
//! the toolkit's list); the caller passes them in a [`ResolveContext`] so this crate stays pure.

use std::fmt;
use std::str::FromStr;

use crate::cc::{Arch, ComputeCapability, Target, TargetKind, Variant};
use crate::error::Error;
use crate::parse::{self, Token, TokenError};
use crate::suggest;
use crate::tables;

/// Where a list came from and the outside facts its words need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolveContext<'a> {
    /// Where the list came from, named in errors: `ARCHBUILD_ARCHS`, `--archs`,
    /// `Cargo.toml [package.metadata.archbuild] archs`.
    pub source: &'a str,
    /// The compute capabilities of the visible GPUs, for `native`.
    pub visible_devices: Option<&'a [ComputeCapability]>,
    /// What `nvcc --list-gpu-code` lists, for `all` and `all-major`.
    pub toolkit_archs: Option<&'a [Arch]>,
}

impl<'a> ResolveContext<'a> {
    /// A context with no devices and no toolkit: `native`/`all`/`all-major` will be errors.
    pub fn new(source: &'a str) -> Self {
        Self {
            source,
            visible_devices: None,
            toolkit_archs: None,
        }
    }

    /// The visible GPUs, for `native`.
    pub fn with_devices(self, devices: &'a [ComputeCapability]) -> Self {
        Self {
            visible_devices: Some(devices),
            ..self
        }
    }

    /// The toolkit's buildable archs, for `all` and `all-major`.
    pub fn with_toolkit(self, archs: &'a [Arch]) -> Self {
        Self {
            toolkit_archs: Some(archs),
            ..self
        }
    }
}

/// A sorted, deduplicated set of build targets.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ArchList {
    targets: Vec<Target>,
}

impl ArchList {
    /// Parses a list in any accepted dialect; entries are separated by `;`, `,` or whitespace.
    pub fn parse(input: &str, ctx: &ResolveContext) -> Result<ArchList, Error> {
        let origin = ctx.source;
        let extra_known = ctx.toolkit_archs.unwrap_or(&[]);
        let mut targets = Vec::new();
        let mut any = false;
        for token in input.split(|c: char| c == ';' || c == ',' || c.is_whitespace()) {
            if token.is_empty() {
                continue;
            }
            any = true;
            match parse::parse_token(token, extra_known) {
                Ok(Token::Targets(t)) => targets.extend(t),
                Ok(Token::Native) => targets.extend(native(ctx)?),
                Ok(Token::All) => targets.extend(all(ctx, token, false)?),
                Ok(Token::AllMajor) => targets.extend(all(ctx, token, true)?),
                Err(e) => return Err(token_error(token, origin, e)),
            }
        }
        if !any {
            return Err(Error::EmptyList {
                origin: origin.to_string(),
            });
        }
        Ok(Self::from_targets(targets))
    }

    /// A list of exactly these targets (sorted, duplicates removed).
    pub fn from_targets(targets: impl IntoIterator<Item = Target>) -> ArchList {
        let mut targets: Vec<Target> = targets.into_iter().collect();
        targets.sort();
        targets.dedup();
        Self { targets }
    }

    /// The targets in order: by arch, cubin before PTX.
    pub fn targets(&self) -> &[Target] {
        &self.targets
    }

    /// The targets' names, in the list's order.
    ///
    /// ```
    /// use archbuild_arch::{ArchList, ResolveContext};
    /// let list = ArchList::parse("8.6 8.9+PTX", &ResolveContext::new("test")).unwrap();
    /// assert_eq!(list.target_names(), ["sm_86", "sm_89", "compute_89"]);
    /// ```
    pub fn target_names(&self) -> Vec<String> {
        self.targets.iter().map(Target::to_string).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    pub fn len(&self) -> usize {
        self.targets.len()
    }

    pub fn contains(&self, target: Target) -> bool {
        self.targets.binary_search(&target).is_ok()
    }

    /// The archs built as cubins (`sm_XY`).
    pub fn cubins(&self) -> impl Iterator<Item = Arch> + '_ {
        self.of_kind(TargetKind::Cubin)
    }

    /// The archs built as PTX (`compute_XY`).
    pub fn ptx(&self) -> impl Iterator<Item = Arch> + '_ {
        self.of_kind(TargetKind::Ptx)
    }

    fn of_kind(&self, kind: TargetKind) -> impl Iterator<Item = Arch> + '_ {
        self.targets
            .iter()
            .filter(move |t| t.kind == kind)
            .map(|t| t.arch)
    }

    /// nvcc flags, one per target: `-gencode=arch=compute_86,code=sm_86` for a cubin,
    /// `-gencode=arch=compute_89,code=compute_89` for PTX.
    pub fn gencode_flags(&self) -> Vec<String> {
        self.targets
            .iter()
            .map(|t| format!("-gencode=arch=compute_{},code={}", t.arch.sm_name(), t))
            .collect()
    }

    /// Every target of either list.
    pub fn union(&self, other: &ArchList) -> ArchList {
        Self::from_targets(self.targets.iter().chain(&other.targets).copied())
    }
}

/// `native`: every visible device's CC as a cubin, PTX for the highest, exactly what PyTorch
/// does for an empty `TORCH_CUDA_ARCH_LIST`.
fn native(ctx: &ResolveContext) -> Result<Vec<Target>, Error> {
    let devices = ctx.visible_devices.unwrap_or(&[]);
    let highest = devices
        .iter()
        .max()
        .ok_or_else(|| Error::NoVisibleDevices {
            origin: ctx.source.to_string(),
        })?;
    let mut out: Vec<Target> = devices
        .iter()
        .map(|cc| Target::cubin(Arch::new(*cc, Default::default())))
        .collect();
    out.push(Target::ptx(Arch::new(*highest, Default::default())));
    Ok(out)
}

/// `all` / `all-major` with nvcc's meaning (checked against nvcc 13.5 `--dryrun`): cubins for
/// every listed arch (`all`) or for the X.0 ones plus the oldest (`all-major`), and PTX for
/// the highest X.0 arch ("the highest major virtual architecture": compute_120, not 121).
fn all(ctx: &ResolveContext, word: &str, major_only: bool) -> Result<Vec<Target>, Error> {
    let listed = ctx.toolkit_archs.unwrap_or(&[]);
    // nvcc's `all` builds plain targets only, even from a list (like ptxas's) with `a`/`f`.
    let mut archs: Vec<Arch> = listed
        .iter()
        .copied()
        .filter(|a| a.variant == Variant::Plain)
        .collect();
    archs.sort();
    archs.dedup();
    let no_list = || Error::NoToolkitList {
        word: word.to_string(),
        origin: ctx.source.to_string(),
    };
    let oldest = *archs.first().ok_or_else(no_list)?;
    let highest_major = archs
        .iter()
        .rev()
        .find(|a| a.cc.minor == 0)
        .or(archs.last())
        .copied()
        .ok_or_else(no_list)?;
    let mut out: Vec<Target> = archs
        .iter()
        .filter(|a| !major_only || a.cc.minor == 0 || **a == oldest)
        .map(|a| Target::cubin(*a))
        .collect();
    out.push(Target::ptx(highest_major));
    Ok(out)
}

fn token_error(token: &str, origin: &str, e: TokenError) -> Error {
    let input = token.to_string();
    let origin = origin.to_string();
    match e {
        TokenError::Unknown => Error::UnknownArch {
            suggestion: suggest::suggest_arch(token),
            input,
            origin,
        },
        TokenError::UnknownCc { cc, nearest } => Error::UnknownComputeCapability {
            suggestion: nearest.map(|n| parse::replace_number(token, &n)),
            known: known_list(),
            input,
            origin,
            cc,
        },
        TokenError::Variant { cc, variant } => Error::VariantUnavailable {
            input,
            origin,
            variant,
            cc,
        },
    }
}

fn known_list() -> String {
    tables::shipped_ccs()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for ArchList {
    /// Canonical form, entries separated by spaces: `8.6` for a cubin, `compute_86` for PTX
    /// alone, `8.6+PTX` for both, with `a`/`f` suffixes (`9.0a`, `compute_100f`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        let mut i = 0;
        while i < self.targets.len() {
            let t = self.targets[i];
            let next_is_ptx_of_same = self.targets.get(i + 1).is_some_and(|n| {
                n.arch == t.arch && t.kind == TargetKind::Cubin && n.kind == TargetKind::Ptx
            });
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            match (t.kind, next_is_ptx_of_same) {
                (TargetKind::Cubin, true) => {
                    write!(f, "{}+PTX", t.arch)?;
                    i += 1;
                }
                (TargetKind::Cubin, false) => write!(f, "{}", t.arch)?,
                (TargetKind::Ptx, _) => write!(f, "{t}")?,
            }
            i += 1;
        }
        Ok(())
    }
}

impl FromStr for ArchList {
    type Err = Error;

    /// Parses with `ResolveContext::new("arch list")`: no devices, no toolkit.
    fn from_str(s: &str) -> Result<Self, Error> {
        ArchList::parse(s, &ResolveContext::new("arch list"))
    }
}
