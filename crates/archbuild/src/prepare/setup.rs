//! Merging the build's settings from their sources. Flags, include dirs and defines
//! accumulate in this order: `[package.metadata.archbuild]`, then the build script / CLI, then
//! `ARCHBUILD_NVCC_FLAGS` (so an environment flag is the last word on the command line).
//! Compression and per-file arch lists take the first source that sets them: build script /
//! CLI, then `ARCHBUILD_COMPRESSION` (compression only), then the manifest. A per-file list
//! narrows the requested list or overrides it (`prepare/narrowing.rs`).

use std::path::{Path, PathBuf};
use std::str::FromStr;

use archbuild_fatbin::CompressionChoice;

use crate::base::env::Env;
use crate::base::layered::{Layer, Layered, Setting};
use crate::config::archs::{DeviceQuery, ResolvedArchs};
use crate::config::manifest::PackageConfig;
use crate::error::{Error, Result};
use crate::plan::{Module, Settings};
use crate::prepare::spec::Spec;

pub(crate) fn settings(
    b: &Spec,
    env: &Env,
    pkg: Option<&PackageConfig>,
    base: &Path,
) -> Result<Settings> {
    let mut s = Settings {
        base_dir: base.to_path_buf(),
        compiler_env: crate::config::compiler_env::CompilerEnv::from_env(env),
        ..Default::default()
    };
    if let Some(p) = pkg {
        s.nvcc_flags.extend(p.nvcc_flags.iter().cloned());
        s.ptxas_flags.extend(p.ptxas_flags.iter().cloned());
        s.includes.extend(p.include.iter().cloned());
        s.defines.extend(p.defines.iter().cloned());
    }
    s.nvcc_flags.extend(b.nvcc_flags.iter().cloned());
    s.ptxas_flags.extend(b.ptxas_flags.iter().cloned());
    s.includes.extend(b.includes.iter().map(|i| base.join(i)));
    s.defines.extend(b.defines.iter().cloned());
    let words = |var: &str| crate::config::flag_inputs::env_words(env, var);
    let extra = words("ARCHBUILD_NVCC_FLAGS").ok_or_else(|| Error::Config {
        what: "nvcc flags",
        origin: "ARCHBUILD_NVCC_FLAGS".into(),
        value: env.var("ARCHBUILD_NVCC_FLAGS").unwrap_or_default(),
        hint: "the value is split into words as a shell would, and a quote is left open; \
               close it (e.g. `-Xcompiler \"-O2 -g\"`) or escape it with a backslash"
            .into(),
    })?;
    s.nvcc_flags.extend(extra);
    s.env_flags.prepend = words("NVCC_PREPEND_FLAGS").unwrap_or_default();
    s.env_flags.append = words("NVCC_APPEND_FLAGS").unwrap_or_default();
    // cc-rs's convention: `RUSTC_WRAPPER=sccache` wraps C compilers too; archbuild follows it
    // for sccache only (another wrapper may be rustc-specific).
    let launcher = env
        .path("ARCHBUILD_COMPILER_LAUNCHER")
        .or_else(|| env.path("RUSTC_WRAPPER").filter(|w| is_sccache(w)));
    s.launcher = launcher.map(|l| {
        if l.components().count() == 1 {
            let path = env.var_os("PATH").unwrap_or_default();
            crate::base::process::on_path(&l, path).unwrap_or(l)
        } else {
            l
        }
    });
    s.launch_cicc = s.launcher.as_deref().is_some_and(|l| !is_sccache(l));
    // The host compiler users set by cc-rs's and CMake's conventions, below `-ccbin` and
    // `NVCC_CCBIN`; as a `-ccbin` flag it is keyed like one (`nvcc-flag`, `host-compiler`).
    let ccbin_given = crate::config::flag_inputs::scan(&s.all_nvcc_flags(), base)
        .ccbin
        .is_some()
        || env.var("NVCC_CCBIN").is_some_and(|v| !v.is_empty());
    if !ccbin_given {
        if let Some((_, program)) = crate::config::compiler_env::host_cxx(env)? {
            s.nvcc_flags.extend(["-ccbin".to_owned(), program]);
        }
    }
    s.device_code = crate::prepare::relocatable::device_code(b, env, pkg)?;
    s.finish("the nvcc flags (Build::flag, nvcc-flags in Cargo.toml, ARCHBUILD_NVCC_FLAGS)")
}

/// Whether a launcher is sccache (by file name: `sccache`, `sccache-0.16`, `sccache.exe`).
fn is_sccache(path: &Path) -> bool {
    path.file_name().is_some_and(|n| {
        n.to_string_lossy()
            .to_ascii_lowercase()
            .starts_with("sccache")
    })
}

/// The compression a source sets, with where; `None` when none does (the command's default:
/// `prepare/packing.rs`).
pub(crate) fn compression(
    b: &Spec,
    env: &Env,
    pkg: Option<&PackageConfig>,
) -> Result<Option<(CompressionChoice, String)>> {
    const SETTING: Setting = Setting(&[
        Layer::Builder("the build's compression (`.compression(...)` / `--compression`)"),
        Layer::Variable("ARCHBUILD_COMPRESSION"),
        Layer::Manifest("compression"),
    ]);
    let manifest = pkg.and_then(|p| p.compression.as_deref());
    let Some(Layered { value, origin }) = SETTING.resolve(b.compression.as_deref(), env, manifest)
    else {
        return Ok(None);
    };
    CompressionChoice::from_str(&value)
        .map(|c| Some((c, origin.to_string())))
        .map_err(|_| Error::Config {
            what: "compression",
            origin: origin.to_string(),
            value,
            hint: format!("use {}", archbuild_fatbin::COMPRESSION_WORDS),
        })
}

/// Where a build's settings are read from: the build script's, the environment, the package's
/// table, and the directory relative paths start from.
pub(crate) struct Sources<'a> {
    pub b: &'a Spec,
    pub env: &'a Env,
    pub pkg: Option<&'a PackageConfig>,
    pub base_dir: &'a std::path::Path,
}

/// The modules of the build, with their files checked and their arch lists resolved: a
/// per-file list narrowed to the requested one (a shard's whole list) when `narrowing` says
/// so (`prepare/narrowing.rs`), with the mode's description for messages.
pub(crate) fn modules(
    s: &Sources<'_>,
    name: &str,
    // The build's list, and the whole list when it is a CI shard.
    (archs, whole): (&ResolvedArchs, Option<&ResolvedArchs>),
    toolkit: &crate::toolkit::makers::Toolkits,
    devices: DeviceQuery<'_>,
    narrowing: Option<&str>,
) -> Result<Vec<Module>> {
    let (b, pkg, base) = (s.b, s.pkg, s.base_dir);
    let mut specs = b.modules.clone();
    // Where the sources were named, for messages that point at the right place to fix.
    let from_manifest = specs.is_empty();
    if specs.is_empty() {
        if let Some(p) = pkg {
            specs.extend(p.kernels.iter().map(|k| (None, vec![k.clone()])));
            specs.extend(p.modules.iter().map(|(n, f)| (Some(n.clone()), f.clone())));
        }
    }
    let fix_where = if from_manifest {
        "`kernels` or `modules` in Cargo.toml's [package.metadata.archbuild]"
    } else {
        "the path passed to `.file(...)`"
    };
    if specs.is_empty() {
        return Err(Error::NoSources(name.to_owned()));
    }
    let mut modules: Vec<Module> = Vec::new();
    for (given_name, files) in specs {
        for f in &files {
            let abs = base.join(f);
            if !abs.is_file() {
                let (problem, fix) = if abs.is_dir() {
                    (
                        "is a directory, not a source file",
                        format!("{fix_where}: list each `.cu` file in it (one module each)"),
                    )
                } else {
                    ("does not exist", fix_where.to_owned())
                };
                return Err(Error::SourceMissing {
                    path: f.strip_prefix(base).unwrap_or(f).to_path_buf(),
                    problem: problem.to_owned(),
                    context: format!(" (looked at {})", abs.display()),
                    fix,
                });
            }
        }
        let stem = files
            .first()
            .and_then(|f| f.file_stem())
            .map(|s| s.to_string_lossy().into_owned());
        let module_name = given_name
            .or(stem)
            .ok_or_else(|| Error::NoSources(name.to_owned()))?;
        let module_name = ident(&module_name, false);
        if modules.iter().any(|m| m.name == module_name) {
            return Err(Error::Config {
                what: "module name",
                origin: format!("the build `{name}`"),
                value: module_name,
                hint: if from_manifest {
                    "two kernel files in Cargo.toml's `kernels` list have the same name, and \
                     each file is a module named after it; rename one of the files (and its \
                     entry in `kernels`)"
                        .into()
                } else {
                    "two sources have the same name; give one its own with \
                     `.module(\"other_name\", [path])`"
                        .into()
                },
            });
        }
        // A group is one translation unit: its last file compiled with the others `-include`d
        // before it, in order (`plan::preincludes`), all named relative to the package, so
        // the output does not depend on where the checkout or archbuild's home is.
        let source = files[files.len() - 1].clone();
        let (module_archs, arch_list) = match file_override(b, pkg, base, &files) {
            Some((input, file, origin)) => {
                let mut own = crate::config::archs::parse_checked(
                    &input,
                    crate::config::archs::ArchSource::FileOverride(file),
                    toolkit,
                    devices,
                )?;
                if let Some(mode) = narrowing {
                    let requested = whole.unwrap_or(archs);
                    own = crate::prepare::narrowing::narrow(own, origin, requested, mode)?;
                }
                let list = crate::plan::arch_list_value(&own.list);
                (own, list)
            }
            // A shard's passes get the whole list's macro, as a one-shot build's would.
            None => (
                archs.clone(),
                crate::plan::arch_list_value(&whole.unwrap_or(archs).list),
            ),
        };
        modules.push(Module {
            name: module_name,
            source,
            members: files,
            archs: module_archs,
            arch_list,
            // Set by `prepare` once the library settings are resolved.
            host: false,
            device_code: crate::plan::DeviceCode::Whole,
        });
    }
    check_file_archs(b, pkg, base, &modules)?;
    Ok(modules)
}

/// The whole list a CI shard belongs to (`Build::shard_of`, else `ARCHBUILD_SHARD_OF`), checked
/// to hold every target of the shard's own list.
pub(crate) fn shard_of(
    b: &Spec,
    env: &Env,
    archs: &ResolvedArchs,
    toolkit: &crate::toolkit::makers::Toolkits,
    devices: DeviceQuery<'_>,
) -> Result<Option<ResolvedArchs>> {
    use crate::config::archs::{parse_checked, ArchSource};
    const SETTING: Setting = Setting(&[
        Layer::Builder("the build's arch list (`.archs(...)` / `--archs`)"),
        Layer::Variable("ARCHBUILD_SHARD_OF"),
    ]);
    let Some(Layered {
        value: input,
        origin,
    }) = SETTING.resolve(b.shard_of.as_deref(), env, None)
    else {
        return Ok(None);
    };
    let source = ArchSource::from(origin);
    let whole = parse_checked(&input, source.clone(), toolkit, devices)?;
    let outside: Vec<String> = archs
        .list
        .targets()
        .iter()
        .filter(|t| !whole.list.contains(**t))
        .map(ToString::to_string)
        .collect();
    if !outside.is_empty() {
        return Err(Error::Config {
            what: "shard",
            origin: source.to_string(),
            value: input,
            hint: format!(
                "this build's list `{}` has {} outside the whole list it is a shard of; pass \
                 the `whole` list `cargo archbuild matrix` printed for this shard, or leave \
                 ARCHBUILD_SHARD_OF unset for a build that is not a shard",
                archs.list,
                outside.join(", ")
            ),
        });
    }
    Ok(Some(whole))
}

/// A per-file arch list for a file that is not one of the build's sources would be ignored
/// without a word (a typo, or a header): refuse it instead.
fn check_file_archs(
    b: &Spec,
    pkg: Option<&PackageConfig>,
    base: &Path,
    modules: &[Module],
) -> Result<()> {
    let is_member = |f: &Path| {
        modules
            .iter()
            .flat_map(|m| m.members.iter())
            .any(|m| m == f || base.join(m) == base.join(f))
    };
    let from_build = b
        .file_archs
        .iter()
        .map(|(p, _)| (p.clone(), "Build::file_archs"));
    let from_pkg = pkg.into_iter().flat_map(|p| {
        p.file_archs.keys().map(|k| {
            (
                PathBuf::from(k),
                "Cargo.toml [package.metadata.archbuild.file-archs]",
            )
        })
    });
    for (file, origin) in from_build.chain(from_pkg) {
        if !is_member(&file) {
            let sources: Vec<String> = modules
                .iter()
                .flat_map(|m| m.members.iter())
                .map(|m| format!("`{}`", m.display()))
                .collect();
            return Err(Error::Config {
                what: "per-file arch list",
                origin: origin.to_owned(),
                value: file.display().to_string(),
                hint: format!(
                    "it is not one of the build's kernel sources ({}); fix the path (relative \
                     to the package directory) or add the file to the build",
                    sources.join(", ")
                ),
            });
        }
    }
    Ok(())
}

/// The per-file arch list for a module: the build script's, then the manifest's, with the
/// file and where the list was set. For a group, the first member with a list decides.
fn file_override(
    b: &Spec,
    pkg: Option<&PackageConfig>,
    base: &Path,
    files: &[PathBuf],
) -> Option<(String, String, &'static str)> {
    let same = |a: &Path, b2: &Path| a == b2 || base.join(a) == base.join(b2);
    for f in files {
        if let Some((_, list)) = b.file_archs.iter().rev().find(|(p, _)| same(p, f)) {
            return Some((list.clone(), f.display().to_string(), "Build::file_archs"));
        }
        if let Some((p, list)) =
            pkg.and_then(|p| p.file_archs.iter().find(|(p, _)| same(Path::new(p), f)))
        {
            return Some((
                list.clone(),
                p.clone(),
                "Cargo.toml [package.metadata.archbuild.file-archs]",
            ));
        }
    }
    None
}

/// A valid Rust identifier: snake case (or upper snake for constants), never a keyword. Each
/// module is named with it here, since `output/codegen.rs` makes the module (and its kernel
/// constants) Rust items of these names.
pub(crate) fn ident(name: &str, upper: bool) -> String {
    let mut s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    s = if upper {
        s.to_ascii_uppercase()
    } else {
        s.to_ascii_lowercase()
    };
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert_str(0, if upper { "K_" } else { "m_" });
    }
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
        "mut", "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true",
        "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final",
        "gen", "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield", "_",
    ];
    if KEYWORDS.contains(&s.as_str()) || s == "Self" {
        s.push('_');
    }
    s
}
