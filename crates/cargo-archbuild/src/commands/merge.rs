//! `cargo archbuild merge A B … -o OUT`: combine fat binaries — typically the per-shard outputs of
//! a CI matrix — into one. Entries are written in the canonical order the writer uses, so the
//! result is byte-identical to compiling all the shards' targets in one `compile`.

use archbuild_fatbin::{merge, read_any, read_fatbin};
use serde::Serialize;

use crate::cli::MergeArgs;
use crate::error::CliError;
use crate::files::{read_input, write_atomic};
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
    let slices: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let merged = merge(&slices).map_err(|source| CliError::Merge {
        files: args.files.clone(),
        source,
    })?;
    write_atomic(&args.output, &merged)?;
    merge_records(args, &merged, shell)?;
    let targets: Vec<String> = read_any(&merged)
        .map_err(|e| CliError::bug(format!("the merged fat binary does not read back: {e}"), e))?
        .iter()
        .map(|r| match r.kind {
            archbuild_fatbin::EntryKind::Ptx => format!("compute_{}", r.arch.sm_name()),
            _ => format!("sm_{}", r.arch.sm_name()),
        })
        .collect();
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

/// Merges the inputs' records (what each shard was built from) into the output's, so the
/// merged fat binary can serve as ARCHBUILD_PREBUILT; without a record for every input, the
/// output gets none and a warning says why.
fn merge_records(args: &MergeArgs, merged: &[u8], shell: &Shell) -> Result<(), CliError> {
    use archbuild::prebuilt::{merge_records, record_path, Record};
    let out = record_path(&args.output);
    let mut records = Vec::new();
    for f in &args.files {
        match Record::read(&record_path(f)) {
            Ok(r) => records.push(r),
            Err(why) => {
                let _ = std::fs::remove_file(&out);
                shell.warn(format!(
                    "{why}; {} gets no record, so builds will not take it as prebuilt \
                     (ARCHBUILD_PREBUILT); keep each shard's `.archbuild.json` beside its fat binary",
                    args.output.display()
                ));
                return Ok(());
            }
        }
    }
    let module = args
        .output
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let record = merge_records(&records, merged, &module)
        .map_err(|message| CliError::MergeRecords { message })?;
    let json = serde_json::to_vec_pretty(&record).map_err(|e| CliError::bug(e.to_string(), e))?;
    write_atomic(&out, &json)
}
