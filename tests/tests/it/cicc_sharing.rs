//! One cicc run for a class of archs (`crates/archbuild/src/plan/share.rs`), with the real toolkit:
//! where the preprocessed source of compute_89 is compute_80's, its PTX is compute_80's with
//! `.target` rewritten, and the fat binary is byte for byte the one separate compiles give —
//! cold, and when the lead comes from the cache; where the text differs, the follower compiles
//! on its own; compute_86, which cicc tunes apart, never shares with compute_80.

use std::collections::BTreeMap;
use std::path::Path;

use archbuild::{BuildReport, JobPhase};
use archbuild_tests::{fatbins, fixtures_dir, repo_root};

const ARCHS: &str = "8.0 8.6 8.9+PTX";

fn build(dir: &Path, cache: &str, archs: &str, share: bool) -> BuildReport {
    archbuild_tests::build()
        .manifest_dir(dir)
        .cache_dir(dir.join(cache))
        .out_dir(dir.join(format!("out-{cache}")))
        .files(["matmul_variants.cu", "by_arch.cu"])
        .archs(archs)
        .share_cicc(share)
        .quiet(true)
        .try_compile("kernels")
        .unwrap_or_else(|e| panic!("{e}"))
}

/// `module compute_XY` → the lead it shared, for every cicc job.
fn shared(r: &BuildReport) -> BTreeMap<String, Option<String>> {
    r.jobs
        .iter()
        .filter(|j| j.phase == JobPhase::Cicc)
        .map(|j| {
            (
                format!("{} {}", j.module, j.target),
                j.served
                    .shared_from()
                    .map(|a| format!("compute_{}", a.sm_name())),
            )
        })
        .collect()
}

#[test]
fn a_class_shares_one_cicc_run_only_where_the_preprocessed_source_is_identical() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        repo_root().join("benches/inputs/matmul_variants.cu"),
        dir.path().join("matmul_variants.cu"),
    )
    .unwrap();
    std::fs::copy(
        fixtures_dir().join("cicc_sharing/by_arch.cu"),
        dir.path().join("by_arch.cu"),
    )
    .unwrap();

    let separate = build(dir.path(), "separate", ARCHS, false);
    assert!(shared(&separate).values().all(Option::is_none));
    let want = fatbins(&separate);

    let cold = build(dir.path(), "shared", ARCHS, true);
    let lead = Some("compute_80".to_string());
    let expect: BTreeMap<String, Option<String>> = [
        ("matmul_variants compute_80", None),
        ("matmul_variants compute_86", None),
        ("matmul_variants compute_89", lead.clone()),
        ("by_arch compute_80", None),
        ("by_arch compute_86", None),
        ("by_arch compute_89", None),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(shared(&cold), expect);
    assert_eq!(
        fatbins(&cold),
        want,
        "shared and separate fat binaries differ"
    );
    for j in cold
        .jobs
        .iter()
        .filter(|j| j.served.shared_from().is_some())
    {
        let command = j.command.as_deref().unwrap_or_default();
        assert!(command.starts_with("(no cicc run"), "{command}");
    }

    // The lead from the cache (built alone before), the followers new: the lead's text is
    // preprocessed once more to decide.
    build(dir.path(), "added", "8.0", true);
    let added = build(dir.path(), "added", ARCHS, true);
    assert_eq!(shared(&added), expect);
    assert_eq!(fatbins(&added), want, "shared from a cached lead differs");

    // Shared results are keyed apart from separate ones: turning sharing off compiles again.
    let off = build(dir.path(), "shared", ARCHS, false);
    let mut ran: Vec<String> = off
        .jobs
        .iter()
        .filter(|j| j.phase == JobPhase::Cicc && !j.served.cached())
        .map(|j| format!("{} {}", j.module, j.target))
        .collect();
    ran.sort();
    let followers = ["by_arch compute_89", "matmul_variants compute_89"];
    assert_eq!(ran, followers, "{:?}", off.jobs);
    assert_eq!(fatbins(&off), want);
}
