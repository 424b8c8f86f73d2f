//! `cargo archbuild inspect FILE`: the images inside a fat binary, cubin, PTX file, object file,
//! executable or shared library — kind, target, variant, PTX ISA, sizes, compression and kernel
//! names — plus the kernel-coverage check. `--format cuobjdump` prints the lines
//! `cuobjdump --list-elf --list-ptx` prints, so scripts written for one work with the other.

use std::path::Path;

use archbuild_fatbin::Detail;

use crate::cli::{InspectArgs, InspectFormat};
use crate::error::CliError;
use crate::files::map_input;
use crate::listing::{inspect_with, InspectReport};
use crate::report::table;
use crate::shell::{bold, flagged, human_bytes, Shell};

pub(crate) fn run(args: &InspectArgs, shell: &mut Shell) -> Result<(), CliError> {
    if args.format == InspectFormat::Cuobjdump && shell.is_json() {
        return Err(CliError::usage(
            "`--format cuobjdump` and `--message-format json` ask for two different outputs",
            "drop one of them: JSON already carries every field of the cuobjdump listing",
        ));
    }
    let bytes = map_input(&args.file)?;
    // The cuobjdump listing names images by target: the headers of what cuobjdump reads say
    // all of it.
    let detail = match (args.format, shell.is_json()) {
        (InspectFormat::Cuobjdump, false) => Detail::Sections,
        _ => Detail::Contents,
    };
    let report = inspect_with(&args.file, &bytes, detail)?;
    if shell.is_json() {
        return shell.json(&report);
    }
    match args.format {
        InspectFormat::Cuobjdump => {
            let lines = cuobjdump_lines(&args.file, &report);
            for line in &lines {
                shell.println(line)?;
            }
            // cuobjdump's notes on stderr when a kind has nothing to list, word for word.
            for (label, kind) in [("ELF file", "ELF"), ("PTX file", "PTX")] {
                if !lines.iter().any(|l| l.starts_with(label)) {
                    shell.raw_stderr(&cuobjdump_note(kind, &args.file));
                }
            }
            Ok(())
        }
        InspectFormat::Human => print_human(&report, shell),
    }
}

fn print_human(r: &InspectReport, shell: &Shell) -> Result<(), CliError> {
    let mut groups: Vec<&str> = r.images.iter().map(|i| i.group.as_str()).collect();
    groups.dedup();
    let what = match r.file_kind {
        "fatbin" => "fat binary",
        "cubin" => "cubin",
        "ptx" => "PTX",
        _ => "host ELF",
    };
    let containers = if r.file_kind == "fatbin" || r.file_kind == "host-elf" {
        format!(" in {} container(s)", groups.len())
    } else {
        String::new()
    };
    shell.println(format!(
        "{}: {what}, {} image(s){containers}",
        bold(&r.file),
        r.images.len()
    ))?;
    let multi = groups.len() > 1;
    let mut rows = vec![vec![
        "#",
        "kind",
        "target",
        "variant",
        "ptx isa",
        "size",
        "stored",
        "compression",
        "kernels",
    ]
    .into_iter()
    .map(String::from)
    .collect::<Vec<_>>()];
    if multi {
        rows[0].push("where".into());
    }
    for i in &r.images {
        let mut row = vec![
            i.index.to_string(),
            i.kind.to_string(),
            i.target.clone(),
            i.variant.to_string(),
            i.ptx_isa.clone().unwrap_or_else(|| "-".into()),
            human_bytes(i.size as u64),
            human_bytes(i.stored_size as u64),
            i.compression.clone(),
            if i.kernels.is_empty() {
                "-".into()
            } else {
                crate::names::list(&i.kernels)
            },
        ];
        if multi {
            row.push(i.location.clone());
        }
        rows.push(row);
    }
    for (n, line) in table(&rows).into_iter().enumerate() {
        shell.println(if n == 0 {
            bold(format!("  {line}"))
        } else {
            format!("  {line}")
        })?;
    }
    let mut kernels: Vec<&str> = r
        .images
        .iter()
        .flat_map(|i| i.kernels.iter().map(String::as_str))
        .collect();
    kernels.sort_unstable();
    kernels.dedup();
    if r.images.iter().all(|i| i.kind == "LTO-IR") {
        // LTO-IR lists no kernels until nvJitLink links it.
        shell.println(
            "kernel coverage: not known (LTO-IR only; nvJitLink names the kernels when it links them)",
        )?;
    } else if r.coverage_gaps.is_empty() {
        shell.println(format!(
            "kernel coverage: all {} kernel(s) present in every image",
            kernels.len()
        ))?;
    } else {
        shell.println(flagged(format!(
            "kernel coverage: {} of {} kernel(s) missing from some images",
            r.coverage_gaps.len(),
            kernels.len()
        )))?;
        for line in &r.coverage_lines {
            shell.warn(line);
        }
    }
    for v in &r.variants {
        let each: Vec<String> = v
            .choices
            .iter()
            .map(|(t, k)| format!("{t} -> {}", k.as_deref().unwrap_or("none")))
            .collect();
        let line = format!(
            "variants `{}` [{}]: {}",
            v.group,
            v.kernels.join(", "),
            each.join(", ")
        );
        if v.choices.iter().any(|(_, k)| k.is_none()) {
            shell.println(flagged(line))?;
        } else {
            shell.println(line)?;
        }
    }
    Ok(())
}

/// cuobjdump's note for a kind it found none of: `cuobjdump info    : No PTX file found to
/// extract from '/abs/k.fatbin'. You may try with -all option.`, the path joined to the working
/// directory as cuobjdump prints it.
fn cuobjdump_note(kind: &str, path: &Path) -> String {
    let shown = std::env::current_dir().map_or_else(|_| path.to_path_buf(), |d| d.join(path));
    format!(
        "cuobjdump info    : No {kind} file found to extract from '{}'. You may try with -all option.",
        shown.display()
    )
}

/// `ELF file    1: k.1.sm_86.cubin` / `PTX file    1: k.1.sm_86.ptx`, in file order, numbered
/// per kind — cuobjdump's naming: the input's name without its extension, `sm_` for both
/// kinds, `a` shown and `f` hidden on ELF (the cubin does not record it), shown on PTX. Like
/// cuobjdump without `-all`, a host file lists only its `.nv_fatbin` images when it has any.
pub(crate) fn cuobjdump_lines(path: &Path, r: &InspectReport) -> Vec<String> {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let has_exec = r
        .images
        .iter()
        .any(|i| i.location.starts_with(".nv_fatbin"));
    let (mut elf, mut ptx) = (0usize, 0usize);
    let mut out = Vec::new();
    for i in &r.images {
        if has_exec && !i.location.starts_with(".nv_fatbin") {
            continue;
        }
        let sm = i
            .target
            .trim_start_matches("sm_")
            .trim_start_matches("compute_");
        let (label, n, name_sm, ext) = match i.kind {
            "ELF" => {
                elf += 1;
                ("ELF", elf, sm.trim_end_matches('f'), "cubin")
            }
            "PTX" => {
                ptx += 1;
                ("PTX", ptx, sm, "ptx")
            }
            _ => continue,
        };
        // An entry with an identifier (nvcc `-lineinfo` records the source, `a.cu`) is named
        // after it, without a number, as cuobjdump does: `a.sm_75.cubin`.
        let ident_stem = i.identifier.as_deref().filter(|s| !s.is_empty()).map(|id| {
            Path::new(id)
                .file_stem()
                .map_or_else(|| id.to_owned(), |s| s.to_string_lossy().into_owned())
        });
        let name = match ident_stem {
            Some(id) => format!("{id}.sm_{name_sm}.{ext}"),
            None if r.file_kind == "cubin" || r.file_kind == "ptx" => {
                format!("{stem}.sm_{name_sm}.{ext}")
            }
            None => format!("{stem}.{n}.sm_{name_sm}.{ext}"),
        };
        out.push(format!("{label} file {n:>4}: {name}"));
    }
    out
}
