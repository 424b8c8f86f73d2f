//! `ARCHBUILD_VERIFY`: proof that the cache key is complete. A sample of the jobs served from
//! the cache is compiled again, without the cache, and the bytes compared: a hit that differs
//! from what its compiler makes now is a hole in the key, reported as an error that names the
//! job and lists what its key holds. The sample is chosen by the output's key (deterministic:
//! the same build verifies the same jobs), and verification runs are not counted among the
//! processes a build started.

use std::sync::atomic::Ordering;

use archbuild_arch::Arch;

use super::{Compiler, JobOut};
use crate::env::Env;
use crate::error::{Error, Result};
use crate::keys;
use crate::plan::{cicc_command, ptxas_command, Phase, PTXAS_IN, PTXAS_OUT};
use crate::store::Key;

/// The variable, and what it accepts.
pub(crate) const VERIFY_VAR: &str = "ARCHBUILD_VERIFY";
const ACCEPTED: &str = "`all`, `off`, or a fraction of cache hits to verify between 0 and 1 \
                        (`0.01`) or as a percentage (`1%`)";

/// Which hits to verify: a fraction of them, by key.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Verify {
    fraction: f64,
}

impl Verify {
    /// `ARCHBUILD_VERIFY`, unset meaning off.
    pub(crate) fn from_env(env: &Env) -> Result<Self> {
        match env.var(VERIFY_VAR) {
            None => Ok(Self::default()),
            Some(v) => Self::parse(&v, VERIFY_VAR),
        }
    }

    pub(crate) fn parse(value: &str, origin: &str) -> Result<Self> {
        let v = value.trim().to_ascii_lowercase();
        let fraction = match v.as_str() {
            "all" | "on" | "1" | "true" | "yes" => Some(1.0),
            "off" | "0" | "false" | "no" | "none" => Some(0.0),
            _ => match v.strip_suffix('%') {
                Some(p) => p.trim().parse::<f64>().ok().map(|p| p / 100.0),
                None => v.parse::<f64>().ok(),
            },
        };
        match fraction {
            Some(f) if (0.0..=1.0).contains(&f) => Ok(Self { fraction: f }),
            _ => Err(Error::Config {
                what: "verification setting",
                origin: origin.to_owned(),
                value: value.to_owned(),
                hint: format!("use {ACCEPTED}"),
            }),
        }
    }

    /// Whether the hit stored under `key` is in the sample.
    pub(crate) fn samples(&self, key: &Key) -> bool {
        if self.fraction >= 1.0 {
            return true;
        }
        let x = u64::from_le_bytes(key.0[..8].try_into().unwrap_or_default());
        (x as f64 / u64::MAX as f64) < self.fraction
    }
}

impl Compiler<'_> {
    /// Compiles job `j` again without the cache when its hit is in the sample, and compares.
    pub(super) fn verify_hit(&self, j: usize, input: Option<&JobOut>, out: &JobOut) {
        let Some(key) = out.key.filter(|k| out.cached && self.verify.samples(k)) else {
            return;
        };
        let job = &self.jobs[j];
        let module = &self.modules[job.module];
        let store = self.store.as_ref();
        let (ns, fresh) = match job.phase {
            Phase::Cicc(arch) => ("ptx", self.fresh_ptx(j, arch)),
            Phase::Ptxas(arch) => {
                let ptx = input.and_then(|i| i.bytes(store, "ptx"));
                ("cubin", ptx.and_then(|ptx| self.fresh_cubin(j, arch, ptx)))
            }
        };
        // A compile that fails now while its output was served is a mismatch too.
        let fresh = fresh.unwrap_or_default();
        let Some(cached) = out.bytes(store, ns) else {
            return;
        };
        self.verified.fetch_add(1, Ordering::SeqCst);
        if cached == fresh.as_slice() {
            return;
        }
        if let Some(store) = store {
            let _ = std::fs::remove_file(store.entry_path(ns, &key));
        }
        let holds = self.key_holds(j, module, job.phase, &out.deps);
        let detail = format!(
            "{} cached bytes, {} compiled now{}",
            cached.len(),
            fresh.len(),
            if out.preprocessed {
                ", served in preprocessor mode"
            } else {
                ", served in direct mode"
            }
        );
        let mut first = self.mismatch.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert(Error::VerifyMismatch {
            module: module.name.clone(),
            job: job.label(),
            detail,
            key_holds: holds,
        });
    }

    fn fresh_ptx(&self, j: usize, arch: Arch) -> Option<Vec<u8>> {
        let module = &self.modules[self.jobs[j].module];
        let dir = self.tmp.path().join(format!("verify-{j}"));
        std::fs::create_dir_all(&dir).ok()?;
        let out = dir.join("out.ptx");
        let cmd = cicc_command(
            self.tk,
            &self.unlaunched(),
            module,
            arch,
            &out,
            &dir.join("d"),
        );
        let ran = self.execute_counted(&cmd, &out, &self.verified_runs).ok()?;
        Some(ran.bytes)
    }

    fn fresh_cubin(&self, j: usize, arch: Arch, ptx: &[u8]) -> Option<Vec<u8>> {
        let dir = self.tmp.path().join(format!("verify-{j}"));
        std::fs::create_dir_all(&dir).ok()?;
        std::fs::write(dir.join(PTXAS_IN), ptx).ok()?;
        let cmd = ptxas_command(self.tk, &self.unlaunched(), arch, &dir);
        let ran = self
            .execute_counted(&cmd, &dir.join(PTXAS_OUT), &self.verified_runs)
            .ok()?;
        Some(ran.bytes)
    }

    /// The settings without a launcher: a launcher with a cache of its own (sccache) would
    /// answer from it instead of compiling.
    fn unlaunched(&self) -> crate::plan::Settings {
        crate::plan::Settings {
            launcher: None,
            launch_cicc: false,
            ..self.settings.clone()
        }
    }

    /// What job `j`'s key holds, field by field.
    fn key_holds(
        &self,
        j: usize,
        module: &crate::plan::Module,
        phase: Phase,
        deps: &[std::path::PathBuf],
    ) -> String {
        let (stage, job) = match phase {
            Phase::Cicc(arch) => {
                let lead = self.jobs[j].dep.and_then(|d| match self.jobs[d].phase {
                    Phase::Cicc(a) => Some(a),
                    Phase::Ptxas(_) => None,
                });
                let base = keys::settings_key(self.settings, self.facts, keys::Stage::Cicc);
                let job = keys::cicc_job("cicc", &base.finish(), &self.roots, module, arch, lead);
                (base, job.items().to_vec())
            }
            Phase::Ptxas(arch) => {
                let base = keys::settings_key(self.settings, self.facts, keys::Stage::Ptxas);
                (
                    base,
                    vec![
                        ("arch".to_owned(), arch.sm_name()),
                        ("ptx".to_owned(), "(the PTX's content)".to_owned()),
                    ],
                )
            }
        };
        stage
            .items()
            .iter()
            .chain(job.iter().filter(|(f, _)| f != "settings"))
            .chain(
                deps.iter()
                    .map(|d| ("inputs".to_owned(), self.roots.portable(d)))
                    .collect::<Vec<_>>()
                    .iter(),
            )
            .map(|(f, v)| format!("{f}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_accepted_form_and_names_them_when_wrong() {
        assert!(Verify::parse("all", "x").unwrap().samples(&Key::of(b"a")));
        assert_eq!(Verify::parse("off", "x").unwrap().fraction, 0.0);
        assert_eq!(Verify::parse("1%", "x").unwrap().fraction, 0.01);
        assert_eq!(Verify::parse("0.25", "x").unwrap().fraction, 0.25);
        let e = Verify::parse("sometimes", VERIFY_VAR)
            .unwrap_err()
            .to_string();
        assert!(e.contains("ARCHBUILD_VERIFY") && e.contains("`all`"), "{e}");
        assert!(Verify::parse("1.5", "x").is_err());
    }

    #[test]
    fn a_fraction_samples_about_that_share_of_keys() {
        let v = Verify::parse("0.25", "x").unwrap();
        let n = (0..4000u32)
            .filter(|i| v.samples(&Key::of(&i.to_le_bytes())))
            .count();
        assert!((800..1200).contains(&n), "{n} of 4000");
    }
}
