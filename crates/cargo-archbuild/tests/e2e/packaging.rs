//! Repository hygiene: what the published crates carry (the library a build.rs depends on ships
//! its sources, not the fake nvcc its tests run, nor test fixtures or snapshots), and that no
//! crate's modules import each other in a circle (each crate reads as a one-way pipeline).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

#[test]
fn the_published_build_crate_holds_no_fake_nvcc_and_no_test_files() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .current_dir(&root)
        .args([
            "package",
            "-p",
            "archbuild",
            "--list",
            "--allow-dirty",
            "--offline",
        ])
        .output()
        .expect("cargo runs");
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{list}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(list.lines().any(|l| l == "src/lib.rs"), "{list}");
    let unwanted: Vec<&str> = list
        .lines()
        .filter(|l| {
            l.starts_with("src/bin/")
                || l.starts_with("tests/")
                || l.starts_with("examples/")
                || l.contains("snapshots/")
                || l.contains("fake_nvcc")
        })
        .collect();
    assert!(unwanted.is_empty(), "packaged test files: {unwanted:?}");
}

/// The top-level modules of a crate's `src` with their source (files under `src/x/` belong to
/// module `x`), test modules cut off.
fn modules(src: &Path) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().map(Result::unwrap) {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap();
            let top = rel.iter().next().unwrap().to_string_lossy();
            let top = top.trim_end_matches(".rs").to_owned();
            if ["lib", "main", "bin"].contains(&top.as_str()) {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            out.entry(top).or_default().push_str(code);
        }
    }
    out
}

/// Which module each item the crate root re-exports (`pub use module::{A, B}`) comes from, so
/// `crate::A` counts as a use of that module.
fn reexports(src: &Path) -> BTreeMap<String, String> {
    let lib = std::fs::read_to_string(src.join("lib.rs"))
        .or_else(|_| std::fs::read_to_string(src.join("main.rs")))
        .unwrap_or_default();
    let mut out = BTreeMap::new();
    for stmt in lib.split(';') {
        let Some(rest) = stmt.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, items)) = rest.split_once("::") else {
            continue;
        };
        for item in items
            .trim_matches(|c| c == '{' || c == '}' || char::is_whitespace(c))
            .split(',')
        {
            let name = item.rsplit("::").next().unwrap_or(item).trim();
            let name = name.rsplit(" as ").next().unwrap_or(name).trim();
            if !name.is_empty() {
                out.insert(name.to_owned(), module.trim().to_owned());
            }
        }
    }
    out
}

/// The modules `code` names through `crate::…` (paths and `use crate::{a, b::c}` groups).
fn uses(
    code: &str,
    known: &BTreeMap<String, String>,
    reexported: &BTreeMap<String, String>,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for (i, _) in line.match_indices("crate::") {
            let rest = &line[i + "crate::".len()..];
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group
                    .split('}')
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .map(|p| p.trim().split("::").next().unwrap_or_default())
                    .collect(),
                None => vec![rest
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or_default()],
            };
            for n in names {
                if known.contains_key(n) {
                    out.insert(n.to_owned());
                } else if let Some(m) = reexported.get(n) {
                    out.insert(m.clone());
                }
            }
        }
    }
    out
}

#[test]
fn no_crate_has_an_import_cycle_between_its_modules() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut cycles = Vec::new();
    for c in std::fs::read_dir(&crates).unwrap().map(Result::unwrap) {
        let src = c.path().join("src");
        if !src.is_dir() {
            continue;
        }
        let mods = modules(&src);
        let reexported = reexports(&src);
        let graph: BTreeMap<String, BTreeSet<String>> = mods
            .iter()
            .map(|(m, code)| {
                let mut u = uses(code, &mods, &reexported);
                u.remove(m);
                (m.clone(), u)
            })
            .collect();
        // A module that reaches itself is in a cycle; report the path.
        for start in graph.keys() {
            let mut seen = BTreeSet::new();
            let mut stack = vec![(start.clone(), vec![start.clone()])];
            while let Some((m, path)) = stack.pop() {
                for next in &graph[&m] {
                    if next == start {
                        cycles.push(format!(
                            "{}: {} -> {start}",
                            c.file_name().to_string_lossy(),
                            path.join(" -> ")
                        ));
                    } else if seen.insert(next.clone()) {
                        let mut p = path.clone();
                        p.push(next.clone());
                        stack.push((next.clone(), p));
                    }
                }
            }
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}
