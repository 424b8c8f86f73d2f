//! `ARCHBUILD_VERIFY`: proof that the cache key is complete. A sample of the jobs served from
//! the cache is compiled again, without the cache, and the bytes compared: a hit that differs
//! from what its compiler makes now is a hole in the key, reported as an error that names the
//! job and lists what its key holds. The sample is chosen by the output's key (deterministic:
//! the same build verifies the same jobs), and verification runs are not counted among the
//! processes a build started.

use std::sync::atomic::Ordering;

use archbuild_arch::Arch;

use super::{JobOut, JobRunner};
use crate::base::store::Ns;
use crate::error::Error;
use crate::jobs::keys;
use crate::plan::{cicc_command, lto_command, ptxas_command, Emit, Phase, PTXAS_IN, PTXAS_OUT};
use crate::report::Served;

impl JobRunner<'_> {
    /// Compiles job `j` again without the cache when its hit is in the sample, and compares.
    pub(super) fn verify_hit(&self, j: usize, input: Option<&JobOut>, out: &JobOut) {
        let Some(key) = out
            .key
            .filter(|k| out.served.cached() && self.verify.samples(k))
        else {
            return;
        };
        let job = &self.jobs[j];
        let module = self.unit(j);
        let store = self.store.as_ref();
        let (ns, fresh) = match job.phase {
            Phase::Cicc(arch) => (Ns::Ptx, self.fresh_ptx(j, arch, Emit::Ptx)),
            Phase::Lto(arch) => (Ns::Ptx, self.fresh_ptx(j, arch, Emit::LtoIr)),
            Phase::Ptxas(arch) => {
                let ptx = input.and_then(|i| i.bytes(store, Ns::Ptx));
                (
                    Ns::Cubin,
                    ptx.and_then(|ptx| self.fresh_cubin(j, arch, ptx)),
                )
            }
            // Linked again in `link.rs`, which has the inputs.
            Phase::Link(_) => return,
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
            let _ = std::fs::remove_file(store.entry_path(ns.dir(), &key));
        }
        let holds = self.key_holds(j, module, job.phase, &out.deps);
        let detail = format!(
            "{} cached bytes, {} compiled now{}",
            cached.len(),
            fresh.len(),
            if out.served == Served::Preprocessed {
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

    /// The PTX (or LTO-IR) of cicc job `j`, compiled again.
    fn fresh_ptx(&self, j: usize, arch: Arch, emit: Emit) -> Option<Vec<u8>> {
        let module = self.unit(j);
        let dir = self.tmp.path().join(format!("verify-{j}"));
        std::fs::create_dir_all(&dir).ok()?;
        let out = dir.join("out.ptx");
        let command = match emit {
            Emit::Ptx => cicc_command,
            Emit::LtoIr => lto_command,
        };
        let cmd = command(
            self.side(j).tk,
            &self.unlaunched(),
            module,
            arch,
            &out,
            &dir.join("d"),
        );
        let ran = self.execute_in(&cmd, &out, None).ok()?;
        Some(ran.bytes)
    }

    fn fresh_cubin(&self, j: usize, arch: Arch, ptx: &[u8]) -> Option<Vec<u8>> {
        let dir = self.tmp.path().join(format!("verify-{j}"));
        std::fs::create_dir_all(&dir).ok()?;
        std::fs::write(dir.join(PTXAS_IN), ptx).ok()?;
        let cmd = ptxas_command(self.side(j).tk, &self.unlaunched(), arch, &dir);
        let ran = self.execute_in(&cmd, &dir.join(PTXAS_OUT), None).ok()?;
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
            Phase::Cicc(arch) | Phase::Lto(arch) => {
                let lead = self.jobs[j].dep.and_then(|d| match self.jobs[d].phase {
                    Phase::Cicc(a) => Some(a),
                    Phase::Ptxas(_) | Phase::Lto(_) | Phase::Link(_) => None,
                });
                let emit = match phase {
                    Phase::Lto(_) => Emit::LtoIr,
                    _ => Emit::Ptx,
                };
                let side = self.side(j);
                let base = keys::settings_key(self.settings, side.facts, keys::Stage::Cicc);
                let label = emit.key_labels().0;
                let job = keys::cicc_job(label, &base.finish(), side.roots, module, arch, lead);
                (base, job.items().to_vec())
            }
            Phase::Ptxas(arch) => {
                let base =
                    keys::settings_key(self.settings, self.side(j).facts, keys::Stage::Ptxas);
                (
                    base,
                    vec![
                        ("arch".to_owned(), arch.sm_name()),
                        ("ptx".to_owned(), "(the PTX's content)".to_owned()),
                    ],
                )
            }
            Phase::Link(t) => {
                let base =
                    keys::settings_key(self.settings, self.side(j).facts, keys::Stage::Ptxas);
                let inputs = ("inputs".to_owned(), "(their content)".to_owned());
                (base, vec![("target".to_owned(), t.to_string()), inputs])
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
