//! What a crate that depends on ours compiles: the default graph of `archbuild` (a kernel
//! crate's build dependency) and of `archbuild-runtime` (its run-time one), normal and build
//! edges, read with `cargo tree -p`, which resolves the package's own features as a dependent's
//! build does (not the workspace's, where `cargo-archbuild` turns the remote tier and the zstd
//! writer on), and the packages' manifests from `cargo metadata`.
//!
//! Held here: no signature scheme (signing is the remote tier's, behind its feature), no crate
//! that builds C (zstd and LZ4HC writing are behind archbuild's `zstd` feature, the observer
//! is built at run time), each crate once, a crate count that may only go down, and what
//! `archbuild` adds to a dependent of `archbuild-runtime`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn cargo(args: &[&str]) -> String {
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .current_dir(root())
        .args(args)
        .arg("--offline")
        .output()
        .expect("cargo runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// A crate of the graph: its versions, and each version's features as resolved.
#[derive(Default)]
struct Node {
    versions: BTreeSet<String>,
    features: BTreeSet<String>,
}

/// `name → node` of `package`'s default graph (normal and build edges), itself included.
fn graph(package: &str) -> BTreeMap<String, Node> {
    graph_with(package, &[])
}

/// [`graph`] with more cargo arguments (`--features`).
fn graph_with(package: &str, more: &[&str]) -> BTreeMap<String, Node> {
    let mut args = vec![
        "tree",
        "-p",
        package,
        "-e",
        "normal,build",
        "--prefix",
        "none",
    ];
    args.extend(["-f", "{p} [{f}]"]);
    args.extend(more);
    let text = cargo(&args);
    let mut crates: BTreeMap<String, Node> = BTreeMap::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        if let (Some(name), Some(version)) = (words.next(), words.next()) {
            let node = crates.entry(name.to_owned()).or_default();
            node.versions.insert(version.to_owned());
            // A path package prints its folder before the features.
            let features = line[line.rfind('[').unwrap_or(line.len())..].trim_end_matches(" (*)");
            node.features.insert(format!("{version} {features}"));
        }
    }
    crates
}

/// Crates that build or link C, from their manifests: a `links` key, or a build dependency on
/// `cc` or `cmake` — blake3 aside, which needs no C compiler: without one it takes its Rust
/// SIMD code (`publish::a_dependent_takes_the_packaged_fat_binary_with_no_toolkit_and_refuses_an_edit`
/// builds a dependent with none), and with one it assembles its own, which in an unoptimised
/// build script hashes about 150 times faster (docs/cargo.md, "What a dependent compiles").
fn c_builds(g: &BTreeMap<String, Node>) -> Vec<String> {
    // This machine's platform: the others' packages need not be downloaded.
    let rustc = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("rustc runs");
    let info = String::from_utf8_lossy(&rustc.stdout).into_owned();
    let host = info
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc -vV names the host");
    let meta = cargo(&[
        "metadata",
        "--format-version",
        "1",
        "--filter-platform",
        host,
    ]);
    let meta: serde_json::Value = serde_json::from_str(&meta).unwrap();
    let mut found = Vec::new();
    for p in meta["packages"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        let Some(node) = g.get(name) else { continue };
        if !node
            .versions
            .contains(&format!("v{}", p["version"].as_str().unwrap()))
        {
            continue;
        }
        let builds_c = p["dependencies"].as_array().unwrap().iter().any(|d| {
            d["kind"] == "build" && ["cc", "cmake"].contains(&d["name"].as_str().unwrap())
        });
        if !p["links"].is_null() || (builds_c && name != "blake3") {
            found.push(name.to_owned());
        }
    }
    found
}

/// Crates that implement or pull a signature scheme.
const SIGNATURE_SCHEMES: [&str; 7] = [
    "ed25519-dalek",
    "ed25519",
    "curve25519-dalek",
    "hmac",
    "rsa",
    "ecdsa",
    "p256",
];

fn check(package: &str, budget: usize) {
    let g = graph(package);
    let listed: Vec<String> = g
        .iter()
        .map(|(n, v)| {
            let versions: Vec<&str> = v.versions.iter().map(String::as_str).collect();
            format!("{n} {}", versions.join(" "))
        })
        .collect();
    println!("{package}: {} crates: {}", g.len(), listed.join(", "));
    let schemes: Vec<&&str> = SIGNATURE_SCHEMES
        .iter()
        .filter(|s| g.contains_key(**s))
        .collect();
    assert!(
        schemes.is_empty(),
        "{package}'s default graph has a signature scheme: {schemes:?}; signing belongs behind \
         the `remote` feature"
    );
    let twice: Vec<&String> = listed.iter().filter(|l| l.split(' ').count() > 2).collect();
    assert!(
        twice.is_empty(),
        "{package} compiles crates twice: {twice:?}"
    );
    let c = c_builds(&g);
    assert!(
        c.is_empty(),
        "{package}'s default graph builds C: {c:?}; a dependent must need no C compiler \
         beyond the linker's"
    );
    assert!(
        g.len() <= budget,
        "{package}'s default graph is {} crates, over its budget of {budget}: {}",
        g.len(),
        listed.join(", ")
    );
}

/// 47 crates on 2026-12-07 (50 that morning; 69 on 2026-11-29 with lz4-sys and zstd-sys, 90
/// with ed25519).
#[test]
fn the_build_dependency_compiles_no_signature_scheme_no_c_and_no_more_crates() {
    check("archbuild", 47);
}

/// 37 crates on 2026-12-07 (39 that morning, 51 on 2026-11-29).
#[test]
fn the_runtime_compiles_no_signature_scheme_no_c_and_no_more_crates() {
    check("archbuild-runtime", 37);
}

/// The check itself: it finds the C builds of the graph before this change (zstd-sys and
/// lz4-sys through archbuild-fatbin's writers), and finds them again with the feature on.
#[test]
fn the_c_check_sees_the_zstd_writer() {
    let g = graph_with("archbuild", &["--features", "zstd"]);
    let c = c_builds(&g);
    assert!(
        c.contains(&"zstd-sys".to_owned()) && c.contains(&"lz4-sys".to_owned()),
        "{c:?}"
    );
}

/// A dependent compiles the crates both graphs share once: Cargo builds a crate that is both a
/// build and a normal dependency as one unit only when its features agree on both sides. When
/// they differed (serde's `alloc`, which serde_json and toml turn on in archbuild's graph and
/// nothing did in the runtime's), `serde_core`, `serde` and four archbuild crates above them
/// were each compiled twice: 7.4 s of a 25.7 s cold build on 2026-12-07.
#[test]
fn a_dependent_compiles_each_crate_both_graphs_share_once() {
    let build = graph("archbuild");
    let normal = graph("archbuild-runtime");
    let differ: Vec<String> = build
        .iter()
        .filter_map(|(name, b)| {
            let n = normal.get(name)?;
            (n.features != b.features).then(|| {
                format!(
                    "{name}: build side {:?}, run-time side {:?}",
                    b.features, n.features
                )
            })
        })
        .collect();
    assert!(
        differ.is_empty(),
        "crates a dependent would compile twice, their features differing between archbuild \
         (a build dependency) and archbuild-runtime: {differ:#?}; turn the same features on \
         in the crate both use (the workspace's dependency table)"
    );
}

/// What depending on a kernel crate adds to a program that loads with `archbuild-runtime`: the
/// crates of archbuild's graph that the runtime's does not have. Cargo compiles the shared ones
/// once (the test above), so these are the build dependency's whole cost to a dependent: 13 on
/// 2026-12-07, the benchmark's 52 crates against 39 (docs/cargo.md, "What a dependent
/// compiles"). None builds or links C, blake3 included: it is the runtime's too, whose JIT
/// cache keys need its speed, so a dependent compiles it whatever the build dependency uses.
#[test]
fn the_build_dependency_adds_few_crates_and_no_c_to_a_runtime_dependent() {
    let build = graph("archbuild");
    let normal = graph("archbuild-runtime");
    assert!(
        normal.contains_key("blake3"),
        "the runtime no longer uses blake3: count it among what the build dependency adds"
    );
    let added: BTreeMap<String, Node> = build
        .into_iter()
        .filter(|(name, _)| !normal.contains_key(name))
        .collect();
    let names: Vec<&String> = added.keys().collect();
    println!("archbuild adds {} crates: {names:?}", added.len());
    let c = c_builds(&added);
    assert!(
        c.is_empty(),
        "archbuild adds crates that build C to a runtime dependent: {c:?}"
    );
    assert!(
        added.len() <= 13,
        "archbuild adds {} crates to a dependent of archbuild-runtime, over its budget of 13: \
         {names:?}",
        added.len()
    );
}
