//! The examples' one error policy, included by each with
//! `#[path = "../../common/exit.rs"] mod exit;` (they are separate crates): a missing driver or
//! GPU prints `no GPU: <reason>` and exits 0, so the examples run in CI without a GPU, unless
//! `--require-gpu` is given; every other failure is `<program>: error: <what>` and exit 1.

use std::process::ExitCode;

use archbuild_runtime::Error as LoadError;

/// Why a run failed.
pub enum Failure {
    /// No driver or no device: not this program's fault.
    NoGpu(String),
    Other(String),
}

impl From<LoadError> for Failure {
    fn from(e: LoadError) -> Self {
        match e {
            LoadError::NoDriver { .. } | LoadError::NoDevice { .. } => {
                Failure::NoGpu(e.to_string())
            }
            other => Failure::Other(other.to_string()),
        }
    }
}

impl From<cudarc::driver::DriverError> for Failure {
    fn from(e: cudarc::driver::DriverError) -> Self {
        Failure::Other(format!("CUDA driver call failed: {e}"))
    }
}

/// Reports how `program`'s run ended and returns its exit code, by the policy above.
pub fn report(program: &str, result: Result<(), Failure>) -> ExitCode {
    let require_gpu = std::env::args().skip(1).any(|a| a == "--require-gpu");
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::NoGpu(reason)) if !require_gpu => {
            println!("no GPU: {reason}");
            ExitCode::SUCCESS
        }
        Err(Failure::NoGpu(reason)) => {
            eprintln!("{program}: error: no GPU: {reason} (--require-gpu was given)");
            ExitCode::FAILURE
        }
        Err(Failure::Other(e)) => {
            eprintln!("{program}: error: {e}");
            ExitCode::FAILURE
        }
    }
}
