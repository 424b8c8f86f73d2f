//! A fleet: the GPUs *and drivers* a build's fat binaries must load on, written as the
//! simulated-GPU syntax writes one GPU, `<compute capability>@<driver CUDA version>` (`7.5@12.4,
//! 8.6@13.0`), and checked against the images a build makes with the driver floors of
//! `floors.rs`: a member that can load no image, or an image meant for the fleet's GPUs that no
//! member's driver loads, is a [`FleetProblem`]. Pure: the build reads the text (Cargo.toml's
//! `fleet`, `ARCHBUILD_FLEET`, `Build::fleet`) and resolves `native` (this machine's GPUs and
//! driver) itself.
//!
//! ```
//! use archbuild_arch::{ComputeCapability, CudaVersion, Fleet};
//! let fleet = Fleet::parse("7.5:RTX 2080@12.4; 8.6@13000", "ARCHBUILD_FLEET").unwrap();
//! assert_eq!(fleet.members[0].cc, ComputeCapability::new(7, 5));
//! assert_eq!(fleet.members[1].driver, CudaVersion::new(13, 0));
//! assert_eq!(fleet.to_string(), "7.5@12.4 8.6@13.0");
//! assert!(fleet.reads_zstd(), "12.4 (R550) is zstd's floor");
//! assert!(!Fleet::parse("8.6@12.2", "t").unwrap().reads_zstd());
//! ```

use std::fmt;

use crate::cc::{ComputeCapability, CudaVersion, Target};
use crate::error::Error;
use crate::floors::{self, DriverFloor, Handoff, ImageInfo};
use crate::select::{self, select, DeviceInfo, Outcome, Policy, Reason};
use crate::simulated::{parse_device_cc, parse_driver_version};

/// One GPU of the fleet and the CUDA version its driver reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetMember {
    pub cc: ComputeCapability,
    pub driver: CudaVersion,
    /// The name after `:`, when given.
    pub name: Option<String>,
}

impl fmt::Display for FleetMember {
    /// `7.5@12.4`, or `7.5@12.4 (RTX 2080)` with a name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.cc, self.driver)?;
        match &self.name {
            Some(n) => write!(f, " ({n})"),
            None => Ok(()),
        }
    }
}

/// The GPUs and drivers a build is for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fleet {
    /// In the order written, `native`'s where it stood.
    pub members: Vec<FleetMember>,
    /// Whether the text said `native`: the caller adds this machine's GPUs with
    /// [`Fleet::add_native`].
    pub native: bool,
}

impl Fleet {
    /// Parses members separated by `,` or `;`, each `CC[:NAME]@DRIVER` (`8.6@12.4`,
    /// `sm_75:RTX 2080@12040`) or `native`. A member without a driver is an error: a fleet's
    /// point is its drivers.
    pub fn parse(text: &str, origin: &str) -> Result<Self, Error> {
        let bad = |why: String| Error::Fleet {
            origin: origin.to_owned(),
            spec: text.to_owned(),
            why,
        };
        let mut fleet = Fleet::default();
        for entry in text
            .split([',', ';'])
            .map(str::trim)
            .filter(|e| !e.is_empty())
        {
            if entry.eq_ignore_ascii_case("native") {
                fleet.native = true;
                continue;
            }
            let Some((gpu, driver)) = entry.rsplit_once('@') else {
                return Err(bad(format!(
                    "`{entry}` names no driver (write `{entry}@12.4`, the CUDA version \
                     `nvidia-smi` shows for that GPU's driver)"
                )));
            };
            let driver = parse_driver_version(driver.trim()).ok_or_else(|| {
                bad(format!(
                    "`{}` is not a CUDA driver version (write `12.4` or `12040`)",
                    driver.trim()
                ))
            })?;
            let (cc_text, name) = match gpu.split_once(':') {
                Some((c, n)) => (c.trim(), Some(n.trim())),
                None => (gpu.trim(), None),
            };
            let cc = parse_device_cc(cc_text).ok_or_else(|| {
                bad(format!(
                    "`{cc_text}` is not a compute capability (write `8.6`, `86` or `sm_86`)"
                ))
            })?;
            fleet.members.push(FleetMember {
                cc,
                driver,
                name: name.filter(|n| !n.is_empty()).map(str::to_owned),
            });
        }
        if fleet.members.is_empty() && !fleet.native {
            return Err(bad("it names no GPU".to_owned()));
        }
        Ok(fleet)
    }

    /// Adds this machine's GPUs, all on its one driver (what `native` stands for).
    pub fn add_native(&mut self, ccs: &[ComputeCapability], driver: CudaVersion) {
        for &cc in ccs {
            let m = FleetMember {
                cc,
                driver,
                name: None,
            };
            if !self.members.contains(&m) {
                self.members.push(m);
            }
        }
    }

    /// Whether every member's driver decompresses zstd (CUDA 12.4, R550, or newer).
    pub fn reads_zstd(&self) -> bool {
        self.members
            .iter()
            .all(|m| m.driver >= floors::ZSTD_MINIMUM_DRIVER)
    }

    /// What no member can load, and who loads nothing, of `images` handed over by `handoff`
    /// (see [`FleetProblem`]); empty when every member loads an image and every image meant for
    /// a member's GPU loads on one.
    pub fn check(&self, images: &[ImageInfo], handoff: Handoff) -> Vec<FleetProblem> {
        let mut problems = Vec::new();
        let mut stuck: Vec<&FleetMember> = Vec::new();
        for m in &self.members {
            let device = DeviceInfo {
                cc: m.cc,
                driver: m.driver,
                name: m.name.clone(),
                handoff,
                // LTO-IR counts: archbuild's loader links it with nvJitLink, which a program
                // that ships LTO-IR brings along (docs/runtime.md); the host libraries that
                // hand fat binaries to the CUDA runtime are built without LTO-IR.
                links_lto: true,
            };
            let sel = select(images, &device, Policy::PreferCubin);
            if sel.chosen.is_some() {
                continue;
            }
            stuck.push(m);
            let blocked: Vec<(Target, DriverFloor)> = sel
                .verdicts
                .iter()
                .filter_map(|v| match v.outcome {
                    Outcome::Rejected(Reason::DriverTooOld { floor, .. }) => {
                        Some((v.target, floor))
                    }
                    _ => None,
                })
                .collect();
            problems.push(if blocked.is_empty() {
                FleetProblem::NotCovered { member: m.clone() }
            } else {
                FleetProblem::DriverTooOld {
                    member: m.clone(),
                    blocked,
                }
            });
        }
        for img in images {
            let meant: Vec<&FleetMember> = self
                .members
                .iter()
                .filter(|m| select::incompatibility(img.target, m.cc).is_none())
                .collect();
            let blocked: Vec<(FleetMember, DriverFloor)> = meant
                .iter()
                .filter_map(|m| {
                    floors::blocking_floor(img, handoff, m.driver).map(|f| ((*m).clone(), f))
                })
                .collect();
            // Said already where every member it is for loads nothing at all.
            let news = meant.iter().any(|m| !stuck.contains(m));
            if !meant.is_empty() && blocked.len() == meant.len() && news {
                problems.push(FleetProblem::ImageLoadedByNone {
                    target: img.target,
                    blocked,
                });
            }
        }
        problems
    }
}

impl fmt::Display for Fleet {
    /// The members separated by spaces (`native` once resolved is its members).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut words: Vec<String> = self
            .members
            .iter()
            .map(|m| format!("{}@{}", m.cc, m.driver))
            .collect();
        if self.native && self.members.is_empty() {
            words.push("native".into());
        }
        f.write_str(&words.join(" "))
    }
}

/// Why a fleet cannot use what a build makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FleetProblem {
    /// No image runs on the member's GPU at all: the arch list does not cover it.
    NotCovered { member: FleetMember },
    /// Images run on the member's GPU, but its driver is below the floor of each.
    DriverTooOld {
        member: FleetMember,
        blocked: Vec<(Target, DriverFloor)>,
    },
    /// An image for GPUs of the fleet whose drivers all refuse it (dead weight).
    ImageLoadedByNone {
        target: Target,
        blocked: Vec<(FleetMember, DriverFloor)>,
    },
}

impl fmt::Display for FleetProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FleetProblem::NotCovered { member } => write!(
                f,
                "the fleet's {member} can load nothing: no image of the build runs on a {} GPU; \
                 add `{}` (or PTX of {} or older) to the arch list",
                member.cc, member.cc, member.cc
            ),
            FleetProblem::DriverTooOld { member, blocked } => {
                write!(
                    f,
                    "the fleet's {member} can load nothing: its driver is {}, and ",
                    floors::driver_name(member.driver)
                )?;
                let each: Vec<String> = blocked
                    .iter()
                    .map(|(t, floor)| format!("`{t}`: {floor}"))
                    .collect();
                write!(f, "{}", each.join("; "))?;
                let (_, first) = blocked[0];
                write!(f, "; fix: {}", floors::floor_fix(&first, member.driver))
            }
            FleetProblem::ImageLoadedByNone { target, blocked } => {
                let each: Vec<String> = blocked
                    .iter()
                    .map(|(m, floor)| format!("{m}: {floor}"))
                    .collect();
                write!(
                    f,
                    "no GPU of the fleet loads `{target}`: {}",
                    each.join("; ")
                )?;
                let (m, first) = &blocked[0];
                write!(f, "; fix: {}", floors::floor_fix(first, m.driver))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{Arch, PtxIsa};
    use crate::floors::ImageCompression;

    /// What a CUDA `major` toolkit writes for `list`: cubins it made, PTX of `isa`, stored.
    fn images(list: &str, major: u32, isa: PtxIsa, ptx: ImageCompression) -> Vec<ImageInfo> {
        let list: crate::ArchList = list.parse().unwrap();
        list.targets()
            .iter()
            .map(|&t| match t.kind {
                crate::TargetKind::Cubin => ImageInfo::new(t, None).made_by(Some(major)),
                crate::TargetKind::Ptx => ImageInfo::new(t, Some(isa)).compression(ptx),
                crate::TargetKind::LtoIr => ImageInfo::new(t, None).made_by(Some(major)),
            })
            .collect()
    }

    #[test]
    fn parse_spellings_and_mistakes() {
        let f = Fleet::parse("7.5@12.4, sm_86:RTX 3090@13000;native", "t").unwrap();
        assert_eq!(f.members.len(), 2);
        assert_eq!(f.members[1].name.as_deref(), Some("RTX 3090"));
        assert!(f.native);
        for (text, part) in [
            ("8.6", "`8.6` names no driver (write `8.6@12.4`"),
            ("8.6@abc", "`abc` is not a CUDA driver version"),
            ("8.5x@12.4", "`8.5x` is not a compute capability"),
            (" , ", "it names no GPU"),
        ] {
            let e = Fleet::parse(text, "ARCHBUILD_FLEET")
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with(&format!("invalid ARCHBUILD_FLEET `{text}`: {part}")),
                "{e}"
            );
            assert!(e.contains("e.g. `7.5@12.4, 8.6@13.0`"), "{e}");
        }
    }

    #[test]
    fn a_r550_member_loads_nothing_a_cuda_13_toolkit_makes() {
        let fleet = Fleet::parse("7.5@12.4, 8.6@13.0", "t").unwrap();
        let made = images("7.5 8.6+PTX", 13, PtxIsa::new(9, 5), ImageCompression::Zstd);
        let problems = fleet.check(&made, Handoff::FatBinary);
        assert_eq!(problems.len(), 1, "{problems:?}");
        let text = problems[0].to_string();
        assert!(
            text.starts_with(
                "the fleet's 7.5@12.4 can load nothing: its driver is CUDA 12.4 (R550), and \
                 `sm_75`: cubin made by CUDA 13 needs a driver for CUDA 13.0 (R580) or newer"
            ),
            "{text}"
        );
        assert!(text.contains("build with a CUDA 12 toolkit"), "{text}");
        // A CUDA 12 toolkit's images load there; LZ4 is read by every driver, zstd from 12.4.
        let made12 = images("7.5 8.6+PTX", 12, PtxIsa::new(8, 4), ImageCompression::Lz4);
        assert_eq!(fleet.check(&made12, Handoff::FatBinary), []);
        let old = Fleet::parse("8.6@12.2", "t").unwrap();
        assert!(!old.reads_zstd() && fleet.reads_zstd());
        let zstd12 = images("compute_86", 12, PtxIsa::new(8, 4), ImageCompression::Zstd);
        let p = old.check(&zstd12, Handoff::FatBinary);
        assert!(
            p[0].to_string()
                .contains("zstd-compressed image needs a driver for CUDA 12.4"),
            "{p:?}"
        );
        assert_eq!(
            old.check(&zstd12, Handoff::Image),
            [],
            "archbuild's loader decompresses"
        );
    }

    #[test]
    fn uncovered_members_and_dead_images() {
        let fleet = Fleet::parse("7.5@13.0, 8.6@12.8, 8.9@13.0", "t").unwrap();
        // No image is for 7.5; 8.6@12.8's driver refuses the CUDA 13 cubins that run there,
        // which 8.9@13.0 loads (so no image is dead weight).
        let made = images("8.0 8.6 8.9", 13, PtxIsa::new(9, 5), ImageCompression::None);
        let p = fleet.check(&made, Handoff::Image);
        assert_eq!(
            p[0],
            FleetProblem::NotCovered {
                member: fleet.members[0].clone()
            }
        );
        assert!(
            matches!(&p[1], FleetProblem::DriverTooOld { member, .. } if member.cc == ComputeCapability::new(8, 6))
        );
        assert_eq!(
            p.len(),
            2,
            "sm_86 is said with the member that loads nothing: {p:?}"
        );
        // An image for two members, one of which loads something else, is named on its own.
        let fleet = Fleet::parse("8.6@12.8, 8.9@12.8", "t").unwrap();
        let mut made = images("8.0", 13, PtxIsa::new(9, 5), ImageCompression::None);
        made.push(ImageInfo::new(Target::cubin(Arch::plain(8, 9)), None).made_by(Some(12)));
        made.push(ImageInfo::new(Target::cubin(Arch::plain(8, 6)), None).made_by(Some(12)));
        let p = fleet.check(&made, Handoff::Image);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].to_string()
                .starts_with("no GPU of the fleet loads `sm_80`: 8.6@12.8: cubin made by CUDA 13"),
            "{}",
            p[0]
        );
    }
}
