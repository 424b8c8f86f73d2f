//! `cargo archbuild merge A B … -o OUT`: combine fat binaries — typically the per-shard outputs of
//! a CI matrix — into one. Entries are written in the canonical order the writer uses, so the
//! result is byte-identical to compiling all the shards' targets in one `compile`.
//!
//! Everything is checked before anything is written (each input, each shard against its own
//! record, the merge of images and of records, the output path); then the fat binary and its
//! record are written together. A failed merge leaves an existing OUT as it was.

use std::path::{Path, PathBuf};

use archbuild::record::{merge_records, record_path, Record};
use archbuild_fatbin::{merge_named, read_any, read_fatbin};
use serde::Serialize;

use crate::cli::MergeArgs;
use crate::error::CliError;
use crate::files::{read_input, refuse_input_as_output, write_all_atomic, write_atomic};
use crate::shell::{human_bytes, Shell};

#[derive(Debug, Serialize)]
struct MergeReport {
    reason: &'static str,
    output: String,
    inputs: Vec<String>,
    /// The targets of the merged fat binary, in file order.
    targets: Vec<String>,
    size: usize,
}

pub(crate) fn run(args: &MergeArgs, shell: &mut Shell) -> Result<(), CliError> {
    let out_record = record_path(&args.output);
    refuse_inputs_as_outputs(args, &out_record)?;
    let mut inputs = Vec::with_capacity(args.files.len());
    for path in &args.files {
        let bytes = read_input(path)?;
        // Check each input on its own first, so an error names the file, not "input 1".
        read_fatbin(&bytes).map_err(|source| CliError::MergeInput {
            path: path.clone(),
            source,
        })?;
        inputs.push(bytes);
    }
    let records = shard_records(&args.files, &inputs)?;
    // Errors name each input as the user typed it.
    let names: Vec<String> = args
        .files
        .iter()
        .map(|f| format!("`{}`", f.display()))
        .collect();
    let named: Vec<(&str, &[u8])> = names
        .iter()
        .map(String::as_str)
        .zip(inputs.iter().map(Vec::as_slice))
        .collect();
    let merged = merge_named(&named).map_err(|source| CliError::Merge { source })?;
    let targets: Vec<String> = read_any(&merged)
        .map_err(|e| CliError::bug(format!("the merged fat binary does not read back: {e}"), e))?
        .iter()
        .map(|r| match r.kind {
            archbuild_fatbin::EntryKind::Ptx => format!("compute_{}", r.arch.sm_name()),
            _ => format!("sm_{}", r.arch.sm_name()),
        })
        .collect();
    match records {
        Ok(records) => {
            let module = args
                .output
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let record = merge_records(&records, &merged, &module)
                .map_err(|source| CliError::MergeRecords { source })?;
            let json =
                serde_json::to_vec_pretty(&record).map_err(|e| CliError::bug(e.to_string(), e))?;
            write_all_atomic(&[(&args.output, &merged), (&out_record, &json)])?;
        }
        Err(why) => {
            write_atomic(&args.output, &merged)?;
            // A record left from an earlier merge would describe another fat binary.
            if std::fs::symlink_metadata(&out_record).is_ok_and(|m| m.is_file()) {
                let _ = std::fs::remove_file(&out_record);
            }
            shell.warn(format!(
                "`{}` gets no record, so builds will not take it as prebuilt \
                 (ARCHBUILD_PREBUILT): {why}",
                args.output.display()
            ));
        }
    }
    let report = MergeReport {
        reason: "merge",
        output: args.output.display().to_string(),
        inputs: args.files.iter().map(|p| p.display().to_string()).collect(),
        targets,
        size: merged.len(),
    };
    if shell.is_json() {
        return shell.json(&report);
    }
    shell.status(
        "Merged",
        format!(
            "{} file(s) into {} ({}, {} image(s): {})",
            report.inputs.len(),
            report.output,
            human_bytes(report.size as u64),
            report.targets.len(),
            report.targets.join(" ")
        ),
    );
    Ok(())
}

/// `merge a.fatbin b.fatbin -o a.fatbin` would replace a shard (or its record) with the merge.
fn refuse_inputs_as_outputs(args: &MergeArgs, out_record: &Path) -> Result<(), CliError> {
    let records: Vec<PathBuf> = args.files.iter().map(|f| record_path(f)).collect();
    for out in [args.output.as_path(), out_record] {
        let inputs = args
            .files
            .iter()
            .map(|f| (f.as_path(), "input fat binary"))
            .chain(records.iter().map(|r| (r.as_path(), "input's record")));
        refuse_input_as_output(out, inputs)?;
    }
    Ok(())
}

/// Each shard's record (what it was built from), checked against the shard's own bytes: a
/// record that describes another fat binary is an error, since merging it would put a foreign
/// image into a release under a record that vouches for it. `Ok(Err(why))` when some shard
/// has no readable record: the merged file then gets none.
fn shard_records(
    files: &[PathBuf],
    inputs: &[Vec<u8>],
) -> Result<Result<Vec<Record>, archbuild::Error>, CliError> {
    let mut records = Vec::with_capacity(files.len());
    let mut missing = None;
    for (f, bytes) in files.iter().zip(inputs) {
        let path = record_path(f);
        match Record::read(&path) {
            Ok(r) => {
                r.describes(f, bytes)
                    .map_err(|source| CliError::MergeRecordMismatch {
                        path: f.clone(),
                        record: path,
                        source,
                    })?;
                records.push(r);
            }
            Err(why) => {
                missing.get_or_insert(why);
            }
        }
    }
    Ok(match missing {
        None => Ok(records),
        Some(why) => Err(why),
    })
}
