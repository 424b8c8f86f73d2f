//! Build records: what a fat binary was built from, written beside it as
//! `<module>.fatbin.archbuild.json`.
//!
//! A record holds the fat binary's targets, a key of the settings that shape it (flags, include
//! dirs, defines, compression), every input the compiles read with its content hash (paths
//! portable, as in the build cache's manifests, so a record made on a CI runner checks out on a
//! laptop), the probes (`__has_include` names, shadowing candidates) with their state, and the
//! fat binary's own hash. The build writes it; builds given `ARCHBUILD_PREBUILT` check it
//! (`prebuilt.rs`); `cargo archbuild merge` merges the records of CI shards and `inspect`,
//! `doctor` and `compile` read it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::store::Key;
use crate::cache::deps::Inputs;
use crate::error::{Error, Result};
pub use crate::report::signature::{Declared, Param, RustParam, Scalar};

/// The record's format version.
const FORMAT: u32 = 1;

/// What a fat binary was built from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub format: u32,
    pub module: String,
    /// nvcc names (`sm_86`, `compute_89`), sorted.
    pub targets: Vec<String>,
    /// Hash of the settings that shape the output (`settings_key`).
    pub settings: String,
    /// The toolkit release that built it (informational); with several, the one that made
    /// its cubins ([`Record::made_by`] says per image).
    pub toolkit: String,
    /// Which toolkit release made each image: `(target, release)`, sorted by target. Empty in
    /// records written before it existed: [`Record::toolkit`] made every image then.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub made_by: Vec<(String, String)>,
    /// `(portable path, content hash)` of every input, sorted.
    pub inputs: Vec<(String, String)>,
    /// `(portable path, hash or "-" for absent)`, sorted.
    pub probes: Vec<(String, String)>,
    /// BLAKE3 of the fat binary (hex).
    pub fatbin_blake3: String,
    /// The module's kernel variant groups (`cargo archbuild doctor`/`inspect` show them).
    #[serde(default)]
    pub variants: Vec<(String, Vec<String>)>,
    /// Each kernel's declared C signature, checked against every image when the file was
    /// built: a build that takes the file generates the same typed launchers. Absent in
    /// records of older versions (their builds generate no launchers).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub declared: Vec<Declared>,
    /// What a dependent's build checks when the file ships inside a package
    /// (`docs/publishing.md`); absent in records of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packaged: Option<PackagedSettings>,
}

/// The settings of a fat binary as a package ships it: keyed without the machine's toolkit and
/// host compiler (a dependent need not have either), with the items of that key so that a
/// mismatch names its field, and the toolkit that made it, described well enough to stand in
/// for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackagedSettings {
    /// `keys::output` over `Facts::packaged` (hex).
    pub settings: String,
    /// Its `(field, value)` items, in key order.
    pub items: Vec<(String, String)>,
    /// The toolkit's version lines and the targets it lists (`Toolkit::query_text`).
    pub toolkit_query: String,
}

/// The record's path for a fat binary.
pub fn record_path(fatbin: &Path) -> PathBuf {
    let mut p = fatbin.as_os_str().to_owned();
    p.push(".archbuild.json");
    PathBuf::from(p)
}

impl Record {
    /// The record of a fat binary of `targets` whose BLAKE3 is `fatbin_blake3`, each image
    /// made by the release `made_by` names (a target it leaves out: `toolkit`, the build's).
    pub(crate) fn new(
        module: &str,
        targets: &[String],
        made_by: &[(String, String)],
        settings: String,
        toolkit: &str,
        inputs: Inputs,
        fatbin_blake3: String,
    ) -> Self {
        let mut targets = targets.to_vec();
        targets.sort();
        let made_by = targets
            .iter()
            .map(|t| {
                let release = made_by.iter().find(|(m, _)| m == t).map(|(_, r)| r);
                (
                    t.clone(),
                    release.map_or(toolkit, String::as_str).to_owned(),
                )
            })
            .collect();
        let mut r = Self {
            format: FORMAT,
            module: module.to_owned(),
            targets,
            settings,
            toolkit: toolkit.to_owned(),
            made_by,
            inputs: inputs.deps,
            probes: inputs.probes,
            fatbin_blake3,
            variants: Vec::new(),
            declared: Vec::new(),
            packaged: None,
        };
        r.inputs.sort();
        r.inputs.dedup();
        r.probes.sort();
        r.probes.dedup();
        r
    }

    /// The toolkit release that made `target`'s image (`sm_86`, `compute_90`): from
    /// [`Record::made_by`], else (older records) [`Record::toolkit`].
    pub fn toolkit_of(&self, target: &str) -> &str {
        self.made_by
            .iter()
            .find(|(t, _)| t == target)
            .map_or(self.toolkit.as_str(), |(_, r)| r.as_str())
    }

    /// Reads the record at `path`: [`Error::RecordMissing`] when there is none,
    /// [`Error::RecordUnreadable`], [`Error::RecordInvalid`] or [`Error::RecordFormat`] when it
    /// cannot be taken.
    pub fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read(path).map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                Error::RecordMissing {
                    path: path.to_owned(),
                }
            } else {
                Error::RecordUnreadable {
                    path: path.to_owned(),
                    source,
                }
            }
        })?;
        let r: Record = serde_json::from_slice(&text).map_err(|e| Error::RecordInvalid {
            path: path.to_owned(),
            detail: e.to_string(),
        })?;
        if r.format != FORMAT {
            return Err(Error::RecordFormat {
                path: path.to_owned(),
                found: r.format,
                accepted: FORMAT,
            });
        }
        Ok(r)
    }

    /// Whether `bytes`, read from `fatbin`, are the very file this record (read from beside
    /// `fatbin`) was written for, by their hash; [`Error::RecordMismatch`] if not.
    pub fn describes(&self, fatbin: &Path, bytes: &[u8]) -> Result<()> {
        if Key::of(bytes).hex() == self.fatbin_blake3 {
            return Ok(());
        }
        Err(Error::RecordMismatch {
            fatbin: fatbin.to_owned(),
            record: record_path(fatbin),
        })
    }

    /// The record as a package ships it: only the paths inside the package (`b:`), which are
    /// all a dependent's build checks; the author's toolkit, system and home directories would
    /// only tell a dependent where the author's files lie.
    pub fn for_package(&self) -> Record {
        let inside = |(p, _): &(String, String)| p.starts_with("b:");
        Record {
            inputs: self.inputs.iter().filter(|e| inside(e)).cloned().collect(),
            probes: self.probes.iter().filter(|e| inside(e)).cloned().collect(),
            ..self.clone()
        }
    }

    pub(crate) fn write(&self, path: &Path) -> std::io::Result<()> {
        let json = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        crate::base::paths::write_if_changed(path, &json).map(|_| ())
    }
}

/// Merges the records of CI shards of one module: same settings and inputs (else the shards
/// built different sources and the merge would be a lie); targets united; the merged fat
/// binary's hash; the module named `module` (the merged file's stem: shards of `cargo archbuild
/// compile` are named after their own outputs).
pub fn merge_records(records: &[Record], merged_fatbin: &[u8], module: &str) -> Result<Record> {
    let first = records.first().ok_or(Error::RecordsNone)?;
    let mut targets = Vec::new();
    let mut made_by: BTreeMap<String, String> = BTreeMap::new();
    let mut probes: BTreeMap<String, String> = BTreeMap::new();
    let mut inputs: BTreeMap<String, String> = BTreeMap::new();
    for r in records {
        if r.settings != first.settings {
            return Err(Error::RecordSettingsDiffer {
                first: first.module.clone(),
                other: r.module.clone(),
            });
        }
        for (p, h) in r.inputs.iter().chain(&r.probes) {
            let map = if r.inputs.iter().any(|(q, _)| q == p) {
                &mut inputs
            } else {
                &mut probes
            };
            if let Some(old) = map.insert(p.clone(), h.clone()) {
                if old != *h {
                    return Err(Error::RecordInputsDiffer {
                        input: display(p).to_owned(),
                    });
                }
            }
        }
        targets.extend(r.targets.iter().cloned());
        // Each shard says which toolkit made its own images.
        for t in &r.targets {
            made_by
                .entry(t.clone())
                .or_insert_with(|| r.toolkit_of(t).to_owned());
        }
    }
    targets.sort();
    targets.dedup();
    Ok(Record {
        format: FORMAT,
        module: module.to_owned(),
        targets,
        settings: first.settings.clone(),
        toolkit: first.toolkit.clone(),
        made_by: made_by.into_iter().collect(),
        inputs: inputs.into_iter().collect(),
        probes: probes.into_iter().collect(),
        fatbin_blake3: Key::of(merged_fatbin).hex(),
        variants: first.variants.clone(),
        // Shards compile the same sources; each checked its own images.
        declared: first.declared.clone(),
        // Shards of one build key their settings alike; one that differs keeps the merged
        // file out of a package rather than vouching for it.
        packaged: first
            .packaged
            .clone()
            .filter(|p| records.iter().all(|r| r.packaged.as_ref() == Some(p))),
    })
}

/// A portable path (`b:kernels/k.cu`) as people read it (`kernels/k.cu`).
pub(crate) fn display(portable: &str) -> &str {
    portable.split_once(':').map_or(portable, |(_, p)| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(module: &str, settings: &str, inputs: &[(&str, &str)], fatbin: &[u8]) -> Record {
        let inputs = Inputs {
            deps: inputs
                .iter()
                .map(|(p, h)| ((*p).to_owned(), (*h).to_owned()))
                .collect(),
            probes: Vec::new(),
            arch_list: None,
            location: None,
            observed: false,
        };
        Record::new(
            module,
            &[format!("sm_{}", fatbin.len())],
            &[],
            settings.to_owned(),
            "13.5",
            inputs,
            Key::of(fatbin).hex(),
        )
    }

    /// Each way a record cannot be read is its own error, naming the file and the fix; a
    /// record written is read back as it was.
    #[test]
    fn a_record_that_cannot_be_taken_says_why_by_its_variant() {
        let dir = tempfile::tempdir().unwrap();
        let fatbin = dir.path().join("k.fatbin");
        let path = record_path(&fatbin);
        let shown = |e: Error| {
            e.to_string()
                .replace(&dir.path().display().to_string(), "[DIR]")
        };

        let missing = Record::read(&path).unwrap_err();
        assert!(matches!(&missing, Error::RecordMissing { path: p } if *p == path));
        std::fs::write(&path, b"{\"format\": 1, \"module\": 7}").unwrap();
        let invalid = Record::read(&path).unwrap_err();
        assert!(matches!(&invalid, Error::RecordInvalid { path: p, .. } if *p == path));
        let mut future = record("k", "s", &[], b"fatbin");
        future.format = 2;
        std::fs::write(&path, serde_json::to_vec(&future).unwrap()).unwrap();
        let format = Record::read(&path).unwrap_err();
        assert!(matches!(
            format,
            Error::RecordFormat {
                found: 2,
                accepted: FORMAT,
                ..
            }
        ));
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        let unreadable = Record::read(&path).unwrap_err();
        assert!(
            matches!(&unreadable, Error::RecordUnreadable { .. }),
            "{unreadable:?}"
        );
        std::fs::remove_dir(&path).unwrap();

        let good = record("k", "s", &[("b:k.cu", "aa")], b"fatbin");
        good.write(&path).unwrap();
        assert_eq!(Record::read(&path).unwrap(), good);
        good.describes(&fatbin, b"fatbin").unwrap();
        let mismatch = good.describes(&fatbin, b"another fatbin").unwrap_err();
        assert!(
            matches!(&mismatch, Error::RecordMismatch { fatbin: f, record: r }
                if *f == fatbin && *r == path),
            "{mismatch:?}"
        );
        for e in [&missing, &invalid, &format, &unreadable, &mismatch] {
            assert_eq!(e.kind(), crate::ErrorKind::Input, "{e:?}");
        }
        insta::assert_snapshot!(
            "record_read_errors",
            [missing, invalid, format, mismatch]
                .into_iter()
                .map(shown)
                .collect::<Vec<_>>()
                .join("\n")
        );
    }

    /// Shards merge into one record of their united targets; shards built differently or from
    /// different sources do not, and the error names the input as people write it.
    #[test]
    fn records_of_shards_merge_only_when_built_alike() {
        let a = record("a", "s", &[("b:kernels/k.cu", "11")], b"a");
        let b = record("b", "s", &[("b:kernels/k.cu", "11")], b"bb");
        let merged = merge_records(&[a.clone(), b.clone()], b"ab", "m").unwrap();
        assert_eq!(merged.targets, ["sm_1", "sm_2"]);
        assert_eq!(
            (merged.module.as_str(), merged.settings.as_str()),
            ("m", "s")
        );
        merged.describes(Path::new("m.fatbin"), b"ab").unwrap();

        let flags = record("c", "other", &[("b:kernels/k.cu", "11")], b"c");
        let differ = merge_records(&[a.clone(), flags], b"ac", "m").unwrap_err();
        assert!(
            matches!(&differ, Error::RecordSettingsDiffer { first, other }
                if first == "a" && other == "c"),
            "{differ:?}"
        );
        let edited = record("d", "s", &[("b:kernels/k.cu", "22")], b"d");
        let sources = merge_records(&[a, edited], b"ad", "m").unwrap_err();
        assert!(
            matches!(&sources, Error::RecordInputsDiffer { input } if input == "kernels/k.cu"),
            "{sources:?}"
        );
        let none = merge_records(&[], b"", "m").unwrap_err();
        assert!(matches!(none, Error::RecordsNone), "{none:?}");
        insta::assert_snapshot!(
            "record_merge_errors",
            [differ, sources, none]
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}
