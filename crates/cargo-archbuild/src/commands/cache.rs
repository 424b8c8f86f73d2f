//! `cargo archbuild cache stats|clean|trim|verify`: where the build cache (per-target compile results)
//! and the JIT cache (cubins compiled from PTX at load time) live, what they hold, clearing them,
//! and applying their size caps now (builds and loads apply them as they store entries).
//! Both caches verify entries before use, so clearing is never needed for correctness — only
//! to reclaim space. Both have a size cap (`ARCHBUILD_CACHE_MAX_BYTES`,
//! `ARCHBUILD_JIT_CACHE_MAX_BYTES`) enforced by evicting the least recently used entries.

use std::path::Path;

use archbuild::{cache, config::Home};
use archbuild_runtime::jit::JitCache;
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
    let mut caches = Vec::new();
    if want_build {
        let (entries, bytes) = cache::stats(&home);
        let mut c = CacheJson {
            name: "build",
            dir: Some(home.cache_dir().display().to_string()),
            entries,
            bytes,
            max_bytes: Some(cache::max_bytes(&env)?),
            removed_entries: 0,
            removed_bytes: 0,
        };
        if action == "clean" {
            // Entry by entry: a build running now keeps its temp directory (deleting it failed
            // that build).
            let e = archbuild::cache::clean(&home);
            (c.removed_entries, c.removed_bytes) = (e.entries, e.bytes);
            (c.entries, c.bytes) = cache::stats(&home);
        } else if action == "trim" {
            let e = cache::trim(&home, c.max_bytes.unwrap_or(u64::MAX));
            (c.removed_entries, c.removed_bytes) = (e.entries, e.bytes);
            (c.entries, c.bytes) = cache::stats(&home);
        }
        caches.push(c);
    }
    if want_jit {
        let mut c = CacheJson {
            name: "jit",
            dir: None,
            entries: 0,
            bytes: 0,
            max_bytes: None,
            removed_entries: 0,
            removed_bytes: 0,
        };
        if let Some(cache) = &jit {
            let entries = cache.entries();
            c.dir = Some(cache.dir().display().to_string());
            c.max_bytes = Some(cache.max_bytes());
            c.entries = entries.len() as u64;
            c.bytes = entries.iter().map(|e| e.1).sum();
            if action == "clean" {
                for (path, len, _) in &entries {
                    remove_file(path)?;
                    c.removed_entries += 1;
                    c.removed_bytes += len;
                }
            } else if action == "trim" {
                (c.removed_entries, c.removed_bytes) = cache.trim();
            }
            c.entries = c.entries.saturating_sub(c.removed_entries);
            c.bytes = c.bytes.saturating_sub(c.removed_bytes);
        }
        caches.push(c);
    }
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

fn remove_file(path: &Path) -> Result<(), CliError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(CliError::Write {
            path: path.to_path_buf(),
            source,
        }),
    }
}
