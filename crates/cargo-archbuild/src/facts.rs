//! Facts from outside the arch rules that some commands need, fetched lazily and once: the
//! CUDA toolkit (for `all`/`all-major` and builds) and the visible GPUs (for `native`).

use archbuild::{Discovery, Env, Home, Toolkit};
use archbuild_arch::{Arch, ArchList, ComputeCapability, ResolveContext};

use crate::error::CliError;
use crate::gpus::Gpus;
use crate::shell::Shell;

/// Lazily gathered toolkit and GPU facts.
#[derive(Default)]
pub(crate) struct Facts {
    toolkit: Option<Result<Toolkit, String>>,
    devices: Option<Vec<ComputeCapability>>,
}

impl Facts {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// The toolkit a build would use (not provisioned here), or why there is none.
    pub(crate) fn toolkit(&mut self) -> Result<&Toolkit, String> {
        self.toolkit
            .get_or_insert_with(|| {
                let env = Env::process();
                Discovery::new(Home::from_env(&env))
                    .locate(&env, false, &mut |_| {})
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Compute capabilities of the visible GPUs (real or simulated); empty without a driver.
    pub(crate) fn devices(&mut self) -> Result<&[ComputeCapability], CliError> {
        if self.devices.is_none() {
            self.devices = Some(Gpus::open()?.ccs());
        }
        Ok(self.devices.as_deref().unwrap_or(&[]))
    }

    /// Parses `text` (from `origin`), asking for GPUs or the toolkit only when the list says
    /// `native`, `all` or `all-major`.
    pub(crate) fn resolve_list(
        &mut self,
        text: &str,
        origin: &str,
        shell: &Shell,
    ) -> Result<ArchList, CliError> {
        let lower = text.to_ascii_lowercase();
        let devices: Vec<ComputeCapability> = if lower.contains("native") {
            self.devices()?.to_vec()
        } else {
            Vec::new()
        };
        let archs: Vec<Arch> = if lower.contains("all") {
            match self.toolkit() {
                Ok(t) => t.archs(),
                Err(why) => {
                    shell.warn(format!(
                        "no CUDA toolkit to expand `all`/`all-major` against: {why}"
                    ));
                    Vec::new()
                }
            }
        } else {
            Vec::new()
        };
        let mut ctx = ResolveContext::new(origin);
        if lower.contains("native") {
            ctx = ctx.with_devices(&devices);
        }
        if !archs.is_empty() {
            ctx = ctx.with_toolkit(&archs);
        }
        Ok(ArchList::parse(text, &ctx)?)
    }

    /// The arch list a build would use, by archbuild's precedence: `--archs`, then
    /// `ARCHBUILD_ARCHS`, `TORCH_CUDA_ARCH_LIST`, `CUDAARCHS`, then the toolkit's `all-major`.
    /// Returns the list and where it came from.
    pub(crate) fn configured_list(
        &mut self,
        explicit: Option<&str>,
        shell: &Shell,
    ) -> Result<(ArchList, String), CliError> {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let (text, origin) = if let Some(e) = explicit {
            (e.to_string(), "--archs".to_string())
        } else if let Some(v) = env("ARCHBUILD_ARCHS") {
            (v, "ARCHBUILD_ARCHS".into())
        } else if let Some(v) = env("TORCH_CUDA_ARCH_LIST") {
            (v, "TORCH_CUDA_ARCH_LIST".into())
        } else {
            (
                "all-major".to_string(),
                "the default (`all-major` of the toolkit)".into(),
            )
        };
        let list = self.resolve_list(&text, &origin, shell)?;
        Ok((list, origin))
    }
}
