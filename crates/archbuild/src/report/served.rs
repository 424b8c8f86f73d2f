//! How a job was served, as one state (`Served`), and why the cache did not serve a job that
//! ran (`Miss`): the line `-v` and the job records show, so a rebuild that compiles says which
//! input it saw change (as cargo's "Dirty" lines do) and a cache that cannot store says so
//! instead of missing silently on the next build.
//!
//! The JSON of a job keeps its flat fields (`cached`, `preprocessed`, `shared_from`, `note`,
//! `miss`): `Served` is written through them (`wire` below), so scripts reading reports see
//! the same keys.

use std::fmt;

use archbuild_arch::Arch;
use serde::Serialize;

/// How a job's output was served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Served {
    /// From the cache by its key (direct mode, or ptxas's alias or content key): no process.
    Hit,
    /// From the cache after one preprocessor run: the sources changed in ways that leave the
    /// preprocessed device code unchanged (comments), so no compiler ran.
    Preprocessed,
    /// A cicc job that ran no cicc: its class lead's PTX (`lead`), with `.target` rewritten,
    /// because the preprocessed sources are identical (one preprocessor run; "One cicc run for
    /// several archs" in `docs/build.md`).
    Shared { lead: Arch, note: Option<String> },
    /// The compiler ran. `miss`: why a build with a cache ran it (`None` with no cache);
    /// `note`: why its output was not cached, or how it ran (a launcher that failed).
    Compiled {
        miss: Option<Miss>,
        note: Option<String>,
    },
}

impl Served {
    /// A compile whose output is not stored and will be compiled again.
    pub(crate) fn compiled(note: Option<String>) -> Self {
        Served::Compiled { miss: None, note }
    }

    /// Served from the cache: no compiler process started.
    pub fn cached(&self) -> bool {
        matches!(self, Served::Hit | Served::Preprocessed)
    }

    /// Why the output was not cached, when the reason is the sources' (`__TIME__`) or the
    /// cache's (it could not store it).
    pub fn note(&self) -> Option<&str> {
        match self {
            Served::Shared { note, .. } | Served::Compiled { note, .. } => note.as_deref(),
            Served::Hit | Served::Preprocessed => None,
        }
    }

    /// Why a build with a cache ran this job's compiler.
    pub fn miss(&self) -> Option<&Miss> {
        match self {
            Served::Compiled { miss, .. } => miss.as_ref(),
            _ => None,
        }
    }

    /// The class lead whose PTX this is, retargeted.
    pub fn shared_from(&self) -> Option<Arch> {
        match self {
            Served::Shared { lead, .. } => Some(*lead),
            _ => None,
        }
    }
}

/// How a job's state reads in JSON: the flat fields reports have always had.
#[derive(Serialize)]
pub(crate) struct Wire {
    pub cached: bool,
    pub preprocessed: bool,
    pub shared_from: Option<String>,
    pub note: Option<String>,
    pub miss: Option<String>,
}

impl From<&Served> for Wire {
    fn from(s: &Served) -> Self {
        Wire {
            cached: s.cached(),
            preprocessed: *s == Served::Preprocessed,
            shared_from: s.shared_from().map(|a| format!("compute_{}", a.sm_name())),
            note: s.note().map(str::to_owned),
            miss: s.miss().map(ToString::to_string),
        }
    }
}

/// Why a cached build ran a compiler for a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    /// No build of this source with these settings for this arch is recorded, here or in the
    /// remote tier.
    New,
    /// A build is recorded, but these inputs (portable paths, `b:` the package, `t:` the
    /// toolkit, `a:` elsewhere) differ from its newest entry's, and preprocessor mode found no
    /// result for the new preprocessed text.
    Changed(Vec<String>),
    /// The last build recorded no inputs: one of them was newer than its start (edited while it
    /// compiled, or stamped ahead of this machine's clock); preprocessor mode found nothing.
    Unrecorded,
    /// The recorded result is gone from the cache (evicted, or removed by hand).
    Gone,
    /// The PTX is cached, but the stub or module ID its host side needs is not.
    NoHostSide,
    /// The sources use `__DATE__`, `__TIME__` or `__TIMESTAMP__`: never served (the job's note).
    Clock,
}

impl Miss {
    /// From the inputs direct mode found changed (`deps::Lookup::Changed`).
    pub(crate) fn from_lookup(changed: Vec<String>) -> Self {
        if changed.is_empty() {
            Miss::Unrecorded
        } else {
            Miss::Changed(changed)
        }
    }
}

/// How many changed inputs a line names before it counts the rest.
const NAMED: usize = 3;

impl fmt::Display for Miss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Miss::New => f.write_str("not built before with these settings"),
            Miss::Changed(inputs) => {
                let names: Vec<&str> = inputs
                    .iter()
                    .take(NAMED)
                    .map(|p| p.split_once(':').map_or(p.as_str(), |(_, rest)| rest))
                    .collect();
                write!(f, "changed since the last build: {}", names.join(", "))?;
                if inputs.len() > NAMED {
                    write!(f, " and {} more", inputs.len() - NAMED)?;
                }
                f.write_str("; the preprocessed source is new")
            }
            Miss::Unrecorded => f.write_str(
                "the last build recorded no inputs (one was newer than its start); the \
                 preprocessed source is new",
            ),
            Miss::Gone => f.write_str("the recorded result is no longer in the cache"),
            Miss::NoHostSide => f.write_str("the cached result lacks its host-side files"),
            Miss::Clock => f.write_str("its sources use the time of the build"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reason_reads_as_a_line_and_names_what_changed() {
        assert_eq!(
            Miss::from_lookup(vec!["b:src/common.h".into()]).to_string(),
            "changed since the last build: src/common.h; the preprocessed source is new"
        );
        let many: Vec<String> = (0..5).map(|i| format!("b:h{i}.h")).collect();
        assert_eq!(
            Miss::from_lookup(many).to_string(),
            "changed since the last build: h0.h, h1.h, h2.h and 2 more; the preprocessed \
             source is new"
        );
        assert_eq!(Miss::from_lookup(Vec::new()), Miss::Unrecorded);
        assert_eq!(
            Miss::New.to_string(),
            "not built before with these settings"
        );
    }

    /// Reports keep their JSON: the one state is written as the flat fields it replaced, in
    /// their old order.
    #[test]
    fn a_job_record_writes_its_state_as_the_fields_reports_have_always_had() {
        use crate::report::{HostObjectRecord, JobPhase, JobRecord};
        let job = |served| JobRecord {
            module: "add".into(),
            phase: JobPhase::Cicc,
            target: "compute_86".into(),
            served,
            seconds: 0.5,
            command: None,
            output: None,
        };
        let lead = Arch::plain(8, 0);
        let cases = [
            (
                Served::Hit,
                r#""cached":true,"preprocessed":false,"shared_from":null"#,
                r#""note":null,"miss":null"#,
            ),
            (
                Served::Preprocessed,
                r#""cached":true,"preprocessed":true,"shared_from":null"#,
                r#""note":null,"miss":null"#,
            ),
            (
                Served::Shared { lead, note: None },
                r#""cached":false,"preprocessed":false,"shared_from":"compute_80""#,
                r#""note":null,"miss":null"#,
            ),
            (
                Served::Compiled {
                    miss: Some(Miss::New),
                    note: Some("not cached".into()),
                },
                r#""cached":false,"preprocessed":false,"shared_from":null"#,
                r#""note":"not cached","miss":"not built before with these settings""#,
            ),
        ];
        for (served, state, why) in cases {
            let json = serde_json::to_string(&job(served)).unwrap();
            assert_eq!(
                json,
                format!(
                    r#"{{"module":"add","phase":"cicc","target":"compute_86",{state},"seconds":0.5,"command":null,"output":null,{why}}}"#
                )
            );
        }
        let object = HostObjectRecord {
            module: "add".into(),
            served: Served::Preprocessed,
            seconds: 0.0,
            command: None,
            output: None,
        };
        assert_eq!(
            serde_json::to_string(&object).unwrap(),
            r#"{"module":"add","cached":true,"preprocessed":true,"seconds":0.0,"command":null,"output":null}"#
        );
    }
}
