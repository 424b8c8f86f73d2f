//! `cargo archbuild matrix --shards N`: split an arch list into N CI jobs and print the GitHub
//! Actions matrix (`{"include":[{"shard":1,"archs":"7.5 8.0",…},…]}`) on one line, ready for
//! `echo "matrix=$(cargo archbuild matrix --shards 3)" >> "$GITHUB_OUTPUT"`.
//!
//! The list is the one a build would use, by the same precedence (`--archs`, `ARCHBUILD_ARCHS`,
//! the package's `[package.metadata.archbuild] archs`, `TORCH_CUDA_ARCH_LIST`, `CUDAARCHS`,
//! `all-major`), so the shards cover exactly what the build scripts compile.
//!
//! The split is the arch crate's rule ([`ArchList::shards`]: an arch's cubin and PTX together,
//! contiguous runs balanced by target count); each shard's `archs` string is the canonical form
//! of its part of the list, which `compile --archs` parses back to exactly those targets.

use archbuild_arch::ArchList;
use serde::Serialize;

use crate::cli::MatrixArgs;
use crate::error::CliError;
use crate::facts::Facts;
use crate::shell::Shell;
use crate::workspace;

/// The matrix object GitHub Actions expects under `strategy.matrix`.
#[derive(Debug, Serialize, PartialEq)]
pub(crate) struct Matrix {
    pub include: Vec<Shard>,
}

#[derive(Debug, Serialize, PartialEq)]
pub(crate) struct Shard {
    /// 1-based shard number.
    pub shard: usize,
    /// How many shards there are.
    pub of: usize,
    /// The shard's arch list, to pass to `cargo archbuild compile --archs` or ARCHBUILD_ARCHS.
    pub archs: String,
    /// The whole list it is a shard of, to pass as `--shard-of` or ARCHBUILD_SHARD_OF (its
    /// `__CUDA_ARCH_LIST__` is every shard's).
    pub whole: String,
    /// The nvcc targets it builds, space-separated.
    pub targets: String,
    /// A short name for the job and its artifact: `sm_75-compute_80`.
    pub name: String,
}

pub(crate) fn run(args: &MatrixArgs, shell: &mut Shell) -> Result<(), CliError> {
    if args.shards == 0 {
        return Err(CliError::usage(
            "`--shards 0` makes no CI jobs",
            "pass --shards 1 or more (one per CI job you want)",
        ));
    }
    let mut facts = Facts::new();
    let (list, origin) = facts.configured_list(
        args.archs.as_deref(),
        || {
            workspace::manifest_archs(
                args.package.as_deref(),
                args.manifest_path.as_deref(),
                "matrix",
            )
        },
        shell,
    )?;
    let matrix = split(&list, args.shards);
    if matrix.include.len() < args.shards {
        shell.warn(format!(
            "asked for {} shards but `{list}` has only {} arch(s); printing {} shard(s)",
            args.shards,
            matrix.include.len(),
            matrix.include.len()
        ));
    }
    shell.status(
        "Sharding",
        format!(
            "`{list}` (from {origin}) into {} CI job(s)",
            matrix.include.len()
        ),
    );
    for s in &matrix.include {
        shell.status("Shard", format!("{}/{}: {}", s.shard, s.of, s.targets));
    }
    // The matrix itself is the product in both message formats: one line, for $GITHUB_OUTPUT.
    let line = serde_json::to_string(&matrix)
        .map_err(|e| CliError::bug(format!("cannot serialise the matrix: {e}"), e))?;
    use std::io::Write;
    writeln!(anstream::stdout(), "{line}").map_err(CliError::stdout)
}

/// The matrix of `list` split into at most `shards` jobs ([`ArchList::shards`] decides the
/// split; this names and numbers the jobs).
pub(crate) fn split(list: &ArchList, shards: usize) -> Matrix {
    let parts = list.shards(shards);
    let of = parts.len();
    let include = parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            let names = part.target_names();
            let name = match (names.first(), names.last()) {
                (Some(a), Some(b)) if a != b => format!("{a}-{b}"),
                (Some(a), _) => a.clone(),
                _ => "empty".into(),
            };
            Shard {
                shard: i + 1,
                of,
                archs: part.to_string(),
                whole: list.to_string(),
                targets: names.join(" "),
                name,
            }
        })
        .collect();
    Matrix { include }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(s: &str) -> ArchList {
        s.parse().unwrap()
    }

    #[test]
    fn shards_keep_an_arch_together_and_round_trip() {
        let l = list("7.5 8.0 8.6 8.9 9.0+PTX");
        let m = split(&l, 3);
        assert_eq!(m.include.len(), 3);
        let archs: Vec<&str> = m.include.iter().map(|s| s.archs.as_str()).collect();
        assert_eq!(archs, ["7.5 8.0", "8.6 8.9", "9.0+PTX"]);
        // The shards' lists parse back and their union is the whole list, each target once.
        let mut all = Vec::new();
        for s in &m.include {
            all.extend(list(&s.archs).targets().to_vec());
        }
        assert_eq!(ArchList::from_targets(all.clone()), l);
        assert_eq!(all.len(), l.len());
    }

    #[test]
    fn more_shards_than_archs_gives_one_per_arch() {
        let m = split(&list("8.6 8.9+PTX"), 5);
        assert_eq!(m.include.len(), 2);
        assert_eq!(m.include[1].targets, "sm_89 compute_89");
        assert_eq!(m.include[1].name, "sm_89-compute_89");
        assert!(m.include.iter().all(|s| s.of == 2));
    }
}
