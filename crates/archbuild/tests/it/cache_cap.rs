//! The build cache's size cap (`ARCHBUILD_CACHE_MAX_BYTES`) against the fake nvcc: a build over
//! the cap evicts the least recently used entries of earlier builds and keeps its own, and a
//! bad cap is refused before anything compiles.

use std::path::Path;
use std::time::{Duration, SystemTime};

use archbuild_store::{CacheDir, Usage};

use crate::support::fake::Fake;

/// What the build cache of `home` holds, as `cargo archbuild cache stats` sees it.
fn usage(home: &archbuild::config::Home) -> Usage {
    CacheDir::new("build", home.cache_dir(), u64::MAX).usage()
}

/// Every file under `dir`, as if last used an hour ago.
fn age_everything(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() {
            age_everything(&e.path());
        } else {
            let file = std::fs::File::open(e.path()).unwrap();
            file.set_modified(SystemTime::now() - Duration::from_secs(3600))
                .unwrap();
        }
    }
}

#[test]
fn a_build_over_the_cap_evicts_older_entries_and_keeps_its_own() {
    let f = Fake::new();
    f.kernel("kernels/old.cu", "old", &[]);
    f.kernel("kernels/new.cu", "new", &[]);
    let build = |file: &str, cap: &str| {
        f.build(&[("ARCHBUILD_CACHE_MAX_BYTES", cap)])
            .file(file)
            .archs("7.5 8.6+PTX")
            .try_compile(file.trim_start_matches("kernels/").trim_end_matches(".cu"))
            .unwrap()
    };

    // Under the default cap nothing is evicted, and the report stays quiet about it.
    let old = build("kernels/old.cu", "");
    assert_eq!((old.jobs_run, old.cache_eviction), (4, None));
    assert!(!old.to_string().contains("evict"), "{old}");
    // `Home::at(dir)`'s cache is `<dir>/cache`, the one `Fake::build` uses.
    let home = archbuild::config::Home::at(f.dir.path());
    let entries = usage(&home).entries;
    assert!(entries >= 4, "{entries}");
    age_everything(home.cache_dir());

    // A 1-byte cap: the new build's entries are all it keeps.
    let new = build("kernels/new.cu", "1");
    assert_eq!(new.jobs_run, 4);
    let evicted = new
        .cache_eviction
        .expect("the old build's entries are evicted");
    assert!(evicted.entries >= 4, "{evicted:?}");
    assert_eq!(evicted.cap, 1);
    assert!(
        evicted.remaining > 1,
        "the new build's own entries stay: {evicted:?}"
    );
    assert_eq!(usage(&home).bytes, evicted.remaining);
    assert!(
        new.to_string().contains("least recently used entries"),
        "{new}"
    );

    // The new build's results survived: rebuilding it runs nothing (and, storing nothing,
    // evicts nothing); the old one's are gone: rebuilding it compiles everything again.
    let again = build("kernels/new.cu", "1");
    assert_eq!((again.jobs_run, again.cache_eviction), (0, None));
    let old_again = build("kernels/old.cu", "1");
    assert_eq!(old_again.jobs_run, 4);
}

#[test]
fn a_bad_cap_is_refused_before_compiling() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    let err = f
        .build(&[("ARCHBUILD_CACHE_MAX_BYTES", "2 gigs")])
        .file("kernels/add.cu")
        .archs("8.6")
        .try_compile("k")
        .unwrap_err()
        .to_string();
    insta::assert_snapshot!("bad_cache_cap", err);
    assert!(f.compiles().is_empty());

    // With the cache off, the cap is not read at all.
    let report = f
        .build(&[
            ("ARCHBUILD_CACHE_MAX_BYTES", "2 gigs"),
            ("ARCHBUILD_CACHE", "off"),
        ])
        .file("kernels/add.cu")
        .archs("8.6")
        .try_compile("k")
        .unwrap();
    assert!(!report
        .env_vars
        .contains(&"ARCHBUILD_CACHE_MAX_BYTES".to_owned()));
}

#[test]
fn a_cache_switch_archbuild_does_not_know_is_refused() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    let build = |value: &str| {
        f.build(&[("ARCHBUILD_CACHE", value)])
            .file("kernels/add.cu")
            .archs("7.5")
            .try_compile("add")
    };
    let err = build("maybe").unwrap_err().to_string();
    assert!(
        err.contains("ARCHBUILD_CACHE") && err.contains("`maybe`") && err.contains("`off`"),
        "{err}"
    );
    // Every spelling of "off" means off, as for the JIT cache.
    for off in ["off", "0", "false", "no", "none"] {
        let r = build(off).unwrap();
        assert_eq!(r.cache_hits, 0, "{off}");
    }
    build("on").unwrap();
    assert_eq!(
        build("1").unwrap().cache_hits,
        build("yes").unwrap().jobs_planned
    );
}
