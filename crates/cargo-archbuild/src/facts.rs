//! Facts from outside the arch rules that some commands need, fetched lazily and once: the
//! CUDA toolkit (for `all`/`all-major` and builds) and the visible GPUs (for `native`).

use archbuild::{
    config::{ArchSource, Home},
    toolkit::Discovery,
    Env, Toolkit,
};
use archbuild_arch::{Arch, ArchList, ComputeCapability, Error as ArchError, ListFacts};

use crate::error::CliError;
use crate::shell::Shell;

/// The CLI's answers to the arch parser, remembering why the toolkit was missing so that the
/// error of an `all` without one comes with the reason.
struct Asked<'a> {
    facts: &'a mut Facts,
    no_toolkit: Option<String>,
}

impl ListFacts for Asked<'_> {
    type Error = CliError;

    fn devices(&mut self) -> Result<Vec<ComputeCapability>, CliError> {
        Ok(self.facts.devices()?.to_vec())
    }

    fn toolkit_archs(&mut self) -> Result<Option<Vec<Arch>>, CliError> {
        match self.facts.toolkit() {
            Ok(t) => Ok(Some(t.archs())),
            Err(why) => {
                self.no_toolkit = Some(why);
                Ok(None)
            }
        }
    }
}

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
            self.devices = Some(crate::gpus::open()?.ccs());
        }
        Ok(self.devices.as_deref().unwrap_or(&[]))
    }

    /// Parses `text` (from `origin`), asking for GPUs or the toolkit only when the arch parser
    /// meets an entry that needs them (`native`; `all`/`all-major` or a compute capability
    /// newer than its tables).
    pub(crate) fn resolve_list(
        &mut self,
        text: &str,
        origin: &str,
        shell: &Shell,
    ) -> Result<ArchList, CliError> {
        let mut asked = Asked {
            facts: self,
            no_toolkit: None,
        };
        let list = ArchList::resolve(text, origin, &mut asked);
        if let (Err(CliError::ArchList(ArchError::NoToolkitList { .. })), Some(why)) =
            (&list, &asked.no_toolkit)
        {
            shell.warn(format!(
                "no CUDA toolkit to expand `all`/`all-major` against: {why}"
            ));
        }
        list
    }

    /// The arch list a build would use, by archbuild's precedence ([`archbuild::config::choose_arch_list`]):
    /// `--archs`, `ARCHBUILD_ARCHS`, the manifest's `archs` (asked of `manifest` only when it
    /// matters), `TORCH_CUDA_ARCH_LIST`, `CUDAARCHS`, then the toolkit's `all-major`.
    /// Returns the list and where it came from.
    pub(crate) fn configured_list(
        &mut self,
        explicit: Option<&str>,
        manifest: impl FnOnce() -> Result<Option<String>, CliError>,
        shell: &Shell,
    ) -> Result<(ArchList, String), CliError> {
        let (list, source, _) = self.configured_source(explicit, manifest, shell)?;
        let origin = match source {
            ArchSource::Explicit => "--archs".to_string(),
            other => other.to_string(),
        };
        Ok((list, origin))
    }

    /// As [`Facts::configured_list`], with the source itself and the text as the source had it
    /// (before a dialect was rewritten).
    pub(crate) fn configured_source(
        &mut self,
        explicit: Option<&str>,
        manifest: impl FnOnce() -> Result<Option<String>, CliError>,
        shell: &Shell,
    ) -> Result<(ArchList, ArchSource, String), CliError> {
        let env = Env::process().with_cargo_metadata(false);
        let (text, source) = archbuild::config::choose_arch_list(explicit, &env, manifest)?;
        let original = match &source {
            ArchSource::Var(v) => env.var(v).unwrap_or_else(|| text.clone()),
            _ => text.clone(),
        };
        let list = self.resolve_list(&text, &source.to_string(), shell)?;
        Ok((list, source, original))
    }
}
