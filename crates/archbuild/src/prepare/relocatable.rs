//! Relocatable device code as a build asks for it: the setting from its sources, and what it
//! is not built for.

use crate::base::env::Env;
use crate::base::layered::{Layer, Layered, Setting};
use crate::config::manifest::PackageConfig;
use crate::error::{Error, Result};
use crate::plan::DeviceCode;
use crate::prepare::spec::Spec;

/// The variable that turns relocatable device code on (`docs/environment.md`).
pub(crate) const RDC_VAR: &str = "ARCHBUILD_RELOCATABLE_DEVICE_CODE";

/// Whole-program or relocatable device code: the build's setter (or the CLI flag), then
/// `ARCHBUILD_RELOCATABLE_DEVICE_CODE`, then Cargo.toml's `relocatable-device-code`.
pub(crate) fn device_code(b: &Spec, env: &Env, pkg: Option<&PackageConfig>) -> Result<DeviceCode> {
    const SETTING: Setting = Setting(&[
        Layer::Builder("the build's `.relocatable_device_code(...)` / `--relocatable-device-code`"),
        Layer::Variable(RDC_VAR),
        Layer::Manifest("relocatable-device-code"),
    ]);
    let text = |on: bool| if on { "true" } else { "false" };
    let builder = b.relocatable_device_code.map(text);
    let manifest = pkg.and_then(|p| p.relocatable_device_code).map(text);
    let Some(Layered { value, origin }) = SETTING.resolve(builder, env, manifest) else {
        return Ok(DeviceCode::Whole);
    };
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Ok(DeviceCode::Relocatable),
        "0" | "false" | "off" | "no" => Ok(DeviceCode::Whole),
        _ => Err(Error::Config {
            what: "relocatable device code setting",
            origin: origin.to_string(),
            value,
            hint: "use `1` (or true, on, yes) to compile each file as relocatable device code \
                   and device-link it per target, or `0` (false, off, no) for whole-program \
                   device code"
                .into(),
        }),
    }
}

/// Marks the modules as a library's sources (`host`) and with the build's device code, then
/// refuses what relocatable code is not built for.
pub(crate) fn mark(
    modules: &mut [crate::plan::Module],
    host: bool,
    code: DeviceCode,
) -> Result<()> {
    for m in modules.iter_mut() {
        m.host = host;
        m.device_code = code;
    }
    check_relocatable(modules)
}

/// What relocatable device code is not built for, refused with the way out: LTO-IR targets
/// (each file's LTO-IR would have to be linked at load time; the `+PTX` of a relocatable build
/// is linked at build time instead).
pub(crate) fn check_relocatable(modules: &[crate::plan::Module]) -> Result<()> {
    let relocatable = modules
        .iter()
        .filter(|m| m.device_code == DeviceCode::Relocatable);
    for m in relocatable {
        if m.archs.list.lto().next().is_some() {
            return Err(Error::Config {
                what: "arch list for relocatable device code",
                origin: m.archs.source.to_string(),
                value: m.archs.list.to_string(),
                hint: "LTO-IR targets (`lto_XY`, `+LTO`) are not built from relocatable device \
                       code: ask for cubins and PTX (`9.0+PTX`: the PTX is device-linked at \
                       build time), or turn relocatable device code off"
                    .into(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> Env {
        Env::from_vars(vars.iter().copied())
    }

    /// The build's setter beats the variable, which beats Cargo.toml; unset is whole-program.
    #[test]
    fn the_setting_s_sources_in_order() {
        let pkg = PackageConfig {
            relocatable_device_code: Some(true),
            ..Default::default()
        };
        let mut b = Spec::default();
        assert_eq!(device_code(&b, &env(&[]), None).unwrap(), DeviceCode::Whole);
        assert_eq!(
            device_code(&b, &env(&[]), Some(&pkg)).unwrap(),
            DeviceCode::Relocatable
        );
        let off = env(&[(RDC_VAR, "off")]);
        assert_eq!(
            device_code(&b, &off, Some(&pkg)).unwrap(),
            DeviceCode::Whole
        );
        b.relocatable_device_code = Some(true);
        assert_eq!(
            device_code(&b, &off, Some(&pkg)).unwrap(),
            DeviceCode::Relocatable
        );
        for word in ["1", "true", "ON", "yes"] {
            let e = env(&[(RDC_VAR, word)]);
            assert_eq!(
                device_code(&Spec::default(), &e, None).unwrap(),
                DeviceCode::Relocatable
            );
        }
        let bad = env(&[(RDC_VAR, "sometimes")]);
        let e = device_code(&Spec::default(), &bad, None)
            .unwrap_err()
            .to_string();
        insta::assert_snapshot!(e);
    }

    /// LTO-IR targets are refused with relocatable code, with the way out; whole-program
    /// modules and relocatable host libraries pass.
    #[test]
    fn what_relocatable_code_is_not_built_for_is_refused_with_the_fix() {
        use crate::config::archs::{ArchSource, ResolvedArchs};
        let module = |list: &str, host: bool, device_code: DeviceCode| crate::plan::Module {
            name: "k".into(),
            source: "k.cu".into(),
            members: vec!["k.cu".into()],
            archs: ResolvedArchs {
                list: list.parse().unwrap(),
                source: ArchSource::Var("ARCHBUILD_ARCHS"),
                input: list.into(),
            },
            arch_list: String::new(),
            host,
            device_code,
        };
        let r = DeviceCode::Relocatable;
        assert!(check_relocatable(&[module("8.0 9.0+PTX", false, r)]).is_ok());
        assert!(check_relocatable(&[module("9.0+LTO", true, DeviceCode::Whole)]).is_ok());
        assert!(check_relocatable(&[module("8.0 9.0+PTX", true, r)]).is_ok());
        let lto = check_relocatable(&[module("8.0 lto_90", false, r)])
            .unwrap_err()
            .to_string();
        insta::assert_snapshot!(lto);
    }
}
