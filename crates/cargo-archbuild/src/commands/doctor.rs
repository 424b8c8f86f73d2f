//! `cargo archbuild doctor [FILE]`: the CUDA driver and its version, every GPU with its compute
//! capability, the toolkit a build would use, nvJitLink and the JIT cache; with FILE, for every
//! GPU the image the loader will use and how (cubin, driver JIT, nvJitLink), or the error and
//! its fix. Exits 1 when some GPU cannot run FILE.
//!
//! Works on the real driver or on the runtime's simulated one (`ARCHBUILD_SIMULATED_GPUS`), so
//! the same checks run in CI without a GPU.

use std::path::Path;
use std::str::FromStr;

use archbuild_arch::{generation, Handoff, Policy};
use archbuild_runtime::jit::{discover_nvjitlink, JitCache};
use archbuild_runtime::FatBinary;
use serde::Serialize;

use crate::cli::DoctorArgs;
use crate::error::CliError;
use crate::facts::Facts;
use crate::files::read_input;
use crate::gpus::{DriverFacts, GpuVerdict, Gpus};
use archbuild_fatbin::LoadableModule;

use crate::modules::modules_of;
use crate::shell::{bad, bold, good, human_bytes, Shell};

#[derive(Debug, Serialize)]
struct DoctorReport {
    reason: &'static str,
    driver: DriverJson,
    gpus: Vec<GpuJson>,
    toolkit: ToolJson,
    /// Header libraries installed in archbuild's home.
    headers: Vec<crate::commands::toolkit::HeaderJson>,
    nvjitlink: ToolJson,
    jit_cache: Option<CacheJson>,
    file: Option<FileJson>,
}

#[derive(Debug, Serialize)]
struct DriverJson {
    source: String,
    cuda_version: Option<String>,
    problem: Option<String>,
}

#[derive(Debug, Serialize)]
struct GpuJson {
    ordinal: usize,
    name: String,
    cc: String,
    generation: Option<&'static str>,
}

/// A tool that may or may not be there: version and path, or why not.
#[derive(Debug, Serialize)]
struct ToolJson {
    found: bool,
    version: Option<String>,
    path: Option<String>,
    detail: Option<String>,
}

#[derive(Debug, Serialize)]
struct CacheJson {
    dir: String,
    entries: usize,
    bytes: u64,
}

#[derive(Debug, Serialize)]
struct FileJson {
    path: String,
    /// True when every GPU can run every module of the file.
    ok: bool,
    modules: Vec<ModuleJson>,
}

#[derive(Debug, Serialize)]
struct ModuleJson {
    location: String,
    images: Vec<String>,
    /// False for a module without kernels (e.g. a device-link stub), which is not checked.
    checked: bool,
    gpus: Vec<GpuVerdict>,
    /// Kernels missing from some of its images, by the rule the build and `inspect` apply
    /// (with the variant groups recorded beside the file).
    coverage_gaps: Vec<archbuild_arch::CoverageGap>,
    #[serde(skip)]
    coverage_lines: Vec<String>,
}

pub(crate) fn run(args: &DoctorArgs, shell: &mut Shell) -> Result<(), CliError> {
    let policy = args.policy.as_deref().map(Policy::from_str).transpose()?;
    let gpus = crate::gpus::open()?;
    let facts = gpus.facts();
    let mut report = DoctorReport {
        reason: "doctor",
        driver: DriverJson {
            source: facts.source.clone(),
            cuda_version: facts.version.map(|v| v.to_string()),
            problem: facts.problem.clone(),
        },
        gpus: facts
            .gpus
            .iter()
            .map(|g| GpuJson {
                ordinal: g.ordinal,
                name: g.name.clone(),
                cc: g.cc.to_string(),
                generation: generation(g.cc),
            })
            .collect(),
        toolkit: toolkit_json(),
        headers: crate::commands::toolkit::installed_headers(&archbuild::config::Home::from_env(
            &crate::building::cli_env(),
        )),
        nvjitlink: match discover_nvjitlink(|_| true) {
            Ok(lib) => ToolJson {
                found: true,
                version: Some(lib.version().to_string()),
                path: Some(lib.path().display().to_string()),
                detail: None,
            },
            Err(why) => ToolJson {
                found: false,
                version: None,
                path: None,
                detail: Some(why),
            },
        },
        jit_cache: match JitCache::from_env() {
            Ok(Some(c)) => {
                let entries = c.entries();
                Some(CacheJson {
                    dir: c.dir().display().to_string(),
                    entries: entries.len(),
                    bytes: entries.iter().map(|e| e.1).sum(),
                })
            }
            _ => None,
        },
        file: None,
    };
    if let Some(path) = &args.file {
        let bytes = read_input(path)?;
        let modules = modules_of(path, &bytes)?;
        report.file = Some(check_file(path, &modules, &gpus, &facts, policy)?);
    }
    if shell.is_json() {
        shell.json(&report)?;
    } else {
        print_human(&report, shell)?;
    }
    match &report.file {
        Some(f) if !f.ok => {
            let total = report.gpus.len();
            let failing = report
                .gpus
                .iter()
                .filter(|g| {
                    f.modules
                        .iter()
                        .any(|m| m.gpus.iter().any(|v| v.ordinal == g.ordinal && !v.ok))
                })
                .count();
            Err(CliError::DoctorFailed {
                file: args.file.clone().unwrap_or_default(),
                failing,
                total,
            })
        }
        _ => Ok(()),
    }
}

fn toolkit_json() -> ToolJson {
    match Facts::new().toolkit() {
        Ok(t) => ToolJson {
            found: true,
            version: Some(t.release().to_string()),
            path: Some(t.nvcc().display().to_string()),
            detail: Some(t.found_by().to_string()),
        },
        Err(why) => ToolJson {
            found: false,
            version: None,
            path: None,
            detail: Some(why),
        },
    }
}

fn check_file(
    path: &Path,
    modules: &[LoadableModule],
    gpus: &Gpus,
    facts: &DriverFacts,
    policy: Option<Policy>,
) -> Result<FileJson, CliError> {
    let mut out = Vec::new();
    let groups = crate::listing::recorded_groups(path);
    let toolkit = crate::listing::recorded_toolkits(path);
    for m in modules {
        let records = archbuild_fatbin::read_any(&m.bytes).unwrap_or_default();
        let coverage_gaps = crate::listing::gaps_of(&records.iter().collect::<Vec<_>>(), &groups);
        let coverage_lines = archbuild_arch::group_gaps(&coverage_gaps)
            .iter()
            .map(ToString::to_string)
            .collect();
        let fatbin = match FatBinary::from_vec(m.bytes.clone()) {
            Ok(f) => {
                let f = f
                    .with_variant_groups(crate::listing::variant_groups(path))
                    .handed_over(handoff_of(m));
                match &toolkit {
                    Some(t) => f.made_by_each(t),
                    None => f,
                }
            }
            Err(e) => {
                return Err(CliError::Unloadable {
                    path: path.to_path_buf(),
                    module: Some(m.location.clone()),
                    source: e,
                })
            }
        };
        let images = fatbin
            .images()
            .iter()
            .map(|i| i.target.to_string())
            .collect();
        // LTO-IR names no kernels, yet a module of it is one to check: only nvJitLink loads it.
        let lto = fatbin
            .images()
            .iter()
            .any(|i| i.target.kind == archbuild_arch::TargetKind::LtoIr);
        let checked = m.has_kernels || lto;
        let verdicts = if !checked || facts.gpus.is_empty() {
            Vec::new()
        } else {
            crate::gpus::check(gpus, &fatbin, policy)?
        };
        out.push(ModuleJson {
            location: m.location.clone(),
            images,
            checked,
            gpus: verdicts,
            coverage_gaps,
            coverage_lines,
        });
    }
    let ok = out.iter().all(|m| m.gpus.iter().all(|g| g.ok));
    Ok(FileJson {
        path: path.display().to_string(),
        ok,
        modules: out,
    })
}

/// How a module reaches the driver: an executable's `.nv_fatbin` containers are registered whole
/// by the CUDA runtime (the driver decompresses them); a fat binary file or one embedded as bytes
/// (`include_bytes!`) is loaded by archbuild's loader, which extracts and decompresses the image.
fn handoff_of(m: &LoadableModule) -> Handoff {
    if m.location.starts_with(".nv_fatbin") || m.location.starts_with("__nv_relfatbin") {
        Handoff::FatBinary
    } else {
        Handoff::Image
    }
}

/// The report as a person reads it: driver and GPUs, tools, then FILE's verdicts.
fn print_human(r: &DoctorReport, shell: &Shell) -> Result<(), CliError> {
    print_driver(r, shell)?;
    print_tools(r, shell)?;
    match &r.file {
        Some(file) => print_file(file, !r.gpus.is_empty(), shell),
        None => Ok(()),
    }
}

/// A line's bold, padded label: `driver    `, `GPU 0     `.
fn label(s: &str) -> String {
    bold(format!("{s:<10}"))
}

/// The driver, its version or why it is missing, and every GPU with its compute capability.
fn print_driver(r: &DoctorReport, shell: &Shell) -> Result<(), CliError> {
    match (&r.driver.cuda_version, &r.driver.problem) {
        (Some(v), _) => shell.println(format!(
            "{} CUDA {v} ({})",
            label("driver"),
            r.driver.source
        ))?,
        (None, Some(p)) => {
            shell.println(format!("{} {} ({p})", label("driver"), bad("not found")))?
        }
        (None, None) => shell.println(format!("{} {}", label("driver"), bad("not found")))?,
    }
    if r.gpus.is_empty() {
        shell.println(format!("{} none visible", label("GPUs")))?;
    }
    for g in &r.gpus {
        let generation = g.generation.map(|s| format!(" ({s})")).unwrap_or_default();
        shell.println(format!(
            "{} {}, compute capability {}{generation}",
            label(&format!("GPU {}", g.ordinal)),
            g.name,
            g.cc
        ))?;
    }
    if let (Some(_), Some(p)) = (&r.driver.cuda_version, &r.driver.problem) {
        shell.warn(p);
    }
    Ok(())
}

/// The toolkit, the header libraries, nvJitLink and the JIT cache.
fn print_tools(r: &DoctorReport, shell: &Shell) -> Result<(), CliError> {
    shell.println(tool_line(&r.toolkit, "toolkit", "CUDA "))?;
    if r.headers.is_empty() {
        shell.println(format!("{} none installed", label("headers")))?;
    }
    for h in &r.headers {
        shell.println(format!(
            "{} {}",
            label("headers"),
            crate::commands::toolkit::header_line(h)
        ))?;
    }
    shell.println(tool_line(&r.nvjitlink, "nvJitLink", ""))?;
    match &r.jit_cache {
        Some(c) => shell.println(format!(
            "{} {}: {} entr{}, {}",
            label("JIT cache"),
            c.dir,
            c.entries,
            if c.entries == 1 { "y" } else { "ies" },
            human_bytes(c.bytes)
        ))?,
        None => shell.println(format!("{} off", label("JIT cache")))?,
    }
    Ok(())
}

/// A tool's line: `what` with its version (after `prefix`), path and detail, or why it is missing.
fn tool_line(t: &ToolJson, what: &str, prefix: &str) -> String {
    match (&t.version, &t.path) {
        (Some(v), Some(p)) => {
            let detail = t
                .detail
                .as_deref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            format!("{} {prefix}{v}, {p}{detail}", label(what))
        }
        _ => format!(
            "{} not found: {}",
            label(what),
            t.detail.as_deref().unwrap_or("")
        ),
    }
}

/// FILE's modules, each with its images, coverage gaps and every GPU's verdict on it.
fn print_file(file: &FileJson, any_gpu: bool, shell: &Shell) -> Result<(), CliError> {
    shell.println("")?;
    for m in &file.modules {
        shell.println(format!(
            "{} ({}): {}",
            bold(&file.path),
            m.location,
            m.images.join(" ")
        ))?;
        if !m.checked {
            shell.println("  holds no kernels (a device-link stub); not checked")?;
            continue;
        }
        for line in &m.coverage_lines {
            shell.warn(line);
        }
        if !any_gpu {
            shell.println("  no GPU visible: nothing to check it against (see `cargo archbuild inspect` for its images)")?;
            continue;
        }
        for g in &m.gpus {
            print_verdict(g, shell)?;
        }
    }
    Ok(())
}

/// One GPU's verdict on a module: the image and route it loads, or why it cannot run it.
fn print_verdict(g: &GpuVerdict, shell: &Shell) -> Result<(), CliError> {
    let who = format!("GPU {} {} ({})", g.ordinal, g.name, g.cc);
    match (&g.image, &g.error) {
        (Some(img), _) => {
            let verdict = if g.ok { good("ok") } else { bad("no variant") };
            shell.println(format!(
                "  {who}: {verdict} [{}] {img}, {}",
                g.image_index.unwrap_or(0),
                g.route.as_deref().unwrap_or("")
            ))?;
            for v in &g.variants {
                shell.println(format!("    variant {v}"))?;
            }
        }
        (None, err) => {
            let why = err.as_deref().unwrap_or("no image fits");
            // The loader's message starts with the same GPU label; say it once.
            let why = why.strip_prefix(&format!("{who}: ")).unwrap_or(why);
            shell.println(format!("  {who}: {}: {why}", bad("cannot run it")))?;
            // The per-image verdicts of the selection (its device and fix lines are above).
            for line in g
                .explanation
                .as_deref()
                .unwrap_or("")
                .lines()
                .filter(|l| l.starts_with("  ["))
            {
                shell.println(format!("    {}", line.trim_start()))?;
            }
        }
    }
    Ok(())
}
