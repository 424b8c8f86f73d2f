//! What `native` means to a build, the same GPUs every `cargo archbuild` command sees: those a
//! program names (`Build::native_devices`), else the simulated GPUs `ARCHBUILD_SIMULATED_GPUS`
//! describes, parsed by `archbuild_arch::SimulatedGpus` as the runtime's simulated driver parses
//! them, else the machine's, from the toolkit's `__nvcc_device_query`. Asked only when a list
//! says `native`; the variable is read through the build's `Env`, so a build script announces
//! it to Cargo (`cargo:rerun-if-env-changed`).

use archbuild_arch::{ComputeCapability, SimulatedGpus};

use crate::base::env::Env;
use crate::error::Result;

/// Simulated GPUs instead of the machine's (the runtime's `gpus::SIM_VAR`).
pub(crate) const SIMULATED_GPUS: &str = "ARCHBUILD_SIMULATED_GPUS";

/// The compute capabilities `native` resolves to: `given`, else the simulated GPUs, else
/// `query`'s (the toolkit's device query, run only then). A bad description is an error naming
/// the variable and the part that is wrong.
pub(crate) fn native_devices(
    env: &Env,
    given: Option<&[ComputeCapability]>,
    query: impl FnOnce() -> Vec<ComputeCapability>,
) -> Result<Vec<ComputeCapability>> {
    if let Some(ccs) = given {
        return Ok(ccs.to_vec());
    }
    match env.var(SIMULATED_GPUS) {
        Some(text) => Ok(SimulatedGpus::parse(&text, SIMULATED_GPUS)?.ccs()),
        None => Ok(query()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cc(major: u32, minor: u32) -> ComputeCapability {
        ComputeCapability::new(major, minor)
    }

    /// The spellings the runtime's `gpus::tests::the_runtime_reads_the_simulated_gpus_as_the_build_does`
    /// reads too, with the devices both must see.
    fn spellings() -> Vec<(&'static str, Vec<ComputeCapability>)> {
        vec![
            ("7.5,8.6@13000", vec![cc(7, 5), cc(8, 6)]),
            (" 86 ; sm_75:RTX 2080 ", vec![cc(8, 6), cc(7, 5)]),
            ("sm_90a:H100,8.9:RTX 4090@12.4", vec![cc(9, 0), cc(8, 9)]),
            ("12.0,12.0@13.1", vec![cc(12, 0), cc(12, 0)]),
            ("@13.0", vec![]),
        ]
    }

    #[test]
    fn native_is_the_simulated_gpus_read_through_the_env() {
        for (text, want) in spellings() {
            let env = Env::from_vars([(SIMULATED_GPUS, text)]);
            let got = native_devices(&env, None, || panic!("{text}: the toolkit was asked"));
            assert_eq!(got.unwrap(), want, "{text}");
            // Read through the build's `Env`: a build script announces it.
            assert_eq!(env.read_names(), [SIMULATED_GPUS], "{text}");
        }
    }

    #[test]
    fn a_program_s_devices_win_and_the_toolkit_answers_without_the_variable() {
        let sim = Env::from_vars([(SIMULATED_GPUS, "7.5")]);
        let given = [cc(9, 0)];
        let got = native_devices(&sim, Some(&given), || panic!("asked")).unwrap();
        assert_eq!(got, given);
        for blank in [
            Env::from_vars([(SIMULATED_GPUS, " ")]),
            Env::from_vars::<&str, &str>([]),
        ] {
            assert_eq!(
                native_devices(&blank, None, || vec![cc(8, 0)]).unwrap(),
                [cc(8, 0)]
            );
        }
        let bad = Env::from_vars([(SIMULATED_GPUS, "7.5,eight")]);
        let e = native_devices(&bad, None, || panic!("asked"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("invalid ARCHBUILD_SIMULATED_GPUS `7.5,eight`: `eight` is not a compute"),
            "{e}"
        );
    }
}
