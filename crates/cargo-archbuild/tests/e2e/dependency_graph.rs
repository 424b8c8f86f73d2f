//! What a crate that depends on ours compiles: the default normal graph of `archbuild` (a
//! kernel crate's build dependency) and of `archbuild-runtime` (its run-time one), read with
//! `cargo tree -p`, which resolves the package's own features as a dependent's build does (not
//! the workspace's, where `cargo-archbuild` turns the remote tier on).
//!
//! Held here: no signature scheme (signing is the remote tier's, behind its feature), each
//! crate once, and a crate count that may only go down. Issue 48 goes further (no C build, 40
//! crates); the two C builds left are named below so that a third cannot slip in.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// `name → versions` of `package`'s default normal dependency graph, itself included.
fn graph(package: &str) -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .current_dir(&root)
        .args(["tree", "-p", package, "-e", "normal", "--prefix", "none"])
        .args(["-f", "{p}", "--offline"])
        .output()
        .expect("cargo runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut crates: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        if let (Some(name), Some(version)) = (words.next(), words.next()) {
            crates
                .entry(name.to_owned())
                .or_default()
                .insert(version.to_owned());
        }
    }
    crates
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

/// The C builds still in the graphs (zstd and LZ4HC writers and readers of `archbuild-fatbin`).
const C_BUILDS_LEFT: [&str; 2] = ["lz4-sys", "zstd-sys"];

fn check(package: &str, budget: usize) {
    let g = graph(package);
    let listed: Vec<String> = g
        .iter()
        .map(|(n, v)| format!("{n} {}", v.iter().cloned().collect::<Vec<_>>().join(" ")))
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
    // `-sys` crates link or build C; the two named are what is left to replace.
    let c: Vec<&String> = g
        .keys()
        .filter(|n| n.ends_with("-sys") && !["linux-raw-sys", "dirs-sys"].contains(&n.as_str()))
        .filter(|n| !C_BUILDS_LEFT.contains(&n.as_str()))
        .collect();
    assert!(c.is_empty(), "{package} gained a C build: {c:?}");
    assert!(
        g.len() <= budget,
        "{package}'s default graph is {} crates, over its budget of {budget}: {}",
        g.len(),
        listed.join(", ")
    );
}

/// 69 crates on 2026-11-29, down from 90 with ed25519 and HMAC behind the remote tier.
#[test]
fn the_build_dependency_compiles_no_signature_scheme_and_no_more_crates() {
    check("archbuild", 69);
}

/// 51 crates on 2026-11-29.
#[test]
fn the_runtime_compiles_no_signature_scheme_and_no_more_crates() {
    check("archbuild-runtime", 51);
}
