//! The one error type of the CLI, its exit codes (documented in docs/cli.md) and the fix each
//! error names.
//!
//! Errors from the library crates already say what to do; they are wrapped with the context the
//! CLI knows (which file, which option) and mapped to an exit code by their kind.

use std::path::PathBuf;

/// Exit codes, stable and documented in `docs/cli.md`.
pub mod exit {
    /// Success.
    pub const OK: i32 = 0;
    /// A check failed: `doctor FILE` found a GPU that cannot run the file.
    pub const CHECK_FAILED: i32 = 1;
    /// Bad command line, arch list or configuration: a flag, an environment variable, or
    /// `[package.metadata.archbuild]` (a wrong type as a wrong value); clap also exits 2.
    pub const USAGE: i32 = 2;
    /// An input file is missing, unreadable, or not a format archbuild reads.
    pub const INPUT: i32 = 3;
    /// No usable CUDA toolkit, or it cannot build what was asked.
    pub const TOOLKIT: i32 = 4;
    /// nvcc or ptxas rejected a source file.
    pub const COMPILE: i32 = 5;
    /// cargo metadata failed or no package has kernels.
    pub const CARGO: i32 = 6;
    /// The CUDA driver failed (other than "no driver", which doctor reports).
    pub const DRIVER: i32 = 7;
    /// An output file could not be written.
    pub const OUTPUT: i32 = 8;
    /// Interrupted (Ctrl-C / SIGTERM), as shells report a SIGINT death.
    pub const INTERRUPTED: i32 = 130;
    /// A bug in archbuild.
    pub const INTERNAL: i32 = 101;

    /// Every code with its short meaning: `--help` prints it, and a test holds `docs/cli.md`'s
    /// table to it.
    pub const TABLE: &[(i32, &str)] = &[
        (OK, "ok"),
        (CHECK_FAILED, "a GPU cannot run the file (doctor)"),
        (USAGE, "usage, arch-list or configuration error"),
        (INPUT, "input file error"),
        (TOOLKIT, "toolkit error"),
        (COMPILE, "compile error"),
        (CARGO, "cargo/workspace error"),
        (DRIVER, "CUDA driver error"),
        (OUTPUT, "output error or full disk"),
        (INTERNAL, "a bug in archbuild"),
        (INTERRUPTED, "interrupted"),
    ];

    /// The `--help` paragraph.
    pub fn help() -> String {
        let each: Vec<String> = TABLE.iter().map(|(c, m)| format!("{c} {m}")).collect();
        format!("Exit codes: {}. See docs/cli.md.", each.join(", "))
    }
}

/// Everything that can make a `cargo archbuild` command fail.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{message}")]
    Usage { message: String, help: String },

    #[error("{0}")]
    ArchList(#[from] archbuild_arch::Error),

    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("`{}` is not a file archbuild can read: {message}", path.display())]
    Format { path: PathBuf, message: String },

    #[error("`{}` contains no CUDA images", path.display())]
    NoImages { path: PathBuf },

    #[error("fat binaries cannot be merged: {message}")]
    Merge { message: String },

    /// From the build driver (toolkit, configuration, compile); its message names the fix.
    #[error("{0}")]
    Build(#[from] archbuild::Error),

    #[error("{message}")]
    Cargo { message: String, help: String },

    #[error("{message}")]
    Driver { message: String },

    #[error("{failing} of {total} GPU(s) cannot run `{}`", file.display())]
    DoctorFailed {
        file: PathBuf,
        failing: usize,
        total: usize,
    },

    #[error("cannot write `{}`: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("{message}")]
    Internal { message: String },
}

impl CliError {
    /// The exit code for this error (see [`exit`]).
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::DoctorFailed { .. } => exit::CHECK_FAILED,
            CliError::Usage { .. } | CliError::ArchList(_) => exit::USAGE,
            CliError::Read { .. }
            | CliError::Format { .. }
            | CliError::NoImages { .. }
            | CliError::Merge { .. } => exit::INPUT,
            CliError::Build(e) => build_exit_code(e),
            CliError::Cargo { .. } => exit::CARGO,
            CliError::Driver { .. } => exit::DRIVER,
            CliError::Write { .. } => exit::OUTPUT,
            CliError::Internal { .. } => exit::INTERNAL,
        }
    }

    /// A stable name for JSON consumers.
    pub fn kind(&self) -> &'static str {
        match self {
            CliError::Usage { .. } => "usage",
            CliError::ArchList(_) => "arch-list",
            CliError::Read { .. } => "read",
            CliError::Format { .. } => "format",
            CliError::NoImages { .. } => "no-images",
            CliError::Merge { .. } => "merge",
            CliError::Build(e) => match build_exit_code(e) {
                exit::TOOLKIT => "toolkit",
                exit::COMPILE => "compile",
                exit::USAGE => "config",
                exit::INPUT => "input",
                exit::CARGO => "manifest",
                exit::INTERRUPTED => "interrupted",
                _ => "output",
            },
            CliError::Cargo { .. } => "cargo",
            CliError::Driver { .. } => "driver",
            CliError::DoctorFailed { .. } => "doctor-failed",
            CliError::Write { .. } => "write",
            CliError::Internal { .. } => "internal",
        }
    }

    /// The fix, when the message itself does not already carry one.
    pub fn help(&self) -> Option<String> {
        Some(match self {
            CliError::Usage { help, .. } | CliError::Cargo { help, .. } => help.clone(),
            CliError::Read { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                "check the path; it is resolved against the current directory".into()
            }
            CliError::Read { .. } => "check that the file exists and is readable by this user".into(),
            CliError::Format { .. } => "archbuild reads fat binaries (.fatbin), cubins, PTX, and object files, \
                 executables and shared libraries that embed CUDA code; rebuild the file if it was cut short"
                .into(),
            CliError::NoImages { .. } => "the file has no .nv_fatbin section and no fat binary, cubin or PTX inside; \
                 build it with nvcc or `cargo archbuild compile`"
                .into(),
            CliError::Merge { .. } => "merge the outputs of `cargo archbuild compile` shards built from the same \
                 sources with the same flags"
                .into(),
            CliError::DoctorFailed { .. } => "rebuild with the archs named above added to the arch list \
                 (ARCHBUILD_ARCHS or [package.metadata.archbuild] archs), or add +PTX to the newest arch"
                .into(),
            CliError::Write { source, .. }
                if source.kind() == std::io::ErrorKind::StorageFull =>
            {
                "the disk is full: free space on it, or write the output to another disk".into()
            }
            CliError::Write { .. } => "check that the output directory exists and is writable".into(),
            CliError::Internal { .. } => "this is a bug in archbuild; please report it with the command line".into(),
            // These messages come from the library crates and already name the fix.
            CliError::ArchList(_) | CliError::Build(_) | CliError::Driver { .. } => return None,
        })
    }

    /// An error writing to stdout (e.g. a closed pipe).
    pub fn stdout(source: std::io::Error) -> Self {
        CliError::Write {
            path: PathBuf::from("<stdout>"),
            source,
        }
    }

    pub fn usage(message: impl Into<String>, help: impl Into<String>) -> Self {
        CliError::Usage {
            message: message.into(),
            help: help.into(),
        }
    }
}

/// Exit code of a build-driver error, by what the user has to fix.
fn build_exit_code(e: &archbuild::Error) -> i32 {
    use archbuild::Error as E;
    match e {
        E::ToolkitNotFound { .. }
        | E::BadToolkitVar { .. }
        | E::ToolkitQuery { .. }
        | E::PythonMissing { .. }
        | E::PipMissing { .. }
        | E::PipFailed { .. }
        | E::ProvisionBroken { .. }
        | E::TargetUnsupported { .. }
        | E::ToolkitBroken { .. }
        | E::Spawn { .. } => exit::TOOLKIT,
        // A wrong type in [package.metadata.archbuild] is a configuration error like a wrong
        // value there: one code for both.
        E::Arch(_) | E::Config { .. } | E::Manifest { .. } | E::NoSources(_) | E::NoOutDir => {
            exit::USAGE
        }
        E::SourceMissing { .. } => exit::INPUT,
        E::Compile(_) | E::Pack { .. } => exit::COMPILE,
        E::Interrupted => exit::INTERRUPTED,
        _ => exit::OUTPUT,
    }
}

#[cfg(test)]
mod tests {
    use super::exit;

    #[test]
    fn an_interrupted_build_is_kind_interrupted_with_its_code() {
        let e = super::CliError::Build(archbuild::Error::Interrupted);
        assert_eq!(
            (e.kind(), e.exit_code()),
            ("interrupted", exit::INTERRUPTED)
        );
    }

    #[test]
    fn docs_and_help_list_every_exit_code_of_the_one_table() {
        let docs = include_str!("../../../docs/cli.md");
        let section = docs
            .split("## Exit codes")
            .nth(1)
            .and_then(|s| s.split("\n## ").next())
            .expect("docs/cli.md has an exit code section");
        let documented: Vec<i32> = section
            .lines()
            .filter_map(|l| l.strip_prefix("| "))
            .filter_map(|l| l.split(' ').next()?.parse().ok())
            .collect();
        let table: Vec<i32> = exit::TABLE.iter().map(|(c, _)| *c).collect();
        assert_eq!(documented, table, "docs/cli.md's exit code table");
        let help = exit::help();
        for (code, meaning) in exit::TABLE {
            assert!(help.contains(&format!("{code} {meaning}")), "{help}");
        }
    }
}
