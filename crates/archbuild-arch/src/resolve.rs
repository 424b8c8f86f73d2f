//! Resolution of an arch list against the outside facts its words need, asked lazily: the
//! visible GPUs only when an entry is `native`, the toolkit's list only for `all`/`all-major`
//! or for a compute capability newer than this crate's tables. The caller answers through
//! [`ListFacts`] (a driver query, `nvcc --list-gpu-code`, or fixed values in tests), so this
//! crate stays free of I/O while no caller has to guess from the text what a list will need.

use crate::cc::{Arch, ComputeCapability, Target, Variant};
use crate::error::Error;
use crate::parse::{self, Token, TokenError};
use crate::{suggest, tables};

/// The facts outside the arch rules that some words of a list need. The resolver asks each
/// at most once per list, and only when an entry needs it.
pub trait ListFacts {
    /// The caller's error; an arch-list error converts into it.
    type Error: From<Error>;

    /// The compute capabilities of this machine's visible GPUs, for `native`; empty when there
    /// is none (the resolver then reports [`Error::NoVisibleDevices`]).
    fn devices(&mut self) -> Result<Vec<ComputeCapability>, Self::Error>;

    /// What the CUDA toolkit in use can build (`nvcc --list-gpu-code`), for `all`/`all-major`
    /// and to accept a compute capability newer than this crate's tables; `None` when there is
    /// no toolkit (`all` is then [`Error::NoToolkitList`]).
    fn toolkit_archs(&mut self) -> Result<Option<Vec<Arch>>, Self::Error>;
}

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

/// Which outside facts a list's entries need, from its words alone (no facts asked).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FactsNeeded {
    /// An entry is `native`: the list depends on this machine's GPUs.
    pub devices: bool,
    /// An entry is `all` or `all-major`: the list depends on the toolkit.
    pub toolkit: bool,
}

impl FactsNeeded {
    /// Whether the list means the same on every machine and with every toolkit.
    pub fn none(self) -> bool {
        !self.devices && !self.toolkit
    }
}

/// The entries of a list: separated by `;`, `,` or whitespace.
fn entries(input: &str) -> impl Iterator<Item = &str> {
    input
        .split(|c: char| c == ';' || c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
}

/// The targets of `input` (unsorted, possibly repeated), asking `facts` as entries need them;
/// `ArchList::resolve` makes the list.
pub(crate) fn resolve<F: ListFacts>(
    input: &str,
    origin: &str,
    facts: &mut F,
) -> Result<Vec<Target>, F::Error> {
    let mut asked = Asked::default();
    let mut targets = Vec::new();
    let mut any = false;
    for token in entries(input) {
        any = true;
        let parsed = match parse::parse_token(token, &[]) {
            // A CC newer than the tables is still accepted when the toolkit lists it.
            Err(TokenError::UnknownCc { .. }) => match asked.toolkit(facts)? {
                Some(known) => parse::parse_token(token, known),
                None => parse::parse_token(token, &[]),
            },
            other => other,
        };
        match parsed {
            Ok(Token::Targets(t)) => targets.extend(t),
            Ok(Token::Native) => targets.extend(native(asked.devices(facts)?, origin)?),
            Ok(Token::All) => targets.extend(all(asked.toolkit(facts)?, token, origin, false)?),
            Ok(Token::AllMajor) => targets.extend(all(asked.toolkit(facts)?, token, origin, true)?),
            Err(e) => return Err(token_error(token, origin, e).into()),
        }
    }
    if !any {
        return Err(Error::EmptyList {
            origin: origin.to_string(),
        }
        .into());
    }
    Ok(targets)
}

/// Which facts `input` needs, checking every entry but asking nothing (`ArchList::check`).
pub(crate) fn check(input: &str, origin: &str) -> Result<FactsNeeded, Error> {
    let mut needed = FactsNeeded::default();
    let mut any = false;
    for token in entries(input) {
        any = true;
        match parse::parse_token(token, &[]) {
            Ok(Token::Targets(_)) => {}
            Ok(Token::Native) => needed.devices = true,
            Ok(Token::All | Token::AllMajor) => needed.toolkit = true,
            Err(e) => return Err(token_error(token, origin, e)),
        }
    }
    if !any {
        return Err(Error::EmptyList {
            origin: origin.to_string(),
        });
    }
    Ok(needed)
}

/// The facts already asked for this list, so a list that says `native` twice asks once.
#[derive(Default)]
struct Asked {
    devices: Option<Vec<ComputeCapability>>,
    toolkit: Option<Option<Vec<Arch>>>,
}

impl Asked {
    fn devices<F: ListFacts>(&mut self, facts: &mut F) -> Result<&[ComputeCapability], F::Error> {
        if self.devices.is_none() {
            self.devices = Some(facts.devices()?);
        }
        Ok(self.devices.as_deref().unwrap_or(&[]))
    }

    fn toolkit<F: ListFacts>(&mut self, facts: &mut F) -> Result<Option<&[Arch]>, F::Error> {
        if self.toolkit.is_none() {
            self.toolkit = Some(facts.toolkit_archs()?);
        }
        Ok(self.toolkit.as_ref().and_then(|t| t.as_deref()))
    }
}

/// Fixed facts: what `ArchList::parse` resolves with.
impl ListFacts for &ResolveContext<'_> {
    type Error = Error;

    fn devices(&mut self) -> Result<Vec<ComputeCapability>, Error> {
        Ok(self.visible_devices.unwrap_or(&[]).to_vec())
    }

    fn toolkit_archs(&mut self) -> Result<Option<Vec<Arch>>, Error> {
        Ok(self.toolkit_archs.map(<[Arch]>::to_vec))
    }
}

/// `native`: every visible device's CC as a cubin, PTX for the highest, exactly what PyTorch
/// does for an empty `TORCH_CUDA_ARCH_LIST`.
fn native(devices: &[ComputeCapability], origin: &str) -> Result<Vec<Target>, Error> {
    let highest = devices
        .iter()
        .max()
        .ok_or_else(|| Error::NoVisibleDevices {
            origin: origin.to_string(),
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
fn all(
    listed: Option<&[Arch]>,
    word: &str,
    origin: &str,
    major_only: bool,
) -> Result<Vec<Target>, Error> {
    // nvcc's `all` builds plain targets only, even from a list (like ptxas's) with `a`/`f`.
    let mut archs: Vec<Arch> = listed
        .unwrap_or(&[])
        .iter()
        .copied()
        .filter(|a| a.variant == Variant::Plain)
        .collect();
    archs.sort();
    archs.dedup();
    let no_list = || Error::NoToolkitList {
        word: word.to_string(),
        origin: origin.to_string(),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Facts that count how often each is asked.
    #[derive(Default)]
    struct Counting {
        devices: Vec<ComputeCapability>,
        toolkit: Option<Vec<Arch>>,
        devices_asked: usize,
        toolkit_asked: usize,
    }

    impl ListFacts for Counting {
        type Error = Error;
        fn devices(&mut self) -> Result<Vec<ComputeCapability>, Error> {
            self.devices_asked += 1;
            Ok(self.devices.clone())
        }
        fn toolkit_archs(&mut self) -> Result<Option<Vec<Arch>>, Error> {
            self.toolkit_asked += 1;
            Ok(self.toolkit.clone())
        }
    }

    fn asked(input: &str) -> (usize, usize) {
        let mut f = Counting {
            devices: vec![ComputeCapability::new(8, 6)],
            toolkit: Some(vec![
                Arch::plain(7, 5),
                Arch::plain(8, 0),
                Arch::plain(13, 0),
            ]),
            ..Counting::default()
        };
        resolve(input, "test", &mut f).unwrap();
        (f.devices_asked, f.toolkit_asked)
    }

    #[test]
    fn facts_are_asked_only_for_the_words_that_need_them_and_once() {
        // Generation names and numbers need nothing, whatever letters they contain.
        assert_eq!(asked("Ampere+Tegra 7.5 sm_90a Blackwell"), (0, 0));
        assert_eq!(asked("native"), (1, 0));
        assert_eq!(asked("native 8.0 NATIVE"), (1, 0));
        assert_eq!(asked("all"), (0, 1));
        assert_eq!(asked("all-major;all"), (0, 1));
        assert_eq!(asked("native all-major"), (1, 1));
        // A CC newer than the tables asks the toolkit, which accepts it here.
        assert_eq!(asked("13.0"), (0, 1));
    }

    #[test]
    fn a_failing_fact_is_the_callers_error() {
        struct Broken;
        #[derive(Debug, PartialEq)]
        enum Mine {
            Probe,
            Arch,
        }
        impl From<Error> for Mine {
            fn from(_: Error) -> Self {
                Mine::Arch
            }
        }
        impl ListFacts for Broken {
            type Error = Mine;
            fn devices(&mut self) -> Result<Vec<ComputeCapability>, Mine> {
                Err(Mine::Probe)
            }
            fn toolkit_archs(&mut self) -> Result<Option<Vec<Arch>>, Mine> {
                Ok(None)
            }
        }
        assert_eq!(resolve("8.6 native", "t", &mut Broken), Err(Mine::Probe));
        assert_eq!(resolve("all", "t", &mut Broken), Err(Mine::Arch));
        assert_eq!(resolve("8.6", "t", &mut Broken).unwrap().len(), 1);
    }

    #[test]
    fn check_names_the_facts_without_asking() {
        let needed = |s: &str| check(s, "t").unwrap();
        assert!(needed("Ampere 8.6+PTX").none());
        assert_eq!(
            needed("8.6 native"),
            FactsNeeded {
                devices: true,
                toolkit: false
            }
        );
        assert_eq!(
            needed("ALL-MAJOR"),
            FactsNeeded {
                devices: false,
                toolkit: true
            }
        );
        assert!(matches!(
            check("8.6 nativ", "t"),
            Err(Error::UnknownArch { .. })
        ));
        assert!(matches!(check(" ; ", "t"), Err(Error::EmptyList { .. })));
    }
}
