//! `[package.metadata.archbuild]` in a package's Cargo.toml: the arch list and build settings
//! a package records for everyone who builds it (build script and `cargo archbuild build`).
//!
//! ```toml
//! [package.metadata.archbuild]
//! archs = "7.5 8.6 8.9+PTX"            # or an array: ["7.5", "8.6", "8.9+PTX"]
//! kernels = ["kernels/add.cu"]         # sources for `cargo archbuild build`
//! nvcc-flags = ["-O3", "-lineinfo"]
//! ptxas-flags = ["-v"]
//! include = ["kernels/include"]        # relative to the package directory
//! defines = ["TILE=32", "USE_FAST"]
//! relocatable-device-code = true       # each file relocatable, device-linked per target
//! compression = "default"              # none | default | speed | balance | size
//! remote-cache = "redis://cache:6379/0" # shared cache (ARCHBUILD_REMOTE_CACHE overrides)
//! remote-cache-mode = "read-write"     # or read-only
//!
//! [package.metadata.archbuild.modules]
//! attention = ["kernels/softmax.cu", "kernels/attn.cu"]  # one fat binary of several files
//!
//! [package.metadata.archbuild.variants]
//! gemm = ["gemm_wgmma", "gemm_mma", "gemm_simt"]   # kernel variants, most preferred first
//!
//! [package.metadata.archbuild.headers]
//! nvidia-cutlass = "4.2.0"             # a PyPI package by exact version (installed once)
//! cccl = { pypi = "nvidia-cuda-cccl", version = "13.3.5.0.6", sha256 = "…" }
//! mylib = { path = "third_party/mylib/include", rev = "1a2b3c4d" }  # rev: a git checkout's HEAD
//!
//! arch-list-mode = "auto"              # auto | narrow | override: how per-file lists meet the requested list
//! fleet = ["7.5@12.4", "8.6@13.0"]     # the GPUs and drivers the fat binaries must load on
//!
//! [package.metadata.archbuild.file-archs]
//! "kernels/hopper.cu" = "9.0a"         # per-file arch list (narrows or overrides: arch-list-mode)
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::base::shown::Shown;
use crate::error::{Error, Result};
use crate::toolkit::makers::{ByMaker, Maker};

/// The settings of one package, with paths made absolute against its directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackageConfig {
    /// The Cargo.toml this came from.
    pub manifest_path: PathBuf,
    pub archs: Option<String>,
    pub kernels: Vec<PathBuf>,
    pub nvcc_flags: Vec<String>,
    pub ptxas_flags: Vec<String>,
    pub include: Vec<PathBuf>,
    pub defines: Vec<String>,
    pub compression: Option<String>,
    /// Per-file arch lists, keyed by the path as written (relative to the package).
    pub file_archs: BTreeMap<String, String>,
    /// `arch-list-mode`: `auto`, `narrow` or `override` (`prepare/narrowing.rs`).
    pub arch_list_mode: Option<String>,
    /// `fleet`: its members joined by `, ` (`prepare/fleet.rs`).
    pub fleet: Option<String>,
    /// `toolkit`, `ptx-toolkit` and `legacy-toolkit`: the CUDA version each maker is asked
    /// for, `"13.0"` (`toolkit/releases.rs`, `toolkit/makers.rs`).
    pub(crate) toolkits: ByMaker<Option<String>>,
    /// `remote-cache`: the shared cache's URL (`redis://…`, `webdav://…`, `s3://…`, `gha`, …).
    pub remote_cache: Option<String>,
    /// `remote-cache-mode`: `read-write` or `read-only`.
    pub remote_cache_mode: Option<String>,
    /// `[package.metadata.archbuild.variants]`: group name → kernels, most preferred first.
    pub variants: Vec<(String, Vec<String>)>,
    /// `[package.metadata.archbuild.headers]`: header libraries, in the table's order.
    pub headers: Vec<crate::headers::library::HeaderLibrary>,
    /// `library`: the kernels have host code and are built into `lib<name>.a` (`Library`).
    pub library: Option<String>,
    /// `host-flags`: nvcc flags for a library's host side only.
    pub host_flags: Vec<String>,
    /// `cudart`: how a library links the CUDA runtime (`static`, `shared`, `none`).
    pub cudart: Option<String>,
    /// `prebuilt`: the package's directory of shipped fat binaries (`docs/publishing.md`),
    /// relative to the package as written.
    pub prebuilt: Option<String>,
    /// `prebuilt-budget`: the most bytes `cargo archbuild package` may write there.
    pub prebuilt_budget: Option<String>,
    /// `relocatable-device-code`: each file compiled relocatable and device-linked per target.
    pub relocatable_device_code: Option<bool>,
    /// `[package.metadata.archbuild.modules]`: module name → its files (absolute), each a fat
    /// binary of several files (one translation unit, or with relocatable device code one
    /// device link), in the table's order, after `kernels`' one module per file.
    pub modules: Vec<(String, Vec<PathBuf>)>,
}

/// crates.io's upload limit, the default budget for a package's prebuilt fat binaries.
pub(crate) const DEFAULT_PREBUILT_BUDGET: u64 = 10 * 1024 * 1024;

impl PackageConfig {
    /// Whether the table names any source (`kernels` or `modules`).
    pub fn has_sources(&self) -> bool {
        !self.kernels.is_empty() || !self.modules.is_empty()
    }

    /// The package's directory of shipped fat binaries (`prebuilt`), absolute.
    pub fn prebuilt_dir(&self) -> Option<PathBuf> {
        let dir = self.manifest_path.parent().unwrap_or(Path::new("."));
        self.prebuilt.as_ref().map(|p| dir.join(p))
    }

    /// `prebuilt-budget` in bytes; crates.io's 10 MiB limit when unset.
    pub fn prebuilt_budget(&self) -> Result<u64> {
        let Some(v) = &self.prebuilt_budget else {
            return Ok(DEFAULT_PREBUILT_BUDGET);
        };
        archbuild_config::parse_size(v).ok_or_else(|| Error::Manifest {
            path: self.manifest_path.clone(),
            detail: format!(
                "`prebuilt-budget = \"{v}\"` is not a size; use a number of bytes with an \
                 optional K, M or G suffix (powers of 1024), such as \"8M\" or \"9.5MiB\""
            ),
        })
    }

    /// Reads `[package.metadata.archbuild]`; `Ok(None)` when the table is absent.
    pub fn from_manifest(path: &Path) -> Result<Option<Self>> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))?;
        Self::from_str_at(&text, path)
    }

    fn from_str_at(text: &str, path: &Path) -> Result<Option<Self>> {
        let bad = |detail: String| Error::Manifest {
            path: path.to_path_buf(),
            detail,
        };
        let doc: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| bad(e.message().to_owned()))?;
        let Some(table) = doc
            .get("package")
            .and_then(|p| p.get("metadata"))
            .and_then(|m| m.get("archbuild"))
        else {
            return Ok(None);
        };
        let table = table
            .as_table()
            .ok_or_else(|| bad("`package.metadata.archbuild` must be a table".into()))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut cfg = PackageConfig {
            manifest_path: path.to_path_buf(),
            ..Default::default()
        };
        // Every problem of the table is reported at once: a wrong type does not hide an
        // unknown key after it.
        let mut unknown: Vec<String> = Vec::new();
        let mut wrong: Vec<String> = Vec::new();
        for (key, value) in table {
            let known = cfg.read_arch_key(key, value, &mut wrong)
                || cfg.read_toolkit_key(key, value, &mut wrong)
                || cfg.read_compile_key(key, value, dir, &mut wrong)
                || cfg.read_library_key(key, value, &mut wrong)
                || cfg.read_output_key(key, value, &mut wrong)
                || cfg.read_kernel_table(key, value, dir, &mut wrong);
            if !known {
                unknown.push(key.to_owned());
            }
        }
        if !unknown.is_empty() {
            wrong.push(unknown_keys_problem(&unknown));
        }
        if !wrong.is_empty() {
            return Err(bad(wrong.join("; ")));
        }
        Ok(Some(cfg))
    }

    /// Reads a key choosing the arch list (`archs`, `fleet`, `arch-list-mode`, `file-archs`);
    /// `false` when `key` is none of them.
    fn read_arch_key(&mut self, key: &str, value: &toml::Value, wrong: &mut Vec<String>) -> bool {
        match key {
            "archs" => self.archs = strings(key, value, wrong).map(|v| v.join(" ")),
            "fleet" => self.fleet = strings(key, value, wrong).map(|v| v.join(", ")),
            "arch-list-mode" => match value.as_str() {
                Some(v) => self.arch_list_mode = Some(v.to_owned()),
                None => wrong.push(format!(
                    "`arch-list-mode` must be a string: \"auto\", \"narrow\" or \
                     \"override\", found `{}`",
                    Shown(value)
                )),
            },
            "file-archs" => match value.as_table() {
                Some(t) => {
                    for (file, archs) in t {
                        match string_list(file, archs) {
                            Ok(list) => {
                                self.file_archs.insert(file.clone(), list.join(" "));
                            }
                            Err(e) => wrong.push(format!("in `file-archs`: {e}")),
                        }
                    }
                }
                None => {
                    wrong.push("`file-archs` must be a table of \"path\" = \"arch list\"".into())
                }
            },
            _ => return false,
        }
        true
    }

    /// Reads a key naming a CUDA version (`toolkit`, `ptx-toolkit`, `legacy-toolkit`); `false`
    /// when `key` is none of them.
    fn read_toolkit_key(
        &mut self,
        key: &str,
        value: &toml::Value,
        wrong: &mut Vec<String>,
    ) -> bool {
        let (maker, examples) = match key {
            "toolkit" => (
                Maker::Build,
                "\"13.0\", \"13.0.88\" or \"12.x\" (quoted: a TOML number loses `13.10`'s zero),",
            ),
            "ptx-toolkit" => (
                Maker::Ptx,
                "\"13.0\" or \"13.0.88\" (quoted: a TOML number loses `13.10`'s zero),",
            ),
            "legacy-toolkit" => (Maker::Legacy, "\"12.x\" or \"12.9\","),
            _ => return false,
        };
        match value.as_str() {
            Some(v) => self.toolkits[maker] = Some(v.to_owned()),
            None => wrong.push(format!(
                "`{key}` must be a string such as {examples} found `{}`",
                Shown(value)
            )),
        }
        true
    }

    /// Reads a key giving the sources and their compile flags (`kernels`, `include`,
    /// `nvcc-flags`, `ptxas-flags`, `defines`); `false` when `key` is none of them.
    fn read_compile_key(
        &mut self,
        key: &str,
        value: &toml::Value,
        dir: &Path,
        wrong: &mut Vec<String>,
    ) -> bool {
        let paths = |wrong: &mut Vec<String>| -> Vec<PathBuf> {
            strings(key, value, wrong)
                .unwrap_or_default()
                .iter()
                .map(|k| dir.join(k))
                .collect()
        };
        match key {
            "kernels" => self.kernels = paths(wrong),
            "include" => self.include = paths(wrong),
            "nvcc-flags" => self.nvcc_flags = strings(key, value, wrong).unwrap_or_default(),
            "ptxas-flags" => self.ptxas_flags = strings(key, value, wrong).unwrap_or_default(),
            "defines" => self.defines = strings(key, value, wrong).unwrap_or_default(),
            "relocatable-device-code" => match value.as_bool() {
                Some(on) => self.relocatable_device_code = Some(on),
                None => wrong.push(format!(
                    "`relocatable-device-code` must be true or false, found `{}`",
                    Shown(value)
                )),
            },
            _ => return false,
        }
        true
    }

    /// Reads a key of a package built into a static library (`library`, `cudart`,
    /// `host-flags`); `false` when `key` is none of them.
    fn read_library_key(
        &mut self,
        key: &str,
        value: &toml::Value,
        wrong: &mut Vec<String>,
    ) -> bool {
        match key {
            "host-flags" => self.host_flags = strings(key, value, wrong).unwrap_or_default(),
            "library" | "cudart" => match value.as_str() {
                Some(v) if key == "library" => self.library = Some(v.to_owned()),
                Some(v) => self.cudart = Some(v.to_owned()),
                None => wrong.push(format!(
                    "`{key}` must be a string such as \"flashattention\" or \"static\", \
                     found `{}`",
                    Shown(value)
                )),
            },
            _ => return false,
        }
        true
    }

    /// Reads a key about where built fat binaries go (`compression`, `prebuilt`,
    /// `prebuilt-budget`, `remote-cache`, `remote-cache-mode`); `false` when `key` is none of them.
    fn read_output_key(&mut self, key: &str, value: &toml::Value, wrong: &mut Vec<String>) -> bool {
        match key {
            "compression" => match value.as_str() {
                Some(v) => self.compression = Some(v.to_owned()),
                None => wrong.push(format!(
                    "`compression` must be a string such as \"default\" or \"size\", \
                     found `{}`",
                    Shown(value)
                )),
            },
            "prebuilt" | "prebuilt-budget" => match value.as_str() {
                Some(v) if key == "prebuilt" => self.prebuilt = Some(v.to_owned()),
                Some(v) => self.prebuilt_budget = Some(v.to_owned()),
                None => wrong.push(format!(
                    "`{key}` must be a string such as \"prebuilt\" or \"8 MiB\", \
                     found `{}`",
                    Shown(value)
                )),
            },
            "remote-cache" | "remote-cache-mode" => match value.as_str() {
                Some(v) if key == "remote-cache" => self.remote_cache = Some(v.to_owned()),
                Some(v) => self.remote_cache_mode = Some(v.to_owned()),
                None => wrong.push(format!(
                    "`{key}` must be a string such as \"redis://cache:6379/0\" or \
                     \"read-only\", found `{}`",
                    Shown(value)
                )),
            },
            _ => return false,
        }
        true
    }

    /// Reads a sub-table of what the kernels are built from (`variants`, `modules`, `headers`); `false`
    /// when `key` is neither.
    fn read_kernel_table(
        &mut self,
        key: &str,
        value: &toml::Value,
        dir: &Path,
        wrong: &mut Vec<String>,
    ) -> bool {
        match key {
            "variants" => match value.as_table() {
                Some(t) => {
                    for (group, kernels) in t {
                        match string_list(group, kernels) {
                            Ok(k) => self.variants.push((group.clone(), k)),
                            Err(e) => wrong.push(format!("in `variants`: {e}")),
                        }
                    }
                }
                None => wrong.push(
                    "`variants` must be a table of group = [\"kernel\", …] (most \
                     preferred first)"
                        .into(),
                ),
            },
            "modules" => match value.as_table() {
                Some(t) => {
                    for (name, files) in t {
                        match string_list(name, files) {
                            Ok(f) if !f.is_empty() => self
                                .modules
                                .push((name.clone(), f.iter().map(|f| dir.join(f)).collect())),
                            Ok(_) => wrong.push(format!(
                                "in `modules`: `{name}` lists no file; give it its `.cu` files, \
                                 such as [\"kernels/a.cu\", \"kernels/b.cu\"]"
                            )),
                            Err(e) => wrong.push(format!("in `modules`: {e}")),
                        }
                    }
                }
                None => wrong.push(
                    "`modules` must be a table of name = [\"file.cu\", …] (one fat binary \
                     of those files)"
                        .into(),
                ),
            },
            "headers" => match value.as_table() {
                Some(t) => {
                    for (name, lib) in t {
                        match crate::headers::library::from_toml(name, lib, dir) {
                            Ok(l) => self.headers.push(l),
                            Err(e) => wrong.push(format!("in `headers`: {e}")),
                        }
                    }
                }
                None => wrong.push(
                    "`headers` must be a table of name = \"version\" or name = { pypi, \
                     version } / { path, rev }"
                        .into(),
                ),
            },
            _ => return false,
        }
        true
    }
}

/// The problem reported for the table's unknown keys, each with the known key it likely meant.
fn unknown_keys_problem(unknown: &[String]) -> String {
    let each: Vec<String> = unknown
        .iter()
        .map(|k| match closest_key(k) {
            Some(s) => format!("`{k}` (did you mean `{s}`?)"),
            None => format!("`{k}`"),
        })
        .collect();
    format!(
        "unknown key{} {}; known keys are {}",
        if unknown.len() > 1 { "s" } else { "" },
        each.join(", "),
        KNOWN_KEYS.join(", ")
    )
}

/// [`string_list`], its problem recorded in `wrong`.
fn strings(key: &str, value: &toml::Value, wrong: &mut Vec<String>) -> Option<Vec<String>> {
    string_list(key, value).map_err(|e| wrong.push(e)).ok()
}

/// Every key of `[package.metadata.archbuild]`.
const KNOWN_KEYS: &[&str] = &[
    "archs",
    "kernels",
    "nvcc-flags",
    "ptxas-flags",
    "include",
    "defines",
    "relocatable-device-code",
    "compression",
    "file-archs",
    "remote-cache",
    "remote-cache-mode",
    "variants",
    "modules",
    "headers",
    "library",
    "host-flags",
    "cudart",
    "prebuilt",
    "prebuilt-budget",
    "arch-list-mode",
    "fleet",
    "toolkit",
    "ptx-toolkit",
    "legacy-toolkit",
];

/// The known key a typo most likely meant (`arch` → `archs`, `nvcc_flags` → `nvcc-flags`).
fn closest_key(key: &str) -> Option<&'static str> {
    let norm = key.replace('_', "-").to_ascii_lowercase();
    KNOWN_KEYS
        .iter()
        .map(|k| (archbuild_arch::edit_distance(&norm, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min()
        .map(|(_, k)| k)
}

/// A string, or an array of strings.
fn string_list(key: &str, value: &toml::Value) -> std::result::Result<Vec<String>, String> {
    match value {
        toml::Value::String(s) => Ok(vec![s.clone()]),
        toml::Value::Array(a) => a
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("`{key}` must hold only strings, found `{}`", Shown(v)))
            })
            .collect(),
        other => Err(format!(
            "`{key}` must be a string or an array of strings, found `{}`",
            Shown(other)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_key() {
        let text = r#"
[package]
name = "x"
[package.metadata.archbuild]
archs = ["7.5", "8.6+PTX"]
kernels = ["k/a.cu"]
nvcc-flags = ["-O3"]
include = ["inc"]
defines = ["A=1"]
relocatable-device-code = true
compression = "size"
arch-list-mode = "narrow"
fleet = ["7.5@12.4", "8.6@13.0"]
[package.metadata.archbuild.file-archs]
"k/h.cu" = "9.0a"
[package.metadata.archbuild.modules]
linked = ["k/a.cu", "k/b.cu"]
"#;
        let cfg = PackageConfig::from_str_at(text, Path::new("/p/Cargo.toml"))
            .unwrap()
            .unwrap();
        assert_eq!(cfg.archs.as_deref(), Some("7.5 8.6+PTX"));
        assert_eq!(cfg.kernels, [PathBuf::from("/p/k/a.cu")]);
        assert_eq!(cfg.include, [PathBuf::from("/p/inc")]);
        assert_eq!(cfg.file_archs["k/h.cu"], "9.0a");
        assert_eq!(cfg.compression.as_deref(), Some("size"));
        assert_eq!(cfg.arch_list_mode.as_deref(), Some("narrow"));
        assert_eq!(cfg.fleet.as_deref(), Some("7.5@12.4, 8.6@13.0"));
        assert_eq!(cfg.relocatable_device_code, Some(true));
        assert_eq!(
            cfg.modules,
            [(
                "linked".to_owned(),
                vec![PathBuf::from("/p/k/a.cu"), PathBuf::from("/p/k/b.cu")]
            )]
        );
        assert!(cfg.has_sources());
        let quoted = text.replace(
            "relocatable-device-code = true",
            "relocatable-device-code = \"yes\"",
        );
        let err = PackageConfig::from_str_at(&quoted, Path::new("/p/Cargo.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`relocatable-device-code` must be true or false, found `\"yes\"`"),
            "{err}"
        );
    }

    #[test]
    fn absent_table_and_bad_keys() {
        let none = PackageConfig::from_str_at("[package]\nname='x'\n", Path::new("C")).unwrap();
        assert_eq!(none, None);
        let err = PackageConfig::from_str_at(
            "[package.metadata.archbuild]\narch = '8.6'\n",
            Path::new("/p/Cargo.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("unknown key `arch` (did you mean `archs`?)"),
            "{err}"
        );
        // Every unknown key at once, each with its suggestion.
        let err = PackageConfig::from_str_at(
            "[package.metadata.archbuild]\nkernel = ['a.cu']\nnvcc_flags = []\nfoo = 1\n",
            Path::new("/p/Cargo.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains(
                "unknown keys `foo`, `kernel` (did you mean `kernels`?), `nvcc_flags` \
                          (did you mean `nvcc-flags`?)"
            ),
            "{err}"
        );
        // A wrong type does not hide what comes after it: every problem in one error.
        let err = PackageConfig::from_str_at(
            "[package.metadata.archbuild]\narchs = 86\ncompression = 3\nkernal = ['a.cu']\n",
            Path::new("/p/Cargo.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("`archs` must be a string or an array of strings, found `86`")
                && err.contains("`compression` must be a string")
                && err.contains("unknown key `kernal` (did you mean `kernels`?)"),
            "{err}"
        );
    }
}
