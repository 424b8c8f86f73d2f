//! sccache-dist as the build sees it through its launcher: whether a cluster takes jobs and
//! how many CPUs it has (`sccache --dist-status`), and how many jobs sccache ran here instead
//! (`dist_errors` in `sccache --show-stats`). sccache falls back to a local compile without a
//! word when a build server dies or the scheduler is down; the build says so once.

use std::ffi::OsString;
use std::path::Path;

use crate::base::process::Cmd;
use crate::report::warning::Warning;

/// What `sccache --dist-status` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cluster {
    /// No `[dist]` configuration: sccache compiles here.
    Off,
    /// A scheduler with build servers.
    Up { servers: u64, cpus: u64 },
    /// Configured but not reachable (the scheduler's address and what sccache said).
    Down(String),
}

/// Asks the launcher (with the compilers' environment, where its `SCCACHE_*` settings are).
pub(crate) fn status(launcher: &Path, env: &[(OsString, OsString)]) -> Cluster {
    let out = Cmd::new(launcher)
        .args(["--dist-status"])
        .hermetic(env)
        .output();
    match out {
        Ok(o) if o.status.success() => parse_status(&String::from_utf8_lossy(&o.stdout)),
        Ok(o) => Cluster::Down(String::from_utf8_lossy(&o.stderr).trim().to_owned()),
        Err(e) => Cluster::Down(e.to_string()),
    }
}

/// `"Disabled"`, `{"SchedulerStatus":[url,{"num_servers":2,"num_cpus":4,…}]}` or
/// `{"NotConnected":…}` (sccache 0.16's `--dist-status`).
fn parse_status(text: &str) -> Cluster {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(text.trim()) else {
        return Cluster::Down(format!("unreadable `--dist-status`: {}", text.trim()));
    };
    if v.as_str() == Some("Disabled") {
        return Cluster::Off;
    }
    if let Some(s) = v.get("SchedulerStatus") {
        let facts = s.get(1).unwrap_or(s);
        let n = |k: &str| {
            facts
                .get(k)
                .and_then(serde_json::Value::as_u64)
                .unwrap_or(0)
        };
        return Cluster::Up {
            servers: n("num_servers"),
            cpus: n("num_cpus"),
        };
    }
    let said = v.get("NotConnected").unwrap_or(&v);
    let words: Vec<String> = match said {
        serde_json::Value::Array(a) => a
            .iter()
            .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_owned))
            .collect(),
        serde_json::Value::String(s) => vec![s.clone()],
        other => vec![other.to_string()],
    };
    Cluster::Down(words.join(": "))
}

/// How many jobs sccache could not distribute so far (`stats.dist_errors`), when it says.
pub(crate) fn fallbacks(launcher: &Path, env: &[(OsString, OsString)]) -> Option<u64> {
    let o = Cmd::new(launcher)
        .args(["--show-stats", "--stats-format", "json"])
        .hermetic(env)
        .output()
        .ok()?;
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).ok()?;
    v["stats"]["dist_errors"].as_u64()
}

/// A build's view of sccache-dist's fallbacks: counted before the jobs run and after.
pub(crate) struct Watch(Option<u64>);

impl Watch {
    /// `launcher` is sccache's path, when it is the launcher.
    pub(crate) fn start(
        cluster: &Cluster,
        launcher: Option<&Path>,
        env: &[(OsString, OsString)],
    ) -> Self {
        Self(match (cluster, launcher) {
            (Cluster::Up { .. }, Some(l)) => fallbacks(l, env),
            _ => None,
        })
    }

    /// The build's one warning about the cluster, if any.
    pub(crate) fn finish(
        self,
        cluster: &Cluster,
        launcher: Option<&Path>,
        env: &[(OsString, OsString)],
    ) -> Option<Warning> {
        let message = match (cluster, self.0, launcher) {
            (Cluster::Down(why), ..) => format!(
                "sccache-dist cannot be reached ({why}): every job ran on this machine; start \
                 its scheduler or remove `[dist]` from sccache's configuration"
            ),
            (Cluster::Up { .. }, Some(before), Some(l)) => {
                let after = fallbacks(l, env)?;
                let n = after.checked_sub(before).filter(|&n| n > 0)?;
                format!(
                    "sccache-dist could not run {n} job(s) (a build server failed or left the \
                     cluster): sccache ran them on this machine, with the same results"
                )
            }
            _ => return None,
        };
        Some(Warning::Distribution { message })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_answer_of_dist_status() {
        assert_eq!(parse_status("\"Disabled\"\n"), Cluster::Off);
        assert_eq!(
            parse_status(
                r#"{"SchedulerStatus":["http://127.0.0.1:10600/",{"num_servers":2,"num_cpus":12,"in_progress":0}]}"#
            ),
            Cluster::Up {
                servers: 2,
                cpus: 12
            }
        );
        assert_eq!(
            parse_status(
                r#"{"NotConnected":["http://127.0.0.1:1/","could not communicate with scheduler"]}"#
            ),
            Cluster::Down("http://127.0.0.1:1/: could not communicate with scheduler".into())
        );
        assert!(matches!(parse_status("garbage"), Cluster::Down(_)));
    }
}
