//! The remote cache tier against real servers started on 127.0.0.1 (Redis from Debian's
//! `redis-server`, WebDAV from `nginx-extras`): two "machines" — separate empty homes,
//! checkouts at different paths — where the second builds everything from the first's results
//! with no compiler process and byte-identical fat binaries; read-only mode; a server killed in
//! the middle of a build; corrupted and swapped remote entries.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use archbuild::{
    config::{Home, RemoteMode},
    Build, BuildReport,
};
use archbuild_tests::servers::{start_or_skip, Server};
use archbuild_tests::{copy_dir, fatbins, fixture_kernels, repo_root};

const ARCHS: &str = "7.5 8.6 8.9+PTX";

/// One machine: its own home (so its own local cache) and a checkout at its own path.
struct Machine {
    root: tempfile::TempDir,
    checkout: PathBuf,
}

impl Machine {
    /// `depth` puts the checkout at a different path on each machine.
    fn new(depth: &str) -> Self {
        let root = tempfile::tempdir().unwrap();
        let checkout = root.path().join(depth).join("repo");
        let repo = repo_root();
        fixture_kernels(&checkout.join("fixture/kernels"));
        copy_dir(
            &repo.join("examples/vector_add/kernels"),
            &checkout.join("vector_add/kernels"),
        );
        std::fs::copy(
            repo.join("examples/vector_add/Cargo.toml"),
            checkout.join("vector_add/Cargo.toml"),
        )
        .unwrap();
        Self { root, checkout }
    }

    fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    fn build(&self, pkg: &str, remote: &str, mode: RemoteMode) -> Build {
        let mut b = archbuild_tests::build();
        b.home(Home::at(self.home()))
            .manifest_dir(self.checkout.join(pkg))
            .out_dir(self.checkout.join(pkg).join("out"))
            .archs(ARCHS)
            .remote_cache(remote)
            .remote_cache_mode(mode)
            .quiet(true);
        if pkg == "fixture" {
            b.files(["kernels/add.cu", "kernels/scale.cu"]);
        }
        b
    }

    fn compile(&self, pkg: &str, remote: &str, mode: RemoteMode) -> BuildReport {
        self.build(pkg, remote, mode)
            .try_compile("kernels")
            .unwrap_or_else(|e| panic!("{e}"))
    }
}

fn two_machines_share_every_entry(url: &str) {
    let (a, b) = (Machine::new("a"), Machine::new("b/deeper/path"));
    for pkg in ["fixture", "vector_add"] {
        let ra = a.compile(pkg, url, RemoteMode::ReadWrite);
        assert!(ra.jobs_run > 0 && ra.processes_started > 0, "{ra}");
        let stats = ra.remote.clone().unwrap();
        assert!(stats.writes > 0 && !stats.disabled, "{stats:?}");

        let rb = b.compile(pkg, url, RemoteMode::ReadWrite);
        assert_eq!(
            rb.processes_started, 0,
            "machine B compiled something: {rb}"
        );
        assert_eq!(rb.jobs_run, 0, "{rb}");
        let sb = rb.remote.clone().unwrap();
        assert!(sb.hits > 0 && sb.rejected == 0 && !sb.disabled, "{sb:?}");
        assert!(fatbins(&ra) == fatbins(&rb), "{pkg}: fat binaries differ");
        // No path of either checkout or home reached an output.
        for (_, bytes) in fatbins(&rb) {
            let text = String::from_utf8_lossy(&bytes);
            for m in [&a, &b] {
                assert!(!text.contains(&*m.root.path().to_string_lossy()));
            }
        }
        // B's entries are now local: a rebuild makes no network round trip.
        let again = b.compile(pkg, url, RemoteMode::ReadWrite);
        let s = again.remote.unwrap();
        assert_eq!((s.hits, s.misses, s.writes), (0, 0, 0), "{s:?}");
    }
}

#[test]
fn redis_two_machines_share_every_entry() {
    let Some(redis) = start_or_skip(Server::redis) else {
        return;
    };
    two_machines_share_every_entry(&redis.url());
}

#[test]
fn webdav_two_machines_share_every_entry() {
    let Some(dav) = start_or_skip(Server::webdav) else {
        return;
    };
    two_machines_share_every_entry(&dav.url());
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            if e.path().is_dir() {
                out.extend(files_under(&e.path()));
            } else {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn read_only_mode_writes_nothing_remote() {
    let Some(dav) = start_or_skip(Server::webdav) else {
        return;
    };
    let m = Machine::new("ro");
    let r = m.compile("fixture", &dav.url(), RemoteMode::ReadOnly);
    assert!(r.jobs_run > 0);
    let s = r.remote.unwrap();
    assert_eq!((s.writes, s.disabled), (0, false), "{s:?}");
    assert!(s.misses > 0, "it did read: {s:?}");
    assert_eq!(files_under(dav.data_dir().unwrap()), Vec::<PathBuf>::new());
}

#[test]
fn a_server_killed_mid_build_costs_one_warning_and_no_failure() {
    let Some(redis) = start_or_skip(Server::redis) else {
        return;
    };
    let url = redis.url();
    let redis = Arc::new(Mutex::new(redis));
    let m = Machine::new("kill");
    let killer = Arc::clone(&redis);
    let r = m
        .build("fixture", &url, RemoteMode::ReadWrite)
        .jobs(1)
        .on_job(move |_| killer.lock().unwrap().kill())
        .try_compile("kernels")
        .unwrap_or_else(|e| panic!("the build failed with the remote down: {e}"));
    let s = r.remote.clone().unwrap();
    assert!(s.disabled, "{s:?}");
    assert_eq!(s.warnings.len(), 1, "{s:?}");
    assert!(s.warnings[0].contains(&url), "{}", s.warnings[0]);
    // The result is whole: the same bytes as a build without any remote.
    let plain_machine = Machine::new("plain");
    let plain = plain_machine.compile("fixture", "off", RemoteMode::ReadWrite);
    assert!(fatbins(&r) == fatbins(&plain), "fat binaries differ");
}

#[test]
fn corrupted_and_swapped_remote_entries_are_detected_and_never_packed() {
    let Some(dav) = start_or_skip(Server::webdav) else {
        return;
    };
    let a = Machine::new("a");
    let ra = a.compile("fixture", &dav.url(), RemoteMode::ReadWrite);
    let cubins = files_under(&dav.data_dir().unwrap().join("cubin"));
    assert!(cubins.len() >= 3, "{cubins:?}");
    // Flip a byte of one cubin entry; copy another over a third (a swap).
    let mut bytes = std::fs::read(&cubins[0]).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x20;
    std::fs::write(&cubins[0], bytes).unwrap();
    std::fs::copy(&cubins[1], &cubins[2]).unwrap();

    let b = Machine::new("b/elsewhere");
    let rb = b.compile("fixture", &dav.url(), RemoteMode::ReadOnly);
    let s = rb.remote.clone().unwrap();
    assert_eq!(s.rejected, 2, "{s:?}");
    let why = s.warnings.join("\n");
    assert!(
        why.contains("checksum mismatch") && why.contains("another key"),
        "{why}"
    );
    // Exactly the two damaged cubins were assembled again, and nothing damaged was packed.
    assert_eq!(rb.jobs_run, 2, "{rb}");
    assert!(fatbins(&ra) == fatbins(&rb), "fat binaries differ");
}
