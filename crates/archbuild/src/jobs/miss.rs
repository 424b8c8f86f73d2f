//! Why the cache did not serve a job that ran: the line `-v` and the job records show, so a
//! rebuild that compiles says which input it saw change (as cargo's "Dirty" lines do) and a
//! cache that cannot store says so instead of missing silently on the next build.

use std::fmt;

/// Why a cached build ran a compiler for a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Miss {
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
}
