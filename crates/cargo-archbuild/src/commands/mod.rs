//! One module per subcommand; this file only dispatches.

mod doctor;
mod explain;
mod inspect;
mod matrix;
mod merge;

use crate::cli::Command;
use crate::error::CliError;
use crate::shell::Shell;

/// Runs one subcommand; `Ok` means exit code 0.
pub(crate) fn run(command: Command, shell: &mut Shell) -> Result<(), CliError> {
    match command {
        Command::Doctor(a) => doctor::run(&a, shell),
        Command::Explain(a) => explain::run(&a, shell),
        Command::Inspect(a) => inspect::run(&a, shell),
        Command::Matrix(a) => matrix::run(&a, shell),
        Command::Merge(a) => merge::run(&a, shell),
        _ => Err(CliError::Internal { message: "not wired yet".into() }),
    }
}
