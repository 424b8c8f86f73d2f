//! Internal-linkage symbol names are reproducible (`plan::random_seed`). In a source whose first
//! external definition is a template (CUTLASS, CCCL, flash-attention kernels), cicc names
//! internal symbols after the process and the time unless nvcc has a `-frandom-seed`: every
//! cold build, and every arch of one build, then named them differently. archbuild gives each
//! source a seed from its path, unless a flag gives one.

use std::collections::BTreeSet;
use std::path::Path;

use archbuild::BuildReport;

/// Template kernels only, reading an anonymous-namespace variable.
const SOURCE: &str = r#"
namespace { __device__ int counter; }
template <int N> __global__ void tk(int *x) { x[threadIdx.x] = counter + N; }
template __global__ void tk<3>(int *);
template __global__ void tk<5>(int *);
"#;

/// A build of `t.cu` into `out`, with `flag`, through the cache in `dir/cache` or with none.
fn build(dir: &Path, out: &str, flag: Option<&str>, cache: bool) -> BuildReport {
    let mut b = archbuild_tests::build();
    if let Some(f) = flag {
        b.flag(f);
    }
    b.manifest_dir(dir)
        .cache_dir(dir.join("cache"))
        .cache(cache)
        .out_dir(dir.join(out))
        .file("t.cu")
        .archs("8.0 8.6 compute_86")
        .compression("none")
        .quiet(true)
        .try_compile("t")
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The internal namespace names (`_INTERNAL_<module ID>`) of a fat binary stored
/// uncompressed, read by the length the mangling gives them (`_ZN34_INTERNAL_…`).
fn internal_names(bytes: &[u8]) -> BTreeSet<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut names = BTreeSet::new();
    for (i, _) in text.match_indices("_INTERNAL_") {
        let digits = text[..i]
            .bytes()
            .rev()
            .take_while(u8::is_ascii_digit)
            .count();
        let Ok(len) = text[i - digits..i].parse::<usize>() else {
            continue;
        };
        if let Some(name) = text.get(i..i + len) {
            names.insert(name.to_owned());
        }
    }
    names
}

#[test]
fn internal_symbols_are_named_alike_in_every_arch_and_every_build() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("t.cu"), SOURCE).unwrap();
    let first = build(d, "first", None, false);
    let second = build(d, "second", None, false);
    let bytes = |r: &BuildReport| std::fs::read(&r.modules[0].fatbin).unwrap();
    let (a, b) = (bytes(&first), bytes(&second));
    let ids = internal_names(&a);
    // sm_80, sm_86 and compute_86 all name the variable by one module ID.
    assert_eq!(ids.len(), 1, "{ids:?}");
    assert!(
        a == b,
        "two cold builds differ: {ids:?} against {:?}",
        internal_names(&b)
    );

    // A seed of the user's own is the one nvcc gets.
    let own = build(d, "own", Some("-frandom-seed=7"), false);
    for j in &own.jobs {
        let command = j.command.as_deref().unwrap_or_default();
        if command.contains("-ptx") {
            assert_eq!(command.matches("-frandom-seed").count(), 1, "{command}");
            assert!(command.contains("-frandom-seed=7"), "{command}");
        }
    }
    let own = bytes(&own);
    assert_eq!(internal_names(&own).len(), 1);
    assert!(own != a, "the user's seed names the symbols otherwise");

    // The seed is keyed: after a cached build with archbuild's seed, one with the user's
    // compiles again and equals its cache-off build, and archbuild's is served again after.
    let cached = build(d, "cached", None, true);
    assert!(bytes(&cached) == a);
    let theirs = build(d, "cached", Some("-frandom-seed=7"), true);
    assert!(
        theirs.jobs_run > 0,
        "served archbuild's seed for the user's: {theirs}"
    );
    assert!(bytes(&theirs) == own, "differs from the cache-off build");
    let again = build(d, "cached", None, true);
    assert_eq!(again.jobs_run, 0, "{again}");
    assert!(bytes(&again) == a);
}
