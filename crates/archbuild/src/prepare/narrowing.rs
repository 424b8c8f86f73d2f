//! Whether a per-file or per-group arch list (`Build::file_archs`, Cargo.toml's `file-archs`)
//! *narrows* the requested list or *overrides* it (`docs/arch-lists.md`, "Narrowing a per-file
//! list"), by one precedence: `Build::arch_list_mode`, then `ARCHBUILD_ARCH_LIST_MODE`, then
//! `arch-list-mode` in `[package.metadata.archbuild]`, then `auto`.
//!
//! `auto` narrows when the requested list comes from the environment (`ARCHBUILD_ARCHS`,
//! `TORCH_CUDA_ARCH_LIST`, `CUDAARCHS`): the person building asks for their GPUs, and the
//! file's list says what the kernel can be built for. It overrides when the list is the
//! package's own (`Build::archs`, `--archs`, Cargo.toml's `archs`): the author wrote both
//! lists, so `archs = "7.5 8.6"` with `"hopper.cu" = "9.0a"` still builds the hopper kernel
//! for 9.0a. Nothing is narrowed by the default list (`all-major`): nothing was requested.

use archbuild_arch::{ArchList, Target};

use crate::base::env::Env;
use crate::base::layered::{Layer, Layered, Setting};
use crate::config::archs::{ArchListMode, ArchSource, ResolvedArchs};
use crate::config::manifest::PackageConfig;
use crate::error::{EmptyNarrowing, Error, Result};
use crate::prepare::spec::Spec;

/// The variable choosing the mode (`docs/environment.md`).
pub(crate) const ARCH_LIST_MODE_VAR: &str = "ARCHBUILD_ARCH_LIST_MODE";

/// The mode and how messages describe it ("arch-list mode `narrow` from …").
pub(crate) fn resolve(
    b: &Spec,
    env: &Env,
    pkg: Option<&PackageConfig>,
) -> Result<(ArchListMode, String)> {
    const SETTING: Setting = Setting(&[
        Layer::Builder("the build's `.arch_list_mode(...)`"),
        Layer::Variable(ARCH_LIST_MODE_VAR),
        Layer::Manifest("arch-list-mode"),
    ]);
    let manifest = pkg.and_then(|p| p.arch_list_mode.as_deref());
    let Some(Layered { value, origin }) =
        SETTING.resolve(b.arch_list_mode.as_deref(), env, manifest)
    else {
        return Ok((
            ArchListMode::Auto,
            "the default arch-list mode `auto` narrows a list from the environment".to_owned(),
        ));
    };
    let mode = ArchListMode::parse(&value).ok_or_else(|| Error::Config {
        what: "arch list mode",
        origin: origin.to_string(),
        value: value.clone(),
        hint: "use `auto` (narrow a list from the environment, the default), `narrow` (always \
               intersect per-file lists with the requested list) or `override` (per-file \
               lists replace it)"
            .to_owned(),
    })?;
    Ok((
        mode,
        format!("arch-list mode `{}` from {origin}", mode.name()),
    ))
}

/// A module's own list narrowed to the requested one; an empty result is an error naming the
/// file, both lists and the fixes.
pub(crate) fn narrow(
    own: ResolvedArchs,
    own_origin: &str,
    requested: &ResolvedArchs,
    mode: &str,
) -> Result<ResolvedArchs> {
    let list = archbuild_arch::narrow(&own.list, &requested.list);
    if list.is_empty() {
        let file = match &own.source {
            ArchSource::FileOverride(f) => f.clone(),
            other => other.to_string(),
        };
        return Err(Error::NarrowedToNothing(Box::new(EmptyNarrowing {
            file,
            own: own.list.to_string(),
            own_origin: own_origin.to_owned(),
            requested: requested.list.to_string(),
            requested_origin: requested.source.to_string(),
            gpus: gpus_of(&own.list),
            mode: mode.to_owned(),
        })));
    }
    Ok(ResolvedArchs { list, ..own })
}

/// The GPUs a list's targets are built for, for the fix (`9.0`).
fn gpus_of(list: &ArchList) -> String {
    let mut ccs: Vec<String> = list
        .targets()
        .iter()
        .map(|t: &Target| t.arch.cc.to_string())
        .collect();
    ccs.dedup();
    ccs.join(" ")
}

/// A host library hands its fat binaries to the CUDA runtime, which loads no LTO-IR (CUDA
/// 12.0's drivers stopped linking NVVM IR): refused with the ways out.
pub(crate) fn refuse_lto_in_library(modules: &[crate::plan::Module]) -> crate::Result<()> {
    let Some(m) = modules
        .iter()
        .find(|m| m.host && m.archs.list.lto().next().is_some())
    else {
        return Ok(());
    };
    Err(crate::Error::Config {
        what: "arch list for a host library",
        origin: m.archs.source.to_string(),
        value: m.archs.list.to_string(),
        hint: "a `Library`'s kernels are loaded by the CUDA runtime, which cannot load LTO-IR \
               (`lto_XY`, `+LTO`); build cubins and PTX for it (`9.0+PTX`), or build the LTO-IR \
               as kernels with `Build` and load them with archbuild-runtime, which links LTO-IR \
               with nvJitLink"
            .into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_narrows_only_a_list_from_the_environment() {
        let var = ArchSource::Var("ARCHBUILD_ARCHS");
        for (mode, source, narrows) in [
            (ArchListMode::Auto, &var, true),
            (ArchListMode::Auto, &ArchSource::Manifest, false),
            (ArchListMode::Auto, &ArchSource::Explicit, false),
            (ArchListMode::Auto, &ArchSource::Default, false),
            (ArchListMode::Narrow, &ArchSource::Manifest, true),
            (ArchListMode::Narrow, &ArchSource::Default, false),
            (ArchListMode::Override, &var, false),
        ] {
            assert_eq!(mode.narrows(source), narrows, "{mode:?} {source:?}");
        }
    }

    #[test]
    fn the_mode_s_precedence_and_a_bad_word() {
        let env = Env::from_vars([(ARCH_LIST_MODE_VAR, "Override")]);
        let pkg = PackageConfig {
            arch_list_mode: Some("narrow".into()),
            ..Default::default()
        };
        let mut b = Spec::default();
        assert_eq!(
            resolve(&b, &env, Some(&pkg)).unwrap().0,
            ArchListMode::Override
        );
        assert_eq!(
            resolve(&b, &Env::from_vars::<&str, &str>([]), Some(&pkg))
                .unwrap()
                .0,
            ArchListMode::Narrow
        );
        b.arch_list_mode = Some("sideways".into());
        let e = resolve(&b, &env, None).unwrap_err().to_string();
        assert!(
            e.starts_with("invalid arch list mode in the build's `.arch_list_mode(...)`: `sideways`; use `auto`"),
            "{e}"
        );
    }
}
