//! One module per subcommand; this file only dispatches.

mod build;
mod cache;
mod ci;
mod ci_source;
mod compile;
mod doctor;
mod explain;
pub(crate) mod inspect;
mod matrix;
mod merge;
mod new;
mod package;
mod package_budget;
pub(crate) mod toolkit;

use crate::cli::Command;
use crate::error::CliError;
use crate::shell::Shell;

/// Runs one subcommand; `Ok` means exit code 0.
pub(crate) fn run(command: Command, shell: &mut Shell) -> Result<(), CliError> {
    match command {
        Command::Build(a) => build::run(&a, shell),
        Command::Cache(c) => cache::run(&c, shell),
        Command::Ci(a) => ci::run(&a, shell),
        Command::Compile(a) => compile::run(&a, shell),
        Command::Doctor(a) => doctor::run(&a, shell),
        Command::Explain(a) => explain::run(&a, shell),
        Command::Inspect(a) => inspect::run(&a, shell),
        Command::Matrix(a) => matrix::run(&a, shell),
        Command::Merge(a) => merge::run(&a, shell),
        Command::New(a) => new::run(&a, shell),
        Command::Package(a) => package::run(&a, shell),
        Command::Toolkit(c) => toolkit::run(&c, shell),
    }
}
