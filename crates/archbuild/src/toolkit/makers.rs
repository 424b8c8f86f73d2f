//! A build's toolkits by what they make (`docs/build.md` "Toolkit versions"): the build's own,
//! the one that makes the PTX images (`ptx-toolkit`) and the one that builds the archs the
//! build's cannot (`legacy-toolkit`). Whatever a build holds per toolkit (the version asked
//! for, the toolkit found, its fingerprint, a job runner's side) is one [`ByMaker`] keyed by
//! [`Maker`], never three parallel fields.

use std::ops::{Index, IndexMut};

use archbuild_arch::{Target, TargetKind};

use crate::toolkit::nvcc::Toolkit;

/// Which toolkit runs a job: the build's; for the PTX images of a build with a PTX toolkit
/// (`ptx-toolkit`), that one, in cicc jobs of their own (a cubin's PTX still comes from the
/// build's toolkit); for the targets the build's toolkit cannot build, the legacy toolkit
/// (`legacy-toolkit`), cicc and ptxas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Maker {
    Build,
    Ptx,
    Legacy,
}

impl Maker {
    /// The makers other than the build's, in the order keys and records list them.
    pub(crate) const OTHERS: [Maker; 2] = [Maker::Ptx, Maker::Legacy];

    /// The `[package.metadata.archbuild]` key that asks for this maker's version; also its
    /// label in cache keys.
    pub(crate) fn setting(self) -> &'static str {
        match self {
            Maker::Build => "toolkit",
            Maker::Ptx => "ptx-toolkit",
            Maker::Legacy => "legacy-toolkit",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One value per maker.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ByMaker<T>([T; 3]);

impl<T> Index<Maker> for ByMaker<T> {
    type Output = T;
    fn index(&self, m: Maker) -> &T {
        &self.0[m.index()]
    }
}

impl<T> IndexMut<Maker> for ByMaker<T> {
    fn index_mut(&mut self, m: Maker) -> &mut T {
        &mut self.0[m.index()]
    }
}

impl<T> ByMaker<T> {
    /// Each maker's value, made by `f`.
    pub(crate) fn from_fn(mut f: impl FnMut(Maker) -> T) -> Self {
        Self([f(Maker::Build), f(Maker::Ptx), f(Maker::Legacy)])
    }
}

/// A build's toolkits: its own, and for the other makers the version the build asks for (as
/// written: what a package's records are keyed by, since a dependent has no toolkit to
/// fingerprint) and the toolkit of that version when it is not the build's own release.
#[derive(Debug, Clone)]
pub(crate) struct Toolkits {
    main: Toolkit,
    asked: ByMaker<Option<String>>,
    found: ByMaker<Option<Toolkit>>,
}

impl Toolkits {
    /// The build's toolkit alone.
    pub(crate) fn new(main: Toolkit) -> Self {
        Self {
            main,
            asked: ByMaker::default(),
            found: ByMaker::default(),
        }
    }

    /// With `maker`'s version as asked, and its toolkit when it is not the build's.
    pub(crate) fn with(
        mut self,
        maker: Maker,
        asked: Option<String>,
        found: Option<Toolkit>,
    ) -> Self {
        debug_assert_ne!(maker, Maker::Build, "the build's toolkit is `new`'s");
        self.asked[maker] = asked;
        self.found[maker] = found;
        self
    }

    /// The build's toolkit.
    pub(crate) fn main(&self) -> &Toolkit {
        &self.main
    }

    /// The toolkit of `maker`: its own where it has one, else the build's.
    pub(crate) fn of(&self, maker: Maker) -> &Toolkit {
        self.found(maker).unwrap_or(&self.main)
    }

    /// The toolkit of another maker, when it is not the build's.
    pub(crate) fn found(&self, maker: Maker) -> Option<&Toolkit> {
        self.found[maker].as_ref()
    }

    /// The versions the build asks for, as written.
    pub(crate) fn asked(&self) -> &ByMaker<Option<String>> {
        &self.asked
    }

    /// The other makers' own toolkits, in [`Maker::OTHERS`]' order.
    pub(crate) fn others(&self) -> impl Iterator<Item = (Maker, &Toolkit)> {
        Maker::OTHERS
            .into_iter()
            .filter_map(|m| self.found(m).map(|t| (m, t)))
    }

    /// Whether the legacy toolkit builds `t`: one the build's toolkit cannot build.
    pub(crate) fn by_legacy(&self, t: Target) -> bool {
        self.found(Maker::Legacy)
            .is_some_and(|l| !self.main.can_build(t) && l.can_build(t))
    }

    /// Which toolkit makes target `t`: the legacy toolkit what the build's cannot build, the
    /// PTX toolkit the PTX images, the build's toolkit the rest.
    pub(crate) fn maker(&self, t: Target) -> Maker {
        match (self.by_legacy(t), t.kind, self.found(Maker::Ptx)) {
            (true, _, _) => Maker::Legacy,
            (false, TargetKind::Ptx, Some(_)) => Maker::Ptx,
            _ => Maker::Build,
        }
    }

    /// Checks every target: the legacy toolkit's are its own; the rest, the build toolkit's
    /// (its error names the fix).
    pub(crate) fn check_targets(&self, targets: &[Target], origin: &str) -> crate::Result<()> {
        let main: Vec<_> = targets
            .iter()
            .copied()
            .filter(|t| !self.by_legacy(*t))
            .collect();
        self.main.check_targets(&main, origin)
    }
}
