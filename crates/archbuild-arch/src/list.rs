//! Arch lists: what the user asks to build (`"7.5 8.6 8.9+PTX"`, `"Ampere;Hopper"`, `native`),
//! resolved into a sorted, deduplicated set of targets with one canonical display form and the
//! nvcc `-gencode` flags that build it.
//!
//! Resolution of `native`, `all` and `all-major` needs facts from outside (the visible GPUs,
//! the toolkit's list); the caller answers them lazily through [`ListFacts`] (`resolve`), or
//! passes them up front in a [`ResolveContext`] (`parse`), so this crate stays pure.

use std::fmt;
use std::str::FromStr;

use crate::cc::{Arch, Target, TargetKind};
use crate::error::Error;
use crate::resolve::{self, FactsNeeded, ListFacts, ResolveContext};

/// A sorted, deduplicated set of build targets.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ArchList {
    targets: Vec<Target>,
}

impl ArchList {
    /// Parses a list in any accepted dialect; entries are separated by `;`, `,` or whitespace.
    /// `native`, `all` and `all-major` take their facts from `ctx`.
    pub fn parse(input: &str, ctx: &ResolveContext) -> Result<ArchList, Error> {
        resolve::resolve(input, ctx.source, &mut &*ctx).map(Self::from_targets)
    }

    /// Parses a list as [`ArchList::parse`] does, asking `facts` for the visible GPUs only when
    /// an entry is `native`, and for the toolkit's list only for `all`/`all-major` or a compute
    /// capability newer than this crate's tables. `origin` names where the list came from in
    /// errors. A fact's error is returned as it is.
    pub fn resolve<F: ListFacts>(
        input: &str,
        origin: &str,
        facts: &mut F,
    ) -> Result<Self, F::Error> {
        resolve::resolve(input, origin, facts).map(Self::from_targets)
    }

    /// Checks a list's syntax without any outside fact, and says which facts resolving it
    /// would need: for tools that record a list for later (a CI workflow, a new project's
    /// Cargo.toml) on a machine other than the one that will build it.
    ///
    /// ```
    /// use archbuild_arch::ArchList;
    /// let needed = ArchList::check("8.6 native", "--archs").unwrap();
    /// assert!(needed.devices && !needed.toolkit);
    /// assert!(ArchList::check("Ampere", "--archs").unwrap().none());
    /// assert!(ArchList::check("8.6 nativ", "--archs").is_err());
    /// ```
    pub fn check(input: &str, origin: &str) -> Result<FactsNeeded, Error> {
        resolve::check(input, origin)
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

    /// The archs built as LTO-IR (`lto_XY`).
    pub fn lto(&self) -> impl Iterator<Item = Arch> + '_ {
        self.of_kind(TargetKind::LtoIr)
    }

    fn of_kind(&self, kind: TargetKind) -> impl Iterator<Item = Arch> + '_ {
        self.targets
            .iter()
            .filter(move |t| t.kind == kind)
            .map(|t| t.arch)
    }

    /// nvcc flags, one per target: `-gencode=arch=compute_86,code=sm_86` for a cubin,
    /// `-gencode=arch=compute_89,code=compute_89` for PTX, `-gencode=arch=compute_90,code=lto_90`
    /// for LTO-IR.
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

impl fmt::Display for ArchList {
    /// Canonical form, entries separated by spaces: `8.6` for a cubin, `compute_86` for PTX
    /// alone, `lto_90` for LTO-IR alone, `8.6+PTX`, `9.0+LTO` and `9.0+PTX+LTO` for a cubin with
    /// the others, with `a`/`f` suffixes (`9.0a`, `compute_100f`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut i = 0;
        while i < self.targets.len() {
            let t = self.targets[i];
            if i > 0 {
                f.write_str(" ")?;
            }
            i += 1;
            if t.kind != TargetKind::Cubin {
                write!(f, "{t}")?;
                continue;
            }
            write!(f, "{}", t.arch)?;
            // The same arch's PTX and LTO-IR follow its cubin in the sorted list.
            while let Some(n) = self.targets.get(i).filter(|n| n.arch == t.arch) {
                f.write_str(match n.kind {
                    TargetKind::Ptx => "+PTX",
                    _ => "+LTO",
                })?;
                i += 1;
            }
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
