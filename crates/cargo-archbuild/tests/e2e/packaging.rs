//! Repository hygiene: what the published crates carry (the library a build.rs depends on ships
//! its sources, not the fake nvcc its tests run, nor test fixtures or snapshots), that no
//! crate's modules import each other in a circle (each crate reads as a one-way pipeline), and
//! that the build crate's folders import in their one order.

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

/// The build crate's folders, lowest first: a file under `crates/archbuild/src/<folder>/` names
/// (through `crate::…`, the root's re-exports resolved to their folder) only its own folder, the
/// folders before it, and the root's `error` and `ended`. The root's other files (the facade,
/// `builder`, `library`, `run`) sit above every folder. `docs/architecture.md` says what each
/// folder holds; a new folder takes its place here.
const BUILD_CRATE_FOLDERS: [&str; 11] = [
    "base", "toolkit", "headers", "config", "report", "cache", "plan", "host", "prepare", "jobs",
    "output",
];

#[test]
fn build_crate_folders_import_in_order() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../archbuild/src");
    let folders: BTreeSet<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(Result::unwrap)
        .filter(|e| e.path().join("mod.rs").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        folders,
        BUILD_CRATE_FOLDERS.map(String::from).into(),
        "every folder module of crates/archbuild/src has one place in BUILD_CRATE_FOLDERS"
    );
    let mods = modules(&src);
    let reexported = reexports(&src);
    let mut upward = Vec::new();
    for (rank, folder) in BUILD_CRATE_FOLDERS.iter().enumerate() {
        let mut files = Vec::new();
        rust_files(&src.join(folder), &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in text.lines().enumerate() {
                for used in uses(line, &mods, &reexported) {
                    let allowed = match BUILD_CRATE_FOLDERS.iter().position(|f| *f == used) {
                        Some(r) => r <= rank,
                        None => used == "error" || used == "ended",
                    };
                    if !allowed {
                        upward.push(format!(
                            "{}:{}: `{folder}/` uses `{used}`: {}",
                            file.strip_prefix(&src).unwrap().display(),
                            n + 1,
                            line.trim()
                        ));
                    }
                }
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports against the folder order {BUILD_CRATE_FOLDERS:?} (move the item to the folder \
         its users share, or the folder to its place in the order):\n{}",
        upward.join("\n")
    );
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Why `code` (one line, comments already skipped) decides something from an arch list's text
/// instead of asking the arch parser, or `None`. `native` and `all-major` are arch-list words
/// only; a bare `"all"` is also `ARCHBUILD_VERIFY`'s word, so only its substring test counts.
fn sniffs_an_arch_word(code: &str) -> Option<String> {
    let lower = code.to_ascii_lowercase();
    for word in ["native", "all-major", "all"] {
        let lit = format!("\"{word}\"");
        if lower.contains(&format!("contains({lit})")) {
            return Some(format!("a substring test for {lit}"));
        }
        if word == "all" {
            continue;
        }
        let compared = [
            format!("== {lit}"),
            format!("!= {lit}"),
            format!("{lit} =="),
            format!("{lit} |"),
            format!("| {lit}"),
            format!("{lit} =>"),
            format!("eq_ignore_ascii_case({lit})"),
            format!("starts_with({lit})"),
            format!("ends_with({lit})"),
        ];
        if let Some(c) = compared.iter().find(|c| lower.contains(c.as_str())) {
            return Some(format!("a comparison with {lit} (`{c}`)"));
        }
    }
    None
}

/// Whether a list needs this machine's GPUs or the toolkit is the arch parser's to say
/// (`ArchList::resolve` asks lazily, `ArchList::check` answers without asking): text sniffing
/// elsewhere (`contains("native")`, `matches!(s, "native" | "all-major")`) misreads lists such as
/// `8.6 native` or a misspelt word, and drifts from the parser.
#[test]
fn no_arch_list_text_is_sniffed_outside_the_arch_parser() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let parser = crates.join("archbuild-arch").join("src");
    let mut files = Vec::new();
    for c in std::fs::read_dir(&crates).unwrap().map(Result::unwrap) {
        let src = c.path().join("src");
        if src.is_dir() && src != parser {
            rust_files(&src, &mut files);
        }
    }
    assert!(files.len() > 50, "found only {} source files", files.len());
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.trim_start();
            // Doc comments and help text may name the words; only code decides.
            if code.starts_with("//") || code.starts_with("#[doc") {
                continue;
            }
            if let Some(why) = sniffs_an_arch_word(code) {
                let shown = file.strip_prefix(&crates).unwrap_or(file);
                found.push(format!("{}:{}: {why}: {}", shown.display(), i + 1, code));
            }
        }
    }
    assert!(
        found.is_empty(),
        "arch-list text decided outside archbuild-arch's parser (use ArchList::resolve with \
         ListFacts, or ArchList::check):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_sniffing_patterns_catch_what_they_are_for_and_spare_help_text() {
    for bad in [
        "if input.to_ascii_lowercase().contains(\"native\") {",
        "let archs = if lower.contains(\"all\") {",
        "if !matches!(archs.trim(), \"native\" | \"all\" | \"all-major\") {",
        "\"Native\" => devices(),",
        "if word == \"all-major\" {",
        "t.eq_ignore_ascii_case(\"native\")",
    ] {
        assert!(sniffs_an_arch_word(bad).is_some(), "{bad}");
    }
    for fine in [
        "/// Arch list, e.g. \"7.5 8.6 8.9+PTX\", \"sm_90a\", \"Ampere\", \"native\", \"all-major\"",
        "(\"all-major\".to_owned(), ArchSource::Default)",
        "\"all\" | \"on\" | \"1\" | \"true\" | \"yes\" => Some(1.0),",
        "#[arg(long, value_name = \"SHARE\", default_value = \"all\")]",
        "help = \"e.g. native\",",
    ] {
        assert_eq!(sniffs_an_arch_word(fine), None, "{fine}");
    }
}

/// The declared MSRV is true: no locked dependency a published crate builds with (normal or
/// build, transitively) declares a newer `rust-version` than the crate itself, so a user on
/// that Rust gets the promised build rather than a dependency error.
#[test]
fn every_published_crate_s_locked_dependencies_fit_its_rust_version() {
    use cargo_metadata::{DependencyKind, MetadataCommand, PackageId};
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let meta = MetadataCommand::new()
        .manifest_path(root.join("Cargo.toml"))
        // Online where it must be: every platform's packages are read (a dependent on another
        // system builds them too), and a fresh checkout's builds downloaded only this host's.
        .other_options(["--locked".to_owned()])
        .exec()
        .expect("cargo metadata runs on the locked workspace");
    let resolve = meta.resolve.as_ref().expect("a resolved graph");
    let node = |id: &PackageId| resolve.nodes.iter().find(|n| &n.id == id);
    let mut violations = Vec::new();
    let mut checked = 0;
    for member in meta.workspace_packages() {
        if member.publish.as_ref().is_some_and(|p| p.is_empty()) {
            continue;
        }
        checked += 1;
        let msrv = member
            .rust_version
            .clone()
            .unwrap_or_else(|| panic!("{} declares no rust-version", member.name));
        let mut seen = BTreeSet::new();
        let mut todo = vec![member.id.clone()];
        while let Some(id) = todo.pop() {
            let Some(n) = node(&id) else { continue };
            for dep in &n.deps {
                let built = dep
                    .dep_kinds
                    .iter()
                    .any(|k| matches!(k.kind, DependencyKind::Normal | DependencyKind::Build));
                if built && seen.insert(dep.pkg.clone()) {
                    todo.push(dep.pkg.clone());
                }
            }
        }
        for id in &seen {
            let p = &meta[id];
            if let Some(v) = p.rust_version.as_ref().filter(|v| **v > msrv) {
                violations.push(format!(
                    "{} (rust-version {msrv}) builds with {} {} (rust-version {v})",
                    member.name, p.name, p.version
                ));
            }
        }
    }
    assert!(checked >= 7, "only {checked} published crates found");
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}
