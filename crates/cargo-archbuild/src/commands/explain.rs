//! `cargo archbuild explain LIST`: how an arch list expands into targets, the nvcc flags that
//! build it, what each target runs on, and — for every GPU generation — which image it would
//! load (or that it would fail with "no kernel image is available" and what to add).

use archbuild_arch::{
    generation, known_ccs, select, target_runs_on, toolkits_for, ArchList, ComputeCapability,
    CudaVersion, DeviceInfo, ImageInfo, Policy, Route, TargetKind,
};
use serde::Serialize;

use archbuild::config::Dialect;

use crate::cli::ExplainArgs;
use crate::error::CliError;
use crate::facts::Facts;
use crate::report::{some_devices, table, TargetJson};
use crate::shell::{bold, Shell};

#[derive(Debug, Serialize)]
struct ExplainReport {
    reason: &'static str,
    input: String,
    /// Where the list came from: `the explain argument`, or a build's source.
    source: String,
    /// How its entries were read (the source decides): `archbuild`, `cmake`, `pytorch`.
    dialect: Dialect,
    /// What a bare number means in that dialect.
    dialect_rule: &'static str,
    /// Entries the dialect's own tool would reject (PyTorch).
    warnings: Vec<String>,
    canonical: String,
    targets: Vec<TargetExplained>,
    nvcc_flags: Vec<String>,
    coverage: Vec<Coverage>,
}

#[derive(Debug, Serialize)]
struct TargetExplained {
    #[serde(flatten)]
    target: TargetJson,
    /// Known compute capabilities this target runs on.
    runs_on: Vec<String>,
    /// True for plain PTX: it also JIT-compiles for GPUs newer than any listed here.
    runs_on_future_gpus: bool,
    generations: Vec<&'static str>,
    /// Which CUDA toolkits can build it.
    toolkits: Option<String>,
}

#[derive(Debug, Serialize)]
struct Coverage {
    #[serde(skip)]
    device_cc: ComputeCapability,
    cc: String,
    generation: Option<&'static str>,
    devices: Vec<&'static str>,
    /// The image this GPU would load, if any.
    image: Option<String>,
    /// `cubin`, `jit` (PTX compiled at first load), or null when nothing runs.
    route: Option<&'static str>,
    fix: Option<String>,
}

pub(crate) fn run(args: &ExplainArgs, shell: &mut Shell) -> Result<(), CliError> {
    let mut facts = Facts::new();
    let (input, list, source, dialect) = match &args.list {
        Some(text) => {
            let dialect: Dialect = args.dialect.map_or(Dialect::Archbuild, Into::into);
            let origin = match args.dialect {
                Some(_) => format!("the `explain` argument, read as {dialect}"),
                None => "the `explain` argument".to_owned(),
            };
            dialect
                .check(text, &origin)
                .map_err(archbuild::Error::from)?;
            let list = facts.resolve_list(&dialect.to_archbuild(text), &origin, shell)?;
            (
                text.clone(),
                list,
                "the explain argument".to_owned(),
                dialect,
            )
        }
        None => {
            let (list, source, text) = facts.configured_source(
                None,
                || crate::workspace::manifest_archs(None, None, "explain"),
                shell,
            )?;
            (text, list, source.to_string(), source.dialect())
        }
    };
    let mut report = explain(&input, &list);
    report.source = source;
    report.dialect = dialect;
    report.dialect_rule = dialect.rule();
    report.warnings = dialect.warnings(&input);
    if shell.is_json() {
        return shell.json(&report);
    }
    for w in &report.warnings {
        shell.warn(w);
    }
    print_human(&report, shell)
}

fn explain(input: &str, list: &ArchList) -> ExplainReport {
    let ccs = coverage_ccs(list);
    let targets = list
        .targets()
        .iter()
        .map(|&t| {
            let runs_on: Vec<ComputeCapability> = ccs
                .iter()
                .copied()
                .filter(|cc| target_runs_on(t, *cc))
                .collect();
            let mut generations: Vec<&'static str> =
                runs_on.iter().filter_map(|cc| generation(*cc)).collect();
            generations.dedup();
            TargetExplained {
                target: t.into(),
                runs_on: runs_on.iter().map(|c| c.to_string()).collect(),
                runs_on_future_gpus: t.kind == TargetKind::Ptx
                    && t.arch.variant == Default::default(),
                generations,
                toolkits: toolkits_for(t.arch),
            }
        })
        .collect();
    let images: Vec<ImageInfo> = list
        .targets()
        .iter()
        .map(|&target| ImageInfo::new(target, None))
        .collect();
    let coverage = ccs
        .iter()
        .map(|&cc| {
            // A driver new enough for any PTX: the question here is architecture, not driver age.
            // A program with nvJitLink: LTO-IR counts, linked at load time.
            let device = DeviceInfo {
                links_lto: true,
                ..DeviceInfo::new(cc, CudaVersion::new(99, 0))
            };
            let sel = select(&images, &device, Policy::PreferCubin);
            Coverage {
                device_cc: cc,
                cc: cc.to_string(),
                generation: generation(cc),
                devices: archbuild_arch::device_names(cc).to_vec(),
                image: sel.chosen.map(|c| c.target.to_string()),
                route: sel.chosen.map(|c| match c.route {
                    Route::Cubin => "cubin",
                    Route::DriverJit | Route::NeedsNewerJit { .. } => "jit",
                    Route::LinkLto => "lto",
                }),
                fix: sel.fix_hint(),
            }
        })
        .collect();
    ExplainReport {
        reason: "explain",
        input: input.to_string(),
        source: "the explain argument".to_owned(),
        dialect: Dialect::Archbuild,
        dialect_rule: Dialect::Archbuild.rule(),
        warnings: Vec::new(),
        canonical: list.to_string(),
        targets,
        nvcc_flags: list.gencode_flags(),
        coverage,
    }
}

/// The compute capabilities worth showing: every known one from the oldest the list targets
/// (or 7.5, the oldest CUDA 13 builds) upwards.
fn coverage_ccs(list: &ArchList) -> Vec<ComputeCapability> {
    let floor = list
        .targets()
        .iter()
        .map(|t| t.arch.cc)
        .min()
        .map_or(ComputeCapability::new(7, 5), |m| {
            m.min(ComputeCapability::new(7, 5))
        });
    known_ccs().into_iter().filter(|cc| *cc >= floor).collect()
}

fn print_human(r: &ExplainReport, shell: &Shell) -> Result<(), CliError> {
    let names: Vec<&str> = r.targets.iter().map(|t| t.target.target.as_str()).collect();
    shell.println(format!("{}  {}", bold("arch list "), r.canonical))?;
    shell.println(format!(
        "{}  {} (`{}`), {} dialect: {}",
        bold("from      "),
        r.source,
        r.input,
        r.dialect,
        r.dialect_rule
    ))?;
    shell.println(format!("{}  {}", bold("targets   "), names.join(" ")))?;
    shell.println(format!(
        "{}  {}",
        bold("nvcc flags"),
        r.nvcc_flags.join(" ")
    ))?;
    shell.println("")?;
    let mut rows = vec![vec![
        "target".into(),
        "kind".into(),
        "runs on".into(),
        "generations".into(),
        "toolkits".into(),
    ]];
    for t in &r.targets {
        let mut runs_on = t.runs_on.join(" ");
        if t.runs_on_future_gpus {
            runs_on.push_str(" and later (JIT)");
        }
        if runs_on.is_empty() {
            runs_on = "-".into();
        }
        rows.push(vec![
            t.target.target.clone(),
            t.target.kind.to_string(),
            runs_on,
            t.generations.join(", "),
            t.toolkits.clone().unwrap_or_else(|| "unknown".into()),
        ]);
    }
    print_table(shell, &rows)?;
    shell.println("")?;
    shell.println(bold("what each GPU would load:"))?;
    let mut rows = vec![vec![
        "cc".into(),
        "generation".into(),
        "image".into(),
        "e.g.".into(),
    ]];
    for c in &r.coverage {
        let image = match (&c.image, c.route) {
            (Some(img), Some("cubin")) => format!("{img} (cubin)"),
            (Some(img), Some("lto")) => {
                format!("{img} (LTO-IR, linked by nvJitLink at first load)")
            }
            (Some(img), _) => format!("{img} (PTX, JIT-compiled at first load)"),
            (None, _) => format!("none: {}", c.fix.as_deref().unwrap_or("no image fits")),
        };
        let devices = some_devices(c.device_cc, 3);
        rows.push(vec![
            c.cc.clone(),
            c.generation.unwrap_or("").into(),
            image,
            devices,
        ]);
    }
    print_table(shell, &rows)
}

fn print_table(shell: &Shell, rows: &[Vec<String>]) -> Result<(), CliError> {
    for (i, line) in table(rows).into_iter().enumerate() {
        shell.println(if i == 0 {
            bold(format!("  {line}"))
        } else {
            format!("  {line}")
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_names_the_image_or_the_fix() {
        let list: ArchList = "7.5 8.6 8.9+PTX".parse().unwrap();
        let r = explain("7.5 8.6 8.9+PTX", &list);
        let get = |cc: &str| r.coverage.iter().find(|c| c.cc == cc).unwrap();
        assert_eq!(get("7.5").image.as_deref(), Some("sm_75"));
        assert_eq!(get("8.7").image.as_deref(), Some("sm_86"));
        assert_eq!(get("9.0").image.as_deref(), Some("compute_89"));
        assert_eq!(get("9.0").route, Some("jit"));
        assert_eq!(get("8.0").image, None);
        assert!(get("8.0").fix.as_deref().unwrap().contains("8.0"));
        let sm86 = r
            .targets
            .iter()
            .find(|t| t.target.target == "sm_86")
            .unwrap();
        assert_eq!(sm86.runs_on, ["8.6", "8.7", "8.8", "8.9"]);
        assert_eq!(sm86.generations, ["Ampere", "Ada"]);
    }

    #[test]
    fn lto_ir_is_what_newer_gpus_link_and_older_ones_lack() {
        let list: ArchList = "8.0 lto_90".parse().unwrap();
        let r = explain("8.0 lto_90", &list);
        let get = |cc: &str| r.coverage.iter().find(|c| c.cc == cc).unwrap();
        assert_eq!(get("8.6").route, Some("cubin"));
        assert_eq!(get("9.0").image.as_deref(), Some("lto_90"));
        assert_eq!(get("12.0").route, Some("lto"));
        assert_eq!(get("7.5").image, None);
    }
}
