//! Splitting an arch list into shards, one per CI job, so a large list builds in parallel on
//! several machines and the pieces merge back into one fat binary.
//!
//! The rule: the cubin and the PTX of one arch stay in one shard (the build compiles the PTX
//! once and feeds it to ptxas, so splitting them would compile it twice); shards are contiguous
//! runs of archs in the list's order, balanced by their number of targets (the largest shard as
//! small as possible); ties keep earlier shards no lighter than later ones, so the split is the
//! same on every run. Each shard is itself an [`ArchList`], whose canonical text parses back to
//! exactly its targets.

use std::ops::Range;

use crate::cc::{Arch, Target};
use crate::list::ArchList;

impl ArchList {
    /// The list split into at most `shards` non-empty lists by the rule above: fewer when the
    /// list has fewer archs, one (the whole list) when `shards` is 0 or 1, none for an empty
    /// list. The shards' targets, together, are the list's, each once.
    ///
    /// ```
    /// use archbuild_arch::ArchList;
    /// let list: ArchList = "7.5 8.0 8.6 8.9 9.0+PTX".parse().unwrap();
    /// let shards: Vec<String> = list.shards(3).iter().map(|s| s.to_string()).collect();
    /// assert_eq!(shards, ["7.5 8.0", "8.6 8.9", "9.0+PTX"]);
    /// ```
    pub fn shards(&self, shards: usize) -> Vec<ArchList> {
        let groups = arch_groups(self.targets());
        let weights: Vec<usize> = groups.iter().map(Vec::len).collect();
        balanced_partition(&weights, shards.min(groups.len()).max(1))
            .into_iter()
            .map(|range| ArchList::from_targets(groups[range].iter().flatten().copied()))
            .collect()
    }
}

/// Targets grouped by arch, in list order (cubin and PTX of one arch together).
fn arch_groups(targets: &[Target]) -> Vec<Vec<Target>> {
    let mut groups: Vec<(Arch, Vec<Target>)> = Vec::new();
    for &t in targets {
        match groups.last_mut() {
            Some((arch, g)) if *arch == t.arch => g.push(t),
            _ => groups.push((t.arch, vec![t])),
        }
    }
    groups.into_iter().map(|(_, g)| g).collect()
}

/// Splits `weights` into exactly `k` non-empty contiguous ranges minimising the largest sum
/// (k ≤ weights.len()); ties keep earlier shards no lighter than later ones, so the split is
/// deterministic.
fn balanced_partition(weights: &[usize], k: usize) -> Vec<Range<usize>> {
    let n = weights.len();
    if n == 0 {
        return Vec::new();
    }
    let prefix: Vec<usize> = std::iter::once(0)
        .chain(weights.iter().scan(0, |s, w| {
            *s += w;
            Some(*s)
        }))
        .collect();
    let sum = |a: usize, b: usize| prefix[b] - prefix[a];
    // best[j][i]: minimal largest part when the first i weights form j parts; cut[j][i]: where
    // the last part starts.
    let mut best = vec![vec![usize::MAX; n + 1]; k + 1];
    let mut cut = vec![vec![0usize; n + 1]; k + 1];
    best[0][0] = 0;
    for j in 1..=k {
        for i in j..=n {
            for start in (j - 1)..i {
                if best[j - 1][start] == usize::MAX {
                    continue;
                }
                let cost = best[j - 1][start].max(sum(start, i));
                if cost < best[j][i] {
                    best[j][i] = cost;
                    cut[j][i] = start;
                }
            }
        }
    }
    let mut ranges = Vec::with_capacity(k);
    let mut end = n;
    for j in (1..=k).rev() {
        let start = cut[j][end];
        ranges.push(start..end);
        end = start;
    }
    ranges.reverse();
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(s: &str) -> ArchList {
        s.parse().unwrap()
    }

    fn texts(l: &ArchList, n: usize) -> Vec<String> {
        l.shards(n).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn shards_keep_an_arch_together_and_round_trip() {
        let l = list("7.5 8.0 8.6 8.9 9.0+PTX");
        assert_eq!(texts(&l, 3), ["7.5 8.0", "8.6 8.9", "9.0+PTX"]);
        // The shards' lists parse back and their union is the whole list, each target once.
        let mut all = Vec::new();
        for s in l.shards(3) {
            all.extend(list(&s.to_string()).targets().to_vec());
        }
        assert_eq!(ArchList::from_targets(all.clone()), l);
        assert_eq!(all.len(), l.len());
    }

    #[test]
    fn more_shards_than_archs_gives_one_per_arch_and_zero_gives_one() {
        let l = list("8.6 8.9+PTX");
        assert_eq!(texts(&l, 5), ["8.6", "8.9+PTX"]);
        assert_eq!(texts(&l, 0), ["8.6 8.9+PTX"]);
        assert_eq!(texts(&l, 1), ["8.6 8.9+PTX"]);
        assert!(ArchList::default().shards(3).is_empty());
    }

    #[test]
    fn a_ptx_only_arch_is_its_own_group() {
        // compute_80 alone and sm_86 are different archs: two groups, two shards.
        assert_eq!(texts(&list("compute_80 8.6"), 2), ["compute_80", "8.6"]);
    }

    #[test]
    fn partition_minimises_the_largest_shard() {
        assert_eq!(balanced_partition(&[1, 1, 1, 1, 2], 2), vec![0..3, 3..5]);
        assert_eq!(balanced_partition(&[1, 1, 1], 1), vec![0..3]);
        assert_eq!(balanced_partition(&[3, 1, 1, 1], 2), vec![0..1, 1..4]);
        assert_eq!(balanced_partition(&[], 2), Vec::<Range<usize>>::new());
    }
}
