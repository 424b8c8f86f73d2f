//! The human side of a [`Selection`]: a multi-line explanation listing the device, the policy
//! and every image with why it was taken or rejected, and a one-line fix when nothing fits
//! (or when the only fit needs nvJitLink). These texts are what users see next to
//! "no kernel image is available", so they name archs in the syntax `ARCHBUILD_ARCHS` accepts.

use std::fmt;

use crate::cc::{CudaVersion, TargetKind, Variant};
use crate::devices;
use crate::floors;
use crate::select::{self, Chosen, Outcome, Policy, Reason, Route, Selection, Verdict};
use crate::tables;

impl Selection {
    /// The fix, when there is something to fix: nothing fits, or the only fit is PTX the
    /// driver is too old to JIT. E.g. "add 8.6 to ARCHBUILD_ARCHS (or 8.6+PTX), or build PTX
    /// for an arch <= 8.6". `None` when a cubin or a driver-JIT route was found.
    pub fn fix_hint(&self) -> Option<String> {
        let cc = self.device.cc;
        match self.chosen {
            Some(Chosen {
                route:
                    Route::NeedsNewerJit {
                        ptx_isa,
                        driver_max,
                    },
                ..
            }) => {
                let build_with = first_cuda(driver_max);
                let update_to = first_cuda(ptx_isa);
                Some(format!(
                    "the driver (CUDA {}) can JIT PTX up to ISA {driver_max} but this PTX is ISA {ptx_isa}: \
                     add {cc} to ARCHBUILD_ARCHS to ship a cubin, build the PTX with CUDA {build_with} or \
                     older, or update the driver to CUDA {update_to} or newer",
                    self.device.driver
                ))
            }
            Some(_) => None,
            None => Some(self.nothing_fits_hint()),
        }
    }

    fn nothing_fits_hint(&self) -> String {
        let cc = self.device.cc;
        if let Some(hint) = self.driver_hint() {
            return hint;
        }
        let unlinked: Vec<String> = self
            .verdicts
            .iter()
            .filter(|v| v.outcome == Outcome::Rejected(Reason::NoLtoLinker))
            .map(|v| format!("[{}] {}", v.index, v.target))
            .collect();
        if !unlinked.is_empty() {
            return format!(
                "{} would be linked for this GPU by nvJitLink, which was not found: install it \
                 (`pip install nvidia-nvjitlink-cu13`, or the CUDA toolkit's libnvJitLink.so) or set \
                 ARCHBUILD_NVJITLINK to its path; or add {cc} (a cubin) or {cc}+PTX to ARCHBUILD_ARCHS",
                unlinked.join(", ")
            );
        }
        let excluded: Vec<String> = self
            .verdicts
            .iter()
            .filter(|v| v.outcome == Outcome::Rejected(Reason::ExcludedByPolicy(self.policy)))
            .map(|v| format!("[{}] {}", v.index, v.target))
            .collect();
        if !excluded.is_empty() {
            let alternative = match self.policy {
                Policy::ForcePtx => format!("add {cc}+PTX to ARCHBUILD_ARCHS"),
                _ => format!("add {cc} to ARCHBUILD_ARCHS"),
            };
            return format!(
                "{} would run but policy {} excludes {}: use policy prefer-cubin, or {alternative}",
                excluded.join(", "),
                self.policy,
                if excluded.len() == 1 { "it" } else { "them" }
            );
        }
        match self.policy {
            Policy::ForcePtx => {
                format!("add {cc}+PTX to ARCHBUILD_ARCHS (policy force-ptx needs PTX for an arch <= {cc})")
            }
            Policy::CubinOnly => {
                format!("add {cc} to ARCHBUILD_ARCHS (policy cubin-only needs a cubin for {cc})")
            }
            _ => format!(
                "add {cc} to ARCHBUILD_ARCHS (or {cc}+PTX), or build PTX for an arch <= {cc}"
            ),
        }
    }

    /// When images that fit the device were refused for the driver: the oldest driver that
    /// loads one of them, and the other ways out.
    fn driver_hint(&self) -> Option<String> {
        let driver = self.device.driver;
        let blocked: Vec<_> = self
            .verdicts
            .iter()
            .filter_map(|v| match v.outcome {
                Outcome::Rejected(Reason::DriverTooOld { floor, .. }) => Some(floor),
                _ => None,
            })
            .collect();
        let need = blocked.iter().map(floors::loads_from).min()?;
        let mut fixes = vec![format!(
            "update the driver to {} or newer",
            floors::driver_name(need)
        )];
        for f in &blocked {
            for alt in floors::floor_alternatives(f, driver) {
                if !fixes.contains(&alt) {
                    fixes.push(alt);
                }
            }
        }
        Some(fixes.join(", or "))
    }

    fn describe_usable(&self, v: &Verdict) -> String {
        let device = self.device.cc;
        let what = match (v.target.kind, v.target.arch.variant) {
            (TargetKind::Cubin, Variant::Arch) => "arch-specific cubin for exactly this device".to_string(),
            (TargetKind::Cubin, Variant::Family) if v.target.arch.cc == device => {
                "family-specific cubin for this device".to_string()
            }
            (TargetKind::Cubin, _) if v.target.arch.cc == device => "cubin for exactly this device".to_string(),
            (TargetKind::Cubin, variant) => format!(
                "{}cubin for {} runs on later {}.x devices",
                if variant == Variant::Family { "family-specific " } else { "" },
                v.target.arch.cc,
                device.major
            ),
            (TargetKind::LtoIr, _) => "LTO-IR, linked for this device by nvJitLink".to_string(),
            (TargetKind::Ptx, _) => match self.route_of(v.index) {
                Route::NeedsNewerJit { ptx_isa, driver_max } => format!(
                    "PTX ISA {ptx_isa} is newer than the driver can JIT ({driver_max}): needs nvJitLink"
                ),
                _ => "PTX, JIT-compiled by the driver".to_string(),
            },
        };
        match (v.outcome, self.chosen) {
            (Outcome::Usable, Some(c)) => format!(
                "usable ({what}), but [{}] {} is preferred",
                c.index, c.target
            ),
            _ => what,
        }
    }

    fn route_of(&self, index: usize) -> Route {
        select::route_for(&self.images[index], self.driver_max_ptx())
    }
}

fn first_cuda(isa: crate::cc::PtxIsa) -> String {
    tables::first_cuda_for_ptx_isa(isa)
        .map_or_else(|| "?".to_string(), |c: CudaVersion| c.to_string())
}

impl fmt::Display for Selection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cc = self.device.cc;
        write!(f, "device: {cc}")?;
        match (&self.device.name, devices::generation(cc)) {
            (Some(name), Some(g)) => write!(f, " {name} ({g})")?,
            (Some(name), None) => write!(f, " {name}")?,
            (None, Some(g)) => write!(f, " ({g})")?,
            (None, None) => {}
        }
        write!(f, ", driver CUDA {}", self.device.driver)?;
        match self.driver_max_ptx() {
            Some(max) => writeln!(f, " (JITs PTX ISA <= {max})")?,
            None => writeln!(f, " (newer than the PTX ISA table; assumed to JIT any PTX)")?,
        }
        writeln!(f, "policy: {}", self.policy)?;
        if self.verdicts.is_empty() {
            writeln!(f, "images: none")?;
        } else {
            writeln!(f, "images:")?;
        }
        for v in &self.verdicts {
            write!(f, "  [{}] {}", v.index, v.target)?;
            if let Some(isa) = self.images[v.index].ptx_isa {
                write!(f, " (PTX ISA {isa})")?;
            }
            match v.outcome {
                Outcome::Chosen => writeln!(f, ": chosen: {}", self.describe_usable(v))?,
                Outcome::Usable => writeln!(f, ": {}", self.describe_usable(v))?,
                Outcome::Rejected(r) => writeln!(f, ": rejected: {r}")?,
            }
        }
        match self.chosen {
            Some(c) => {
                write!(f, "result: [{}] {}, ", c.index, c.target)?;
                match c.route {
                    Route::Cubin => write!(f, "loaded as a cubin")?,
                    Route::DriverJit => write!(f, "JIT-compiled by the driver (slow first load, then cached)")?,
                    Route::NeedsNewerJit { .. } => write!(
                        f,
                        "compiled with nvJitLink (the driver would fail with CUDA_ERROR_UNSUPPORTED_PTX_VERSION)"
                    )?,
                    Route::LinkLto => write!(
                        f,
                        "linked for this device by nvJitLink (slow first load, then cached)"
                    )?,
                }
            }
            None => write!(f, "result: no image can run on this device")?,
        }
        if let Some(hint) = self.fix_hint() {
            write!(f, "\nfix: {hint}")?;
        }
        Ok(())
    }
}
