//! `cargo archbuild cache stats|clean|trim|verify`: where the build cache (per-target compile results)
//! and the JIT cache (cubins compiled from PTX at load time) live, what they hold, clearing them,
//! and applying their size caps now (builds and loads apply them as they store entries).
//! Both caches verify entries before use, so clearing is never needed for correctness — only
//! to reclaim space. Both have a size cap (`ARCHBUILD_CACHE_MAX_BYTES`,
//! `ARCHBUILD_JIT_CACHE_MAX_BYTES`) enforced by evicting the least recently used entries.
//! Both are `archbuild_store::CacheDir`s, so every action runs one code path for the two.

use archbuild::{cache, config::Home};
use archbuild_runtime::jit::JitCache;
use archbuild_store::CacheDir;
use serde::Serialize;

use crate::building::cli_env;
use crate::cli::{CacheCleanArgs, CacheCommand};
use crate::error::CliError;
use crate::shell::{human_bytes, Shell};

#[derive(Debug, Serialize)]
struct CacheJson {
    name: &'static str,
    dir: Option<String>,
    entries: u64,
    bytes: u64,
    /// The size cap in bytes (`None`: the cache is off).
    max_bytes: Option<u64>,
    /// For `clean`: entries and bytes removed.
    removed_entries: u64,
    removed_bytes: u64,
}

#[derive(Debug, Serialize)]
struct CacheReport {
    reason: &'static str,
    action: &'static str,
    caches: Vec<CacheJson>,
}

pub(crate) fn run(cmd: &CacheCommand, shell: &mut Shell) -> Result<(), CliError> {
    let env = cli_env();
    let home = Home::from_env(&env);
    let jit = JitCache::from_env().map_err(CliError::Runtime)?;
    let (action, want_build, want_jit) = match cmd {
        CacheCommand::Stats => ("stats", true, true),
        CacheCommand::Clean(CacheCleanArgs { build, jit }) => {
            ("clean", *build || !*jit, *jit || !*build)
        }
        CacheCommand::Trim(CacheCleanArgs { build, jit }) => {
            ("trim", *build || !*jit, *jit || !*build)
        }
        CacheCommand::Verify(v) => {
            let mut args = v.build.clone();
            args.compile.verify = Some(v.share.clone());
            return super::build::run(&args, shell);
        }
    };
    // Both caches through the store's one interface; `None`: the JIT cache is off.
    let mut wanted: Vec<(&'static str, Option<CacheDir>)> = Vec::new();
    if want_build {
        wanted.push(("build", Some(cache::cache_dir(&home, &env)?)));
    }
    if want_jit {
        wanted.push(("jit", jit.as_ref().map(JitCache::cache_dir)));
    }
    let caches: Vec<CacheJson> = wanted
        .into_iter()
        .map(|(name, dir)| apply(action, name, dir.as_ref()))
        .collect();
    if shell.is_json() {
        return shell.json(&CacheReport {
            reason: "cache",
            action,
            caches,
        });
    }
    for c in &caches {
        let dir = c.dir.as_deref().unwrap_or("off (ARCHBUILD_JIT_CACHE=off)");
        if action != "stats" {
            let cap = match (action, c.max_bytes) {
                ("trim", Some(m)) => format!(
                    ", {} left under its {} cap",
                    human_bytes(c.bytes),
                    human_bytes(m)
                ),
                _ => String::new(),
            };
            shell.status(
                "Removed",
                format!(
                    "{} {} cache entries ({}) from {dir}{cap}",
                    c.removed_entries,
                    c.name,
                    human_bytes(c.removed_bytes)
                ),
            );
        } else {
            let cap = c.max_bytes.map(human_bytes).unwrap_or_else(|| "-".into());
            shell.println(format!(
                "{:<6} cache  {:>6} entries  {:>10} of {:>10} cap  {dir}",
                c.name,
                c.entries,
                human_bytes(c.bytes),
                cap
            ))?;
        }
    }
    Ok(())
}

/// Runs `action` on one cache (nothing when it is off) and says what it holds afterwards.
fn apply(action: &str, name: &'static str, cache: Option<&CacheDir>) -> CacheJson {
    let mut c = CacheJson {
        name,
        dir: None,
        entries: 0,
        bytes: 0,
        max_bytes: None,
        removed_entries: 0,
        removed_bytes: 0,
    };
    let Some(cache) = cache else { return c };
    let removed = match action {
        "clean" => Some(cache.clean()),
        "trim" => Some(cache.trim()),
        _ => None,
    };
    if let Some(e) = removed {
        (c.removed_entries, c.removed_bytes) = (e.entries, e.bytes);
    }
    let usage = cache.usage();
    c.dir = Some(cache.dir().display().to_string());
    c.max_bytes = Some(cache.max_bytes());
    (c.entries, c.bytes) = (usage.entries, usage.bytes);
    c
}
