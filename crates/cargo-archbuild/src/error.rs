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
///
/// A variant caused by another error holds it as its `source()`, typed, for callers that match
/// on the library's error; the message, which says what the user sees, is built from it.
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

    /// The fat-binary reader rejected the file (or one of its modules, then named as `path`).
    #[error("`{}` is not a file archbuild can read: {source}", path.display())]
    Format {
        path: PathBuf,
        source: archbuild_fatbin::Error,
    },

    /// A `merge` input that is not a fat binary: merge reads nothing else.
    #[error(
        "`{}` is not a file archbuild can read: {source} (merge takes fat binaries, e.g. the \
         outputs of `cargo archbuild compile`)",
        path.display()
    )]
    MergeInput {
        path: PathBuf,
        source: archbuild_fatbin::Error,
    },

    /// The loader rejected a module the reader read; `module` says which one when the file has
    /// several.
    #[error(
        "`{}` is not a file archbuild can read: {}{source}",
        path.display(),
        module.as_deref().map(|m| format!("{m}: ")).unwrap_or_default()
    )]
    Unloadable {
        path: PathBuf,
        module: Option<String>,
        source: archbuild_runtime::Error,
    },

    #[error("`{}` contains no CUDA images", path.display())]
    NoImages { path: PathBuf },

    /// The fat binaries do not merge; the library's error names the files (the CLI gives it
    /// their names).
    #[error("fat binaries cannot be merged: {source}")]
    Merge { source: archbuild_fatbin::Error },

    /// The inputs' build records do not merge (the library's error says why).
    #[error("fat binaries cannot be merged: {source}")]
    MergeRecords { source: archbuild::Error },

    /// A `merge` input whose record (the `.archbuild.json` beside it) describes another fat
    /// binary: the file was replaced after it was built, or the record came from another build.
    /// The library's error ([`archbuild::Error::RecordMismatch`]) names both files.
    #[error("{source}")]
    MergeRecordMismatch {
        path: PathBuf,
        record: PathBuf,
        source: archbuild::Error,
    },

    /// From the build driver (toolkit, configuration, compile); its message names the fix.
    #[error("{0}")]
    Build(#[from] archbuild::Error),

    #[error("{message}")]
    Cargo { message: String, help: String },

    /// `cargo metadata` failed; `command` is the subcommand, for the fix.
    #[error("`cargo metadata` failed: {}", source.to_string().trim_end())]
    Metadata {
        command: &'static str,
        source: cargo_metadata::Error,
    },

    /// From the loader: the CUDA driver failed, or its configuration (the JIT cache) is wrong;
    /// its message names the fix.
    #[error("{0}")]
    Runtime(#[source] archbuild_runtime::Error),

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

    /// A bug; `source` is the error that revealed it, when there is one.
    #[error("{message}")]
    Internal {
        message: String,
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
}

impl CliError {
    /// The exit code for this error (see [`exit`]).
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::DoctorFailed { .. } => exit::CHECK_FAILED,
            CliError::Usage { .. } | CliError::ArchList(_) => exit::USAGE,
            CliError::Read { .. }
            | CliError::Format { .. }
            | CliError::MergeInput { .. }
            | CliError::Unloadable { .. }
            | CliError::NoImages { .. }
            | CliError::Merge { .. }
            | CliError::MergeRecords { .. }
            | CliError::MergeRecordMismatch { .. } => exit::INPUT,
            CliError::Build(e) => build_exit_code(e),
            CliError::Cargo { .. } | CliError::Metadata { .. } => exit::CARGO,
            CliError::Runtime(_) => exit::DRIVER,
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
            CliError::Format { .. } | CliError::MergeInput { .. } | CliError::Unloadable { .. } => {
                "format"
            }
            CliError::NoImages { .. } => "no-images",
            CliError::Merge { .. }
            | CliError::MergeRecords { .. }
            | CliError::MergeRecordMismatch { .. } => "merge",
            CliError::Build(e) => kind_name(e.kind()),
            CliError::Cargo { .. } | CliError::Metadata { .. } => "cargo",
            CliError::Runtime(_) => "driver",
            CliError::DoctorFailed { .. } => "doctor-failed",
            CliError::Write { .. } => "write",
            CliError::Internal { .. } => "internal",
        }
    }

    /// The fix, when the message itself does not already carry one.
    pub fn help(&self) -> Option<String> {
        Some(match self {
            CliError::Usage { help, .. } | CliError::Cargo { help, .. } => help.clone(),
            CliError::Metadata { command, .. } => format!(
                "run `cargo archbuild {command}` inside a Cargo workspace, or pass --manifest-path path/to/Cargo.toml"
            ),
            CliError::Read { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                "check the path; it is resolved against the current directory".into()
            }
            CliError::Read { .. } => "check that the file exists and is readable by this user".into(),
            CliError::Format { .. } | CliError::MergeInput { .. } | CliError::Unloadable { .. } => "archbuild reads fat binaries (.fatbin), cubins, PTX, and object files, \
                 executables and shared libraries that embed CUDA code; rebuild the file if it was cut short"
                .into(),
            CliError::NoImages { .. } => "the file has no .nv_fatbin section and no fat binary, cubin or PTX inside; \
                 build it with nvcc or `cargo archbuild compile`"
                .into(),
            CliError::Merge { .. } | CliError::MergeRecords { .. } => "merge the outputs of `cargo archbuild compile` shards built from the same \
                 sources with the same flags"
                .into(),
            CliError::MergeRecordMismatch { path, record, .. } => format!(
                "take the shard's fat binary and its record from the same `cargo archbuild compile` \
                 (rebuild the shard to get both), or delete `{}` to merge `{}` without a record \
                 (the merged file then gets none and is never taken as prebuilt)",
                record.display(),
                path.display()
            ),
            CliError::DoctorFailed { .. } => "rebuild with the archs named above added to the arch list \
                 (ARCHBUILD_ARCHS or [package.metadata.archbuild] archs), or add +PTX to the newest arch"
                .into(),
            CliError::Write { source, .. }
                if source.kind() == std::io::ErrorKind::StorageFull =>
            {
                "the disk is full: free space on it, or write the output to another disk".into()
            }
            CliError::Write { source, .. }
                if source.kind() == std::io::ErrorKind::PermissionDenied =>
            {
                "this user may not write the file or its directory: make them writable, or \
                 name another output"
                    .into()
            }
            CliError::Write { .. } => "check that the output directory exists and is writable".into(),
            CliError::Internal { .. } => "this is a bug in archbuild; please report it with the command line".into(),
            // These messages come from the library crates and already name the fix.
            CliError::ArchList(_)
            | CliError::Build(_)
            | CliError::Runtime(_) => return None,
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

    /// A bug that no other error revealed.
    pub fn internal(message: impl Into<String>) -> Self {
        CliError::Internal {
            message: message.into(),
            source: None,
        }
    }

    /// A bug revealed by `source`; `message` is the whole text the user sees.
    pub fn bug(
        message: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        CliError::Internal {
            message: message.into(),
            source: Some(source.into()),
        }
    }
}

/// Exit code of a build-driver error, by what the user has to fix.
fn build_exit_code(e: &archbuild::Error) -> i32 {
    kind_exit_code(e.kind())
}

/// The exit code of each kind of build failure (`archbuild::Error::kind`, decided by the
/// library): an exhaustive match, so a new kind needs its code here.
fn kind_exit_code(kind: archbuild::ErrorKind) -> i32 {
    use archbuild::ErrorKind as K;
    match kind {
        K::Toolkit => exit::TOOLKIT,
        K::Config => exit::USAGE,
        K::Input => exit::INPUT,
        K::Compile => exit::COMPILE,
        K::Output => exit::OUTPUT,
        K::Interrupted => exit::INTERRUPTED,
        K::Internal => exit::INTERNAL,
    }
}

/// The JSON name of each kind of build failure: an exhaustive match, so a new kind needs its
/// name here.
fn kind_name(kind: archbuild::ErrorKind) -> &'static str {
    use archbuild::ErrorKind as K;
    match kind {
        K::Toolkit => "toolkit",
        K::Config => "config",
        K::Input => "input",
        K::Compile => "compile",
        K::Output => "output",
        K::Interrupted => "interrupted",
        K::Internal => "internal",
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;
    use std::path::Path;

    use super::{exit, CliError};

    /// Every kind of build failure exits with a code of the documented table, and a variant
    /// group naming what no module has is a configuration error (exit 2), not an output one.
    #[test]
    fn every_build_error_kind_has_a_documented_exit_code() {
        for kind in archbuild::ErrorKind::ALL {
            let code = super::kind_exit_code(*kind);
            assert!(
                exit::TABLE.iter().any(|(c, _)| *c == code),
                "{kind:?} exits {code}, which the table does not document"
            );
        }
        let e = CliError::Build(archbuild::Error::VariantUnknown {
            group: "g".into(),
            kernels: "k".into(),
            known: "a".into(),
        });
        assert_eq!(e.exit_code(), exit::USAGE);
        assert_eq!(e.kind(), "config");
    }
    use crate::cli::{Cli, MessageFormat};
    use crate::shell::Shell;

    /// Runs `cargo archbuild ARGS` in-process, as `run_from_env` does, and returns its error.
    fn fails(args: &[&std::ffi::OsStr]) -> CliError {
        let argv = std::iter::once("cargo-archbuild".as_ref()).chain(args.iter().copied());
        let cli = <Cli as clap::Parser>::try_parse_from(argv).expect("the arguments parse");
        let mut shell = Shell::new(MessageFormat::Human, None, true, false);
        crate::commands::run(cli.command, &mut shell).expect_err("the command fails")
    }

    /// The typed error under `e`, and the messages are unchanged by carrying it.
    fn source_of<E: std::error::Error + 'static>(e: &CliError) -> &E {
        let source = e.source().unwrap_or_else(|| panic!("{e:?} has no source"));
        source
            .downcast_ref::<E>()
            .unwrap_or_else(|| panic!("{e:?}: the source is not a {}", std::any::type_name::<E>()))
    }

    #[test]
    fn a_bad_fat_binary_keeps_the_readers_error_as_its_source() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("cut.fatbin");
        // The fat binary magic, then nothing of the header it announces.
        std::fs::write(&file, 0xBA55_ED50u32.to_le_bytes()).unwrap();
        let e = fails(&["inspect".as_ref(), file.as_os_str()]);
        assert!(matches!(e, CliError::Format { .. }), "{e:?}");
        let source = source_of::<archbuild_fatbin::Error>(&e);
        assert!(
            matches!(source, archbuild_fatbin::Error::Truncated { .. }),
            "{source:?}"
        );
        assert_eq!(
            e.to_string(),
            format!(
                "`{}` is not a file archbuild can read: {source}",
                file.display()
            )
        );
        assert_eq!((e.kind(), e.exit_code()), ("format", exit::INPUT));
    }

    #[test]
    fn a_library_build_error_is_the_source_of_the_cli_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("k.cu"), "__global__ void k() {}\n").unwrap();
        let mut build = archbuild::Build::new();
        build
            .env(archbuild::Env::from_vars([(
                "NVCC",
                dir.path().join("nowhere/nvcc").into_os_string(),
            )]))
            .manifest_dir(dir.path())
            .out_dir(dir.path().join("out"))
            .file("k.cu")
            .archs("8.6")
            .quiet(true);
        let mut shell = Shell::new(MessageFormat::Human, None, true, false);
        let pending = crate::building::Pending {
            label: "k".into(),
            build,
            per_module: false,
            ships: false,
        };
        let e = crate::building::run_all(vec![pending], &mut shell).expect_err("no nvcc there");
        let source = source_of::<archbuild::Error>(&e);
        assert!(
            matches!(source, archbuild::Error::BadToolkitVar { .. }),
            "{source:?}"
        );
        assert_eq!(e.to_string(), source.to_string());
        assert_eq!((e.kind(), e.exit_code()), ("toolkit", exit::TOOLKIT));
    }

    #[test]
    fn a_merge_conflict_keeps_the_merge_error_and_names_the_files() {
        let dir = tempfile::tempdir().unwrap();
        let arch = archbuild_arch::Arch::plain(8, 6);
        let fatbin = |name: &str, body: &str| {
            let ptx = format!(
                ".version 9.0\n.target sm_86\n.address_size 64\n\n\
                 .visible .entry k()\n{{\n{body}\n\tret;\n}}\n"
            );
            let bytes = archbuild_fatbin::FatbinWriter::new()
                .add_ptx(ptx.as_bytes(), arch)
                .unwrap()
                .write()
                .unwrap();
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            path
        };
        let (a, b) = (
            fatbin("a.fatbin", ""),
            fatbin("b.fatbin", "\t// another image"),
        );
        let out = dir.path().join("out.fatbin");
        let args = [
            "merge".as_ref(),
            a.as_os_str(),
            b.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ];
        let e = fails(&args);
        let source = source_of::<archbuild_fatbin::Error>(&e);
        assert!(
            matches!(source, archbuild_fatbin::Error::Conflict { .. }),
            "{source:?}"
        );
        // The CLI names the inputs by their files, in the library's error itself.
        assert!(
            source.to_string().contains(&format!("`{}` ", b.display())),
            "{source}"
        );
        let text = e.to_string();
        assert!(
            text.starts_with("fat binaries cannot be merged: ")
                && text.contains(&format!("`{}` container 0", b.display()))
                && !text.contains("input 1 "),
            "{text}"
        );
        assert_eq!((e.kind(), e.exit_code()), ("merge", exit::INPUT));
        assert!(!Path::new(&out).exists());
    }

    /// Every merge error names the file, not the library's `input N`: a `fatbinary --concat`
    /// group in the second file is reported as that file.
    #[test]
    fn a_merge_input_merge_cannot_carry_is_named_by_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let ptx = b".version 9.0\n.target sm_86\n.address_size 64\n";
        let good = archbuild_fatbin::FatbinWriter::new()
            .add_ptx(ptx, archbuild_arch::Arch::plain(8, 6))
            .unwrap()
            .write()
            .unwrap();
        let mut group = good.clone();
        // The first entry's kind (its header follows the 16-byte container header): 0x100.
        group[16..18].copy_from_slice(&0x100u16.to_le_bytes());
        let (a, g) = (dir.path().join("a.fatbin"), dir.path().join("g.fatbin"));
        std::fs::write(&a, &good).unwrap();
        std::fs::write(&g, &group).unwrap();
        let out = dir.path().join("out.fatbin");
        let e = fails(&[
            "merge".as_ref(),
            a.as_os_str(),
            g.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
        let text = e.to_string();
        assert!(
            text.contains(&format!("`{}`: its entry at offset 16", g.display()))
                && !text.contains("input 1"),
            "{text}"
        );
        assert_eq!((e.kind(), e.exit_code()), ("merge", exit::INPUT));
        assert!(!out.exists());
    }

    #[test]
    fn an_interrupted_build_is_kind_interrupted_with_its_code() {
        let e = CliError::Build(archbuild::Error::Interrupted);
        assert_eq!(
            (e.kind(), e.exit_code()),
            ("interrupted", exit::INTERRUPTED)
        );
        let source = source_of::<archbuild::Error>(&e);
        assert!(
            matches!(source, archbuild::Error::Interrupted),
            "{source:?}"
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
