//! Offline means offline (`CARGO_NET_OFFLINE`, Cargo's `net.offline`): a build then contacts
//! no remote cache, and a value Cargo would not take as a boolean is an error naming it rather
//! than a guess that reaches the network.

use std::path::Path;

use archbuild::{BuildReport, Result};
use archbuild_tests::fixture_kernels;

fn build(dir: &Path, offline: &str) -> Result<BuildReport> {
    let mut b = archbuild_tests::build();
    b.env(archbuild_tests::env_with([("CARGO_NET_OFFLINE", offline)]))
        .manifest_dir(dir)
        .cache_dir(dir.join("cache"))
        .out_dir(dir.join("out"))
        // Nothing listens there: a build that tries it reports the failures in `remote`.
        .remote_cache("redis://127.0.0.1:9")
        .files(["kernels/add.cu"])
        .archs("8.6")
        .quiet(true);
    b.try_compile("kernels")
}

#[test]
fn an_offline_build_contacts_no_remote_cache() {
    let dir = tempfile::tempdir().unwrap();
    fixture_kernels(&dir.path().join("kernels"));
    let online = build(dir.path(), "false").unwrap();
    assert!(
        online.remote.is_some(),
        "the online build used no remote tier"
    );
    let offline = build(dir.path(), "true").unwrap();
    assert!(
        offline.remote.is_none(),
        "an offline build contacted the remote cache: {:?}",
        offline.remote
    );
}

#[test]
fn an_offline_value_that_is_no_boolean_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    fixture_kernels(&dir.path().join("kernels"));
    let e = build(dir.path(), "maybe").unwrap_err().to_string();
    assert!(
        e.contains("CARGO_NET_OFFLINE") && e.contains("maybe") && e.contains("`true`"),
        "{e}"
    );
}
