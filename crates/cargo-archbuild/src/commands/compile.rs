//! `cargo archbuild compile FILES… --archs LIST -o OUT.fatbin`: the build driver without Cargo,
//! for scripts and CI shards. All files go into one fat binary (one module, as one translation
//! unit), written atomically to OUT; the per-target cache makes repeated and sharded builds
//! cheap, and `merge` of shard outputs gives the same bytes as one compile of all targets.

use std::path::{Path, PathBuf};

use archbuild::Build;
use serde::Serialize;

use crate::building::{cli_env, no_gpu_note, print_summary, run_all, BuildOutcome, Pending};
use crate::cli::CompileArgs;
use crate::error::CliError;
use crate::files::display_path;
use crate::files::{self, write_all_atomic};
use crate::shell::{human_bytes, Shell};

#[derive(Debug, Serialize)]
struct CompileReport<'a> {
    reason: &'static str,
    output: String,
    #[serde(flatten)]
    build: &'a BuildOutcome,
}

pub(crate) fn run(args: &CompileArgs, shell: &mut Shell) -> Result<(), CliError> {
    let files = args
        .files
        .iter()
        .map(|f| absolute_source(f))
        .collect::<Result<Vec<_>, _>>()?;
    let module = module_name(&args.output)?;
    // Refused before compiling what can be refused before (an output that is not a regular
    // file, a source or an options file), and after, before delivering, what only the build
    // knows (the headers it read).
    files::output_target(&args.output)?;
    let option_files = option_files(args);
    refuse_output_that_is_an_input(args, &option_files, (&[], &[]))?;
    // The driver writes into a directory of its own in the build cache, one per output path
    // (not beside OUT, where an interrupted compile would leave it behind); the fat binary is
    // then written to OUT atomically, so OUT is either the old file or the complete new one.
    // The directory stays, so an unchanged rebuild finds its fat binary up to date (the pack
    // stamp) and rewrites nothing.
    let staging = Staging::for_output(&args.output)?;
    let mut b = Build::new();
    b.module(&module, &files)
        .env(crate::building::cli_env_for(args.compile.offline))
        .out_dir(&staging.dir)
        .rust_module(false)
        .quiet(true)
        .cargo_metadata(false)
        .provision(!args.no_provision);
    args.compile.apply(&mut b);
    for dir in &args.include {
        b.include(absolute(dir));
    }
    for d in &args.define {
        match d.split_once('=') {
            Some((name, value)) => b.define(name, Some(value)),
            None => b.define(d, None),
        };
    }
    for f in &args.nvcc_flags {
        b.flag(f);
    }
    for v in &args.variants {
        let (group, kernels) = variant_group(v)?;
        b.variants(group, &kernels);
    }
    let label = display_path(&args.output);
    let mut outcomes = run_all(
        vec![Pending {
            label,
            build: b,
            per_module: false,
            ships: false,
        }],
        shell,
    )?;
    let outcome = outcomes
        .pop()
        .ok_or_else(|| CliError::internal("the build reported nothing"))?;
    let built = outcome
        .report
        .modules
        .first()
        .ok_or_else(|| CliError::internal("the build wrote no fat binary"))?;
    let read = (
        &outcome.report.dependencies[..],
        &outcome.report.programs[..],
    );
    refuse_output_that_is_an_input(args, &option_files, read)?;
    // Under ARCHBUILD_VERIFY (or --verify), the delivered file is checked too: the shortcut that
    // keeps an unchanged OUT must not keep one whose bytes were changed behind its stamp.
    let verifying = outcome.report.verified > 0
        || args
            .compile
            .verify
            .clone()
            .or_else(|| cli_env().var("ARCHBUILD_VERIFY"))
            .is_some_and(|v| !archbuild_config::is_off(&v));
    let len = staging.deliver(&built.fatbin, &args.output, verifying)?;
    let mut outcome = outcome;
    for m in outcome
        .report
        .modules
        .iter_mut()
        .chain(outcome.modules_checked.iter_mut().map(|m| &mut m.module))
    {
        m.fatbin = args.output.clone();
    }
    if shell.is_json() {
        return shell.json(&CompileReport {
            reason: "compile-finished",
            output: args.output.display().to_string(),
            build: &outcome,
        });
    }
    shell.status(
        "Finished",
        format!(
            "{} ({}, {})",
            display_path(&args.output),
            human_bytes(len),
            outcome.report.archs
        ),
    );
    print_summary(std::slice::from_ref(&outcome), Some(&no_gpu_note()), shell)
}

/// `--variants gemm=gemm_wgmma,gemm_mma,gemm_simt` as the group's name and its kernels.
fn variant_group(text: &str) -> Result<(&str, Vec<&str>), CliError> {
    let parsed = text.split_once('=').and_then(|(group, list)| {
        let kernels: Vec<&str> = list.split(',').map(str::trim).collect();
        let ok = !group.trim().is_empty() && kernels.iter().all(|k| !k.is_empty());
        ok.then(|| (group.trim(), kernels))
    });
    parsed.ok_or_else(|| CliError::Usage {
        message: format!("`--variants {text}` is not a variant group"),
        help: "write the group's name, `=`, then its kernels most preferred first, separated \
               by commas: --variants gemm=gemm_wgmma,gemm_mma,gemm_simt"
            .into(),
    })
}

/// `compile k.cu -o k.cu` would replace the source with the fat binary, `-I inc -o
/// inc/h.cuh` a header, and `-o` naming the launcher or the host compiler a program the build
/// runs, or the stat memo the build keeps in its cache; the record written beside OUT must not
/// replace any of them either.
fn refuse_output_that_is_an_input(
    args: &CompileArgs,
    option_files: &[PathBuf],
    (headers, programs): (&[PathBuf], &[PathBuf]),
) -> Result<(), CliError> {
    let record = archbuild::record::record_path(&args.output);
    let home = archbuild::config::Home::from_env(&cli_env());
    let memo = archbuild::cache::stat_memo_path(home.cache_dir());
    for out in [args.output.as_path(), record.as_path()] {
        let inputs = args
            .files
            .iter()
            .map(|f| (f.as_path(), "source"))
            .chain(
                option_files
                    .iter()
                    .map(|f| (f.as_path(), "file named in the nvcc flags")),
            )
            .chain(
                headers
                    .iter()
                    .map(|h| (h.as_path(), "header the build read")),
            )
            .chain(
                programs
                    .iter()
                    .map(|p| (p.as_path(), "program the build runs")),
            )
            .chain([(memo.as_path(), "stat memo the build reads and replaces")]);
        files::refuse_input_as_output(out, inputs)?;
    }
    Ok(())
}

/// The files the nvcc flags name (options files, forced includes, response files, a host
/// compiler given as a path), from `--nvcc-flag` and the variables whose words nvcc gets: the
/// library's reading, so the CLI refuses exactly what a build reads.
fn option_files(args: &CompileArgs) -> Vec<PathBuf> {
    let cwd = std::env::current_dir().unwrap_or_default();
    archbuild::config::files_named_in_flags(&args.nvcc_flags, &cli_env(), &cwd)
}

/// The module (and generated names) come from OUT's file stem: `kernels.fatbin` → `kernels`.
fn module_name(out: &Path) -> Result<String, CliError> {
    out.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            CliError::usage(
                format!("`-o {}` names no file", out.display()),
                "pass the fat binary to write, e.g. `-o kernels.fatbin`",
            )
        })
}

fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    }
}

/// A source file as an absolute path; a missing one is an input error naming the path.
fn absolute_source(p: &Path) -> Result<PathBuf, CliError> {
    let abs = absolute(p);
    match std::fs::metadata(&abs) {
        Ok(m) if m.is_file() => Ok(abs),
        Ok(_) => Err(CliError::usage(
            format!("`{}` is a directory, not a CUDA source file", p.display()),
            "pass .cu files, e.g. `cargo archbuild compile kernels/*.cu --archs 8.6 -o kernels.fatbin`",
        )),
        Err(source) => Err(CliError::Read { path: p.to_path_buf(), source }),
    }
}

/// Where `compile` lets the driver write, and what it last copied from there to OUT.
struct Staging {
    dir: PathBuf,
    /// The directory when the cache had no room for it (removed when the compile ends).
    _temporary: Option<tempfile::TempDir>,
}

/// What was copied to OUT: the staged file's and OUT's length and mtime afterwards.
#[derive(serde::Serialize, serde::Deserialize, PartialEq)]
struct Copied {
    staged: (u64, u128),
    out: (u64, u128),
}

impl Staging {
    /// The output's directory in the build cache; when the cache cannot be written (a
    /// read-only home, a full disk), a temporary directory, so a read-only cache never stops
    /// a build (it only loses the no-op shortcut). The system's temporary directory comes
    /// first, then OUT's own directory, which must be writable for OUT anyway.
    fn for_output(output: &Path) -> Result<Self, CliError> {
        let home = archbuild::config::Home::from_env(&cli_env());
        let key = archbuild_store::Key::of(absolute(output).as_os_str().as_encoded_bytes());
        let dir = home.cache_dir().join("compile").join(key.hex());
        // Creating the directory succeeds when it exists; an unnamed file asks whether the
        // driver can write in it, and leaves nothing behind; a disk short of room (where the
        // build itself runs without the cache) stages elsewhere too.
        let room = archbuild::config::short_of_room(home.cache_dir()).is_none();
        if room && std::fs::create_dir_all(&dir).is_ok() && tempfile::tempfile_in(&dir).is_ok() {
            return Ok(Self {
                dir,
                _temporary: None,
            });
        }
        let beside = match absolute(output).parent() {
            Some(d) => d.to_path_buf(),
            None => PathBuf::from("."),
        };
        let temporary = tempfile::Builder::new()
            .prefix(".archbuild-stage-")
            .tempdir()
            .or_else(|_| {
                tempfile::Builder::new()
                    .prefix(".archbuild-stage-")
                    .tempdir_in(&beside)
            })
            .map_err(|source| CliError::Write {
                path: beside.clone(),
                source,
            })?;
        Ok(Self {
            dir: temporary.path().to_path_buf(),
            _temporary: Some(temporary),
        })
    }

    /// Writes the staged fat binary (and its record) to OUT unless OUT is already the copy of
    /// this very file and its record the staged one; returns its length.
    fn deliver(&self, staged: &Path, output: &Path, verifying: bool) -> Result<u64, CliError> {
        let note = self.dir.join("copied.json");
        let last: Option<Copied> = std::fs::read(&note)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        let out_record = archbuild::record::record_path(output);
        let staged_record = std::fs::read(archbuild::record::record_path(staged));
        // The record can change while the fat binary does not (another variant group, a
        // comment-only edit of an input): then it is delivered again.
        let same_record = staged_record.as_ref().ok() == std::fs::read(&out_record).ok().as_ref();
        let mut stale = false;
        if let (Some(last), Some(s), Some(o)) = (&last, stamp(staged), stamp(output)) {
            if last.staged == s && last.out == o && same_record {
                if !verifying {
                    return Ok(s.0);
                }
                let (built, delivered) = (std::fs::read(staged).ok(), std::fs::read(output).ok());
                if built.is_some() && built == delivered {
                    return Ok(s.0);
                }
                stale = true;
            }
        }
        let bytes = crate::files::read_input(staged)?;
        // The record of what it was built from travels with it (`merge`, ARCHBUILD_PREBUILT),
        // written together with it.
        match staged_record {
            Ok(json) => write_all_atomic(&[(output, &bytes), (&out_record, &json)])?,
            Err(_) => {
                write_all_atomic(&[(output, &bytes)])?;
                // An earlier compile's record would describe another fat binary.
                if std::fs::symlink_metadata(&out_record).is_ok_and(|m| m.is_file()) {
                    let _ = std::fs::remove_file(&out_record);
                }
            }
        }
        if let (Some(staged), Some(out)) = (stamp(staged), stamp(output)) {
            if let Ok(json) = serde_json::to_vec(&Copied { staged, out }) {
                // Only a shortcut: without it the next compile copies again.
                let _ = archbuild_config::write_atomic(&note, &json);
            }
        }
        if stale {
            return Err(CliError::Build(archbuild::Error::VerifyMismatch {
                module: output.display().to_string(),
                job: format!("the delivered output {}", output.display()),
                detail: "its size and time were those of the last delivery, its bytes were \
                         not the fat binary the build made; it was written again"
                    .into(),
                key_holds: "the staged fat binary's and the output's length and modification \
                            time (the no-op shortcut)"
                    .into(),
            }));
        }
        Ok(bytes.len() as u64)
    }
}

/// A file's length and modification time in nanoseconds.
fn stamp(path: &Path) -> Option<(u64, u128)> {
    let m = std::fs::metadata(path).ok()?;
    let t = m
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some((m.len(), t.as_nanos()))
}
