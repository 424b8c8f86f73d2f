//! `cargo archbuild`: the command-line face of archbuild.
//!
//! Each subcommand lives in its own module under `commands`; `cli` holds the clap types,
//! `shell` the cargo-style output and `error` the one error type with its exit codes.
//! The binary (`src/main.rs`) only calls [`run_from_env`].

#![expect(
    clippy::result_large_err,
    reason = "`CliError` holds the library errors unboxed, so that `source()` returns the \
              library's error itself (a `Box<E>` field would make it return the box, and \
              `downcast_ref::<E>` fail); it is made at most once per command, on the way to the \
              exit code, so its size costs nothing"
)]

mod building;
mod cli;
mod commands;
mod error;
mod facts;
mod files;
mod gpus;
mod listing;
mod messages;
mod modules;
mod names;
mod outcome;
mod report;
mod shell;
mod templates;
mod workspace;

use error::{exit, CliError};

/// Parses the process's arguments, runs the subcommand, prints errors, and returns the exit code.
pub fn run_from_env() -> i32 {
    let cli = match cli::Cli::parse_from_env() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (exit 2).
            let _ = e.print();
            return e.exit_code();
        }
    };
    let mut shell = shell::Shell::new(cli.message_format, cli.color, cli.quiet, cli.verbose);
    match commands::run(cli.command, &mut shell) {
        Ok(()) => exit::OK,
        Err(CliError::Write { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => {
            exit::OK
        }
        Err(e) => {
            shell.error(&e);
            e.exit_code()
        }
    }
}
