//! The CUDA releases archbuild can provision from PyPI, each pinned to an exact set of wheels,
//! and the version a build asks for (`toolkit = "13.0"`, `docs/build.md`).
//!
//! Each PyPI CUDA component is its own wheel with its own version, and `nvidia-cuda-nvcc`
//! requires `nvidia-nvvm`, `nvidia-cuda-crt` and `nvidia-cuda-runtime` *unpinned*: a plain
//! `pip install nvidia-cuda-nvcc==13.0.88` installs CUDA 13.5's cicc and crt headers under
//! 13.0's nvcc. So every release is a fixed set of `==` pins, taken from the wheels PyPI
//! published together (the same upload day, one CUDA release; a component that was not updated
//! in an update keeps the previous one's version, as NVIDIA's own release does). CCCL and, from
//! 13.3 on, its version scheme (`13.3.<cccl version>`) differ from nvcc's; cuobjdump has wheels
//! from 13.2 on only (archbuild runs none of it; it is there for users' inspection).
//!
//! PyPI's CUDA 12 wheels ship ptxas and libnvvm but no nvcc or cicc, so a CUDA 12 (or 11)
//! toolkit is always one the user installed: [`install_hint`] says how.

use crate::base::layered::{Layer, Setting};
use crate::toolkit::makers::Maker;
use std::fmt;

/// One CUDA release and the wheels that make it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    /// nvcc's release, `13.0.88` (what `nvcc --version` reports after `V`).
    pub version: &'static str,
    /// `pip install` requirements, each `==` an exact version.
    pub wheels: &'static [&'static str],
}

/// Every release archbuild can provision, oldest first. From `pip index versions` and the
/// upload dates of PyPI's simple index (see the module comment); the last is the default.
pub const RELEASES: &[Release] = &[
    Release {
        version: "13.0.48",
        wheels: &[
            "nvidia-cuda-nvcc==13.0.48",
            "nvidia-cuda-runtime==13.0.48",
            "nvidia-cuda-crt==13.0.48",
            "nvidia-cuda-cccl==13.0.50",
            "nvidia-nvjitlink==13.0.39",
            "nvidia-nvvm==13.0.48",
        ],
    },
    Release {
        version: "13.0.88",
        wheels: &[
            "nvidia-cuda-nvcc==13.0.88",
            "nvidia-cuda-runtime==13.0.88",
            "nvidia-cuda-crt==13.0.88",
            "nvidia-cuda-cccl==13.0.85",
            "nvidia-nvjitlink==13.0.88",
            "nvidia-nvvm==13.0.88",
        ],
    },
    Release {
        version: "13.1.80",
        wheels: &[
            "nvidia-cuda-nvcc==13.1.80",
            "nvidia-cuda-runtime==13.1.80",
            "nvidia-cuda-crt==13.1.80",
            "nvidia-cuda-cccl==13.1.78",
            "nvidia-nvjitlink==13.1.80",
            "nvidia-nvvm==13.1.80",
        ],
    },
    Release {
        version: "13.1.115",
        wheels: &[
            "nvidia-cuda-nvcc==13.1.115",
            "nvidia-cuda-runtime==13.1.80",
            "nvidia-cuda-crt==13.1.115",
            "nvidia-cuda-cccl==13.1.115",
            "nvidia-nvjitlink==13.1.115",
            "nvidia-nvvm==13.1.115",
        ],
    },
    Release {
        version: "13.2.51",
        wheels: &[
            "nvidia-cuda-nvcc==13.2.51",
            "nvidia-cuda-runtime==13.2.51",
            "nvidia-cuda-crt==13.2.51",
            "nvidia-cuda-cccl==13.2.27",
            "nvidia-cuda-cuobjdump==13.2.51",
            "nvidia-nvjitlink==13.2.51",
            "nvidia-nvvm==13.2.51",
        ],
    },
    Release {
        version: "13.2.78",
        wheels: &[
            "nvidia-cuda-nvcc==13.2.78",
            "nvidia-cuda-runtime==13.2.75",
            "nvidia-cuda-crt==13.2.78",
            "nvidia-cuda-cccl==13.2.75",
            "nvidia-cuda-cuobjdump==13.2.78",
            "nvidia-nvjitlink==13.2.78",
            "nvidia-nvvm==13.2.78",
        ],
    },
    Release {
        version: "13.2.86",
        wheels: &[
            "nvidia-cuda-nvcc==13.2.86",
            "nvidia-cuda-runtime==13.2.86",
            "nvidia-cuda-crt==13.2.86",
            "nvidia-cuda-cccl==13.2.86",
            "nvidia-cuda-cuobjdump==13.2.86",
            "nvidia-nvjitlink==13.2.86",
            "nvidia-nvvm==13.2.86",
        ],
    },
    Release {
        version: "13.3.33",
        wheels: &[
            "nvidia-cuda-nvcc==13.3.33",
            "nvidia-cuda-runtime==13.3.29",
            "nvidia-cuda-crt==13.3.33",
            "nvidia-cuda-cccl==13.3.3.3.1",
            "nvidia-cuda-cuobjdump==13.3.29",
            "nvidia-nvjitlink==13.3.33",
            "nvidia-nvvm==13.3.33",
        ],
    },
    Release {
        version: "13.3.73",
        wheels: &[
            "nvidia-cuda-nvcc==13.3.73",
            "nvidia-cuda-runtime==13.3.29",
            "nvidia-cuda-crt==13.3.73",
            "nvidia-cuda-cccl==13.3.3.4.1",
            "nvidia-cuda-cuobjdump==13.3.73",
            "nvidia-nvjitlink==13.3.33",
            "nvidia-nvvm==13.3.73",
        ],
    },
    Release {
        version: "13.4.59",
        wheels: &[
            "nvidia-cuda-nvcc==13.4.59",
            "nvidia-cuda-runtime==13.4.49",
            "nvidia-cuda-crt==13.4.59",
            "nvidia-cuda-cccl==13.3.4.2.1",
            "nvidia-cuda-cuobjdump==13.4.49",
            "nvidia-nvjitlink==13.4.52",
            "nvidia-nvvm==13.4.59",
        ],
    },
    Release {
        version: "13.4.92",
        wheels: &[
            "nvidia-cuda-nvcc==13.4.92",
            "nvidia-cuda-runtime==13.4.92",
            "nvidia-cuda-crt==13.4.92",
            "nvidia-cuda-cccl==13.3.4.3.1",
            "nvidia-cuda-cuobjdump==13.4.92",
            "nvidia-nvjitlink==13.4.92",
            "nvidia-nvvm==13.4.92",
        ],
    },
    Release {
        version: "13.5.37",
        wheels: &[
            "nvidia-cuda-nvcc==13.5.37",
            "nvidia-cuda-runtime==13.5.37",
            "nvidia-cuda-crt==13.5.37",
            "nvidia-cuda-cccl==13.3.5.0.6",
            "nvidia-cuda-cuobjdump==13.5.37",
            "nvidia-nvjitlink==13.5.37",
            "nvidia-nvvm==13.5.37",
        ],
    },
];

/// The release archbuild provisions when no version is asked for: the newest.
pub(crate) fn default_release() -> &'static Release {
    RELEASES.last().expect("the table is not empty")
}

/// Every known release, `13.0.48, 13.0.88, …`, for messages.
pub(crate) fn known_list() -> String {
    RELEASES
        .iter()
        .map(|r| r.version)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The variable that asks for a toolkit version (`docs/environment.md`).
pub const TOOLKIT_VERSION_VAR: &str = "ARCHBUILD_TOOLKIT_VERSION";

/// A toolkit version a build asks for: a series (`13`, `13.0`, `12.x`) or an exact release
/// (`13.0.88`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requested {
    major: u32,
    minor: Option<u32>,
    patch: Option<u32>,
}

impl Requested {
    /// `13.0`, `13.0.x`, `13.0.88`, `12.x`, `12`, `13.x`; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let text = text.strip_prefix(['v', 'V']).unwrap_or(text);
        let mut parts = text.split('.');
        let number = |p: Option<&str>| -> Option<Option<u32>> {
            match p {
                None | Some("x") | Some("X") | Some("*") => Some(None),
                Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                    n.parse().ok().map(Some)
                }
                Some(_) => None,
            }
        };
        let major = number(parts.next())??;
        let minor = number(parts.next())?;
        let patch = number(parts.next())?;
        // Nothing after a wildcard, and at most three numbers.
        if parts.next().is_some() || (minor.is_none() && patch.is_some()) {
            return None;
        }
        Some(Self {
            major,
            minor,
            patch,
        })
    }

    /// The major version asked for.
    pub fn major(&self) -> u32 {
        self.major
    }

    /// Whether a toolkit reporting `release` (`13.0.88`) is of this version.
    pub fn matches(&self, release: &str) -> bool {
        let mut got = release.trim().split('.').map(|p| p.parse::<u32>().ok());
        let (ma, mi, pa) = (
            got.next().flatten(),
            got.next().flatten(),
            got.next().flatten(),
        );
        Some(self.major) == ma
            && self.minor.is_none_or(|m| Some(m) == mi)
            && self.patch.is_none_or(|p| Some(p) == pa)
    }

    /// Whether archbuild provisions this major version from PyPI (only CUDA 13: PyPI's CUDA
    /// 12 wheels have no nvcc).
    pub fn provisionable(&self) -> bool {
        self.major == 13
    }

    /// The newest known release of this version, if any.
    pub fn release(&self) -> Option<&'static Release> {
        RELEASES.iter().rev().find(|r| self.matches(r.version))
    }

    /// `major.minor` for install commands: `12.9` for `12.x` (the last CUDA 12).
    fn series(&self) -> (u32, u32) {
        match (self.major, self.minor) {
            (m, Some(n)) => (m, n),
            (12, None) => (12, 9),
            (11, None) => (11, 8),
            (m, None) => (m, 0),
        }
    }
}

impl fmt::Display for Requested {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.minor, self.patch) {
            (None, _) => write!(f, "{}.x", self.major),
            (Some(mi), None) => write!(f, "{}.{mi}", self.major),
            (Some(mi), Some(p)) => write!(f, "{}.{mi}.{p}", self.major),
        }
    }
}

/// NVIDIA runfiles known by name (`cuda_<release>_<driver>_linux.run`), by series.
const RUNFILES: &[((u32, u32), &str)] = &[
    (
        (11, 8),
        "11.8.0/local_installers/cuda_11.8.0_520.61.05_linux.run",
    ),
    (
        (12, 4),
        "12.4.1/local_installers/cuda_12.4.1_550.54.15_linux.run",
    ),
    (
        (12, 6),
        "12.6.3/local_installers/cuda_12.6.3_560.35.05_linux.run",
    ),
    (
        (12, 8),
        "12.8.1/local_installers/cuda_12.8.1_570.124.06_linux.run",
    ),
    (
        (12, 9),
        "12.9.1/local_installers/cuda_12.9.1_575.57.08_linux.run",
    ),
];

/// How to install a toolkit of a version archbuild cannot provision, then point archbuild at
/// it: NVIDIA's runfile, apt, or conda, then `CUDA_HOME`.
pub(crate) fn install_hint(wanted: &Requested) -> String {
    let (ma, mi) = wanted.series();
    let root = format!("/usr/local/cuda-{ma}.{mi}");
    let runfile = match RUNFILES.iter().find(|(s, _)| *s == (ma, mi)) {
        Some((_, path)) => {
            let file = path.rsplit('/').next().unwrap_or(path);
            format!(
                "`wget https://developer.download.nvidia.com/compute/cuda/{path} && sudo sh \
                 {file} --silent --toolkit --toolkitpath={root}`"
            )
        }
        None => format!(
            "the runfile from https://developer.nvidia.com/cuda-toolkit-archive (CUDA {ma}.{mi}), \
             then `sudo sh cuda_{ma}.{mi}.*_linux.run --silent --toolkit --toolkitpath={root}`"
        ),
    };
    format!(
        "PyPI's CUDA {ma} wheels have no nvcc, so install CUDA {ma}.{mi} yourself: NVIDIA's \
         runfile, {runfile}; or apt, from NVIDIA's repository \
         (https://developer.nvidia.com/cuda-downloads): `sudo apt-get install \
         cuda-toolkit-{ma}-{mi}` (installs into {root}); or conda: `conda install -c \
         nvidia/label/cuda-{ma}.{mi}.0 cuda-toolkit` (installs into $CONDA_PREFIX). Then point \
         archbuild at it: `CUDA_HOME={root}` (or `CUDA_HOME=$CONDA_PREFIX`)"
    )
}

/// The version a build asks for and where it was asked, by one precedence:
/// `Build::toolkit_version`, then `ARCHBUILD_TOOLKIT_VERSION`, then `toolkit` in
/// `[package.metadata.archbuild]` (`manifest`); `None` when nothing asks.
pub(crate) fn requested(
    build: Option<&str>,
    env: &crate::base::env::Env,
    manifest: Option<&str>,
) -> crate::error::Result<Option<(Requested, String)>> {
    requested_as(Maker::Build, build, env, manifest)
}

/// The version `ARCHBUILD_TOOLKIT_VERSION` asks for, with its origin, for tools that locate a
/// toolkit outside a build (`cargo archbuild toolkit which`).
pub fn requested_by_env(
    env: &crate::base::env::Env,
) -> crate::error::Result<Option<(Requested, String)>> {
    requested(None, env, None)
}

/// The variable naming the toolkit version that builds what the build's toolkit cannot.
pub const LEGACY_TOOLKIT_VERSION_VAR: &str = "ARCHBUILD_LEGACY_TOOLKIT_VERSION";

/// The variable naming the toolkit version of a build's PTX images.
pub const PTX_TOOLKIT_VERSION_VAR: &str = "ARCHBUILD_PTX_TOOLKIT_VERSION";

/// Where each maker's version is asked for: the build script's setter, the variable, and
/// the key of `[package.metadata.archbuild]`.
fn setting(maker: Maker) -> Setting {
    match maker {
        Maker::Build => Setting(&[
            Layer::Builder("the build's `.toolkit_version(...)`"),
            Layer::Variable(TOOLKIT_VERSION_VAR),
            Layer::Manifest("toolkit"),
        ]),
        Maker::Ptx => Setting(&[
            Layer::Builder("the build's `.ptx_toolkit_version(...)`"),
            Layer::Variable(PTX_TOOLKIT_VERSION_VAR),
            Layer::Manifest("ptx-toolkit"),
        ]),
        Maker::Legacy => Setting(&[
            Layer::Builder("the build's `.legacy_toolkit_version(...)`"),
            Layer::Variable(LEGACY_TOOLKIT_VERSION_VAR),
            Layer::Manifest("legacy-toolkit"),
        ]),
    }
}

/// The version asked for `maker`'s toolkit, by the same precedence as [`requested`].
pub(crate) fn requested_as(
    maker: Maker,
    build: Option<&str>,
    env: &crate::base::env::Env,
    manifest: Option<&str>,
) -> crate::error::Result<Option<(Requested, String)>> {
    let Some((value, origin)) = asked_value(maker, build, env, manifest) else {
        return Ok(None);
    };
    parse_asked(&value, origin).map(Some)
}

/// The value asked for the toolkit `asked` names and where, as written, by the precedence of
/// [`requested`].
pub(crate) fn asked_value(
    maker: Maker,
    build: Option<&str>,
    env: &crate::base::env::Env,
    manifest: Option<&str>,
) -> Option<(String, String)> {
    let found = setting(maker).resolve(build, env, manifest)?;
    Some((found.value, found.origin.to_string()))
}

/// `value` as a version, or the error naming what is accepted.
pub(crate) fn parse_asked(
    value: &str,
    origin: String,
) -> crate::error::Result<(Requested, String)> {
    let value = value.to_owned();
    let wanted = Requested::parse(&value).ok_or_else(|| crate::error::Error::Config {
        what: "toolkit version",
        origin: origin.clone(),
        value: value.clone(),
        hint: format!(
            "use a CUDA series such as `13.0` (its newest release), `12.x` (any CUDA 12), or an \
             exact release such as `13.0.88`; archbuild provisions {}",
            known_list()
        ),
    })?;
    Ok((wanted, origin))
}

/// The release to provision for `text` (`cargo archbuild toolkit install 13.0`): the newest
/// known release of that version; an error for a bad version, a CUDA 12 (PyPI has no nvcc for
/// it: how to install one), or a release the table lacks (the known ones).
pub fn release_for(text: &str, origin: &str) -> crate::error::Result<&'static Release> {
    use crate::error::Error;
    let wanted = Requested::parse(text).ok_or_else(|| Error::Config {
        what: "toolkit version",
        origin: origin.to_owned(),
        value: text.to_owned(),
        hint: format!(
            "use a CUDA series such as `13.0` (its newest release) or an exact release such as \
             `13.0.88`; archbuild provisions {}",
            known_list()
        ),
    })?;
    match wanted.release() {
        Some(r) if wanted.provisionable() => Ok(r),
        _ if wanted.major() < 13 => Err(Error::ToolkitVersionNotFound {
            wanted: wanted.to_string(),
            origin: origin.to_owned(),
            found: "archbuild provisions CUDA 13 releases only".to_owned(),
            fix: install_hint(&wanted),
        }),
        _ => Err(Error::ToolkitReleaseUnknown {
            wanted: wanted.to_string(),
            origin: origin.to_owned(),
            known: known_list(),
            found: "it is not installed here".to_owned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every release pins each wheel exactly, nvcc, crt and nvvm at the release itself (they
    /// are one compiler), and the table is ordered so `13.0` picks its newest.
    #[test]
    fn every_release_is_an_exact_consistent_set() {
        for r in RELEASES {
            for w in r.wheels {
                let (name, version) = w.split_once("==").expect("an exact pin");
                assert!(name.starts_with("nvidia-") && !version.is_empty(), "{w}");
            }
            for same in ["nvidia-cuda-nvcc", "nvidia-cuda-crt", "nvidia-nvvm"] {
                assert!(
                    r.wheels
                        .contains(&format!("{same}=={}", r.version).as_str()),
                    "{} lacks {same}=={}",
                    r.version,
                    r.version
                );
            }
            for needed in [
                "nvidia-cuda-runtime==",
                "nvidia-cuda-cccl==",
                "nvidia-nvjitlink==",
            ] {
                assert!(r.wheels.iter().any(|w| w.starts_with(needed)), "{r:?}");
            }
        }
        let order: Vec<Vec<u32>> = RELEASES
            .iter()
            .map(|r| r.version.split('.').map(|p| p.parse().unwrap()).collect())
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
        assert_eq!(default_release().version, "13.5.37");
    }

    #[test]
    fn requests_parse_match_and_pick_the_newest_of_a_series() {
        let r = |s| Requested::parse(s).unwrap();
        assert_eq!(r("13.0").release().unwrap().version, "13.0.88");
        assert_eq!(r("13.0.48").release().unwrap().version, "13.0.48");
        assert_eq!(r("13").release().unwrap().version, "13.5.37");
        assert_eq!(r("13.x").to_string(), "13.x");
        assert_eq!(r(" 12.X ").to_string(), "12.x");
        assert!(r("12.x").matches("12.4.131") && !r("12.x").matches("13.0.88"));
        assert!(r("12.4").matches("12.4.131") && !r("12.4").matches("12.6.85"));
        assert!(r("13.0.88").matches("13.0.88") && !r("13.0.88").matches("13.0.48"));
        assert!(r("13.9").release().is_none() && r("12.x").release().is_none());
        for bad in [
            "",
            "thirteen",
            "13.",
            "13..0",
            "x.1",
            "13.x.5",
            "13.0.88.1",
            "-13",
        ] {
            assert_eq!(Requested::parse(bad), None, "{bad:?}");
        }
    }
}
