//! The docs cannot drift: every shell block of `docs/*.md` runs and every Rust block compiles.
//!
//! Info strings: ```` ```sh ```` blocks run with bash (`-eo pipefail`), one document after the
//! other (getting-started.md first, whose build the others inspect) in one copy of this
//! repository, with this build of `cargo-archbuild` on `PATH` and the context the docs describe
//! as given: `KERNEL_CRATE=vector_add`, `SHARDS`, `SHARD_ARCHS`, `SHARD_OF`, `SHARD_NAME`, `FLEET` and a
//! `GITHUB_OUTPUT` file (docs/ci.md names them). ```` ```rust ```` blocks compile, warnings
//! denied, in a crate made by `cargo archbuild new`: a block with `fn main` as an example (it
//! may be a build script; nothing runs it), any other as the crate's `src/lib.rs`. Marks after
//! the language skip a block: `gpu` (needs a GPU machine, see results/gpu.md) and `no_run`
//! (the test suite itself, a benchmark, tools the suite does not install; the block's first line
//! says which). `text`, `toml` and `json` blocks are data.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::scaffold::cargo_in;
use crate::support::{cli, home, run};

struct Block {
    doc: String,
    line: usize,
    lang: String,
    marks: Vec<String>,
    code: String,
}

/// Fenced blocks of one Markdown document.
fn blocks(doc: &str, text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (n, line) in text.lines().enumerate() {
        match (line.strip_prefix("```"), open.take()) {
            (Some(_), Some(b)) => out.push(b),
            (Some(info), None) => {
                let mut words = info.split(',').map(|w| w.trim().to_owned());
                open = Some(Block {
                    doc: doc.to_owned(),
                    line: n + 1,
                    lang: words.next().unwrap_or_default(),
                    marks: words.collect(),
                    code: String::new(),
                });
            }
            (None, Some(mut b)) => {
                b.code.push_str(line);
                b.code.push('\n');
                open = Some(b);
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "{doc}: a code block is not closed");
    out
}

/// Every block of docs/*.md, getting-started.md first.
fn all_blocks(repo: &Path) -> Vec<Block> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo.join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort_by_key(|p| (!p.ends_with("getting-started.md"), p.clone()));
    docs.iter()
        .flat_map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            blocks(&name, &std::fs::read_to_string(p).unwrap())
        })
        .collect()
}

/// A copy of the repository whose `target/` is `target` (outliving the test, but for CI).
fn repo_copy(into: &Path, target: &Path) -> PathBuf {
    let root = archbuild_tests::repo_root();
    let copy = into.join("repo");
    std::fs::create_dir_all(&copy).unwrap();
    for e in std::fs::read_dir(&root).unwrap().flatten() {
        let name = e.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        if e.file_type().unwrap().is_dir() {
            archbuild_tests::copy_dir(&e.path(), &copy.join(&name));
        } else {
            std::fs::copy(e.path(), copy.join(&name)).unwrap();
        }
    }
    std::os::unix::fs::symlink(target, copy.join("target")).unwrap();
    copy
}

fn run_shell(b: &Block, repo: &Path, tmp: &Path) {
    let bin = tmp.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let exe = bin.join("cargo-archbuild");
    if !exe.exists() {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_cargo-archbuild"), &exe).unwrap();
    }
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let mut cmd = Command::new("bash");
    cmd.args(["-eo", "pipefail", "-c", &b.code])
        .current_dir(repo)
        .env("PATH", path)
        .env("CARGO_TARGET_DIR", repo.join("target"))
        .env("CARGO_INSTALL_ROOT", tmp.join("install"))
        .env("ARCHBUILD_CACHE_DIR", home().join("cache"))
        .env("NO_COLOR", "1")
        .env("KERNEL_CRATE", "vector_add")
        .env("SHARDS", "3")
        .env("SHARD_ARCHS", "8.6+PTX")
        .env("SHARD_OF", "8.6+PTX")
        .env("SHARD_NAME", "sm_86-compute_86")
        .env("FLEET", "8.6@13.0")
        .env("GITHUB_OUTPUT", tmp.join("github_output"));
    for (key, _) in std::env::vars_os() {
        let k = key.to_string_lossy();
        if k.starts_with("ARCHBUILD_") && k != "ARCHBUILD_HOME" || k == "RUSTFLAGS" {
            cmd.env_remove(&key);
        }
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}:{}: the shell block failed ({}):\n{}\n--- stdout\n{}\n--- stderr\n{}",
        b.doc,
        b.line,
        out.status,
        b.code,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The crate Rust blocks compile in: `cargo archbuild new`, plus the build driver (and cc) as
/// dev-dependencies for blocks that are build scripts.
fn rust_crate(tmp: &Path) -> PathBuf {
    let dir = tmp.join("docs_check");
    let (code, _, stderr) = run(cli()
        .current_dir(tmp)
        .args(["new", "docs_check", "--archbuild-path"])
        .arg(archbuild_tests::repo_root()));
    assert_eq!(code, 0, "{stderr}");
    let manifest = dir.join("Cargo.toml");
    let mut text = std::fs::read_to_string(&manifest).unwrap();
    let archbuild = archbuild_tests::repo_root().join("crates/archbuild");
    text.push_str(&format!(
        "\n[dev-dependencies]\narchbuild = {{ path = {:?} }}\ncc = \"1.2\"\n",
        archbuild.display().to_string()
    ));
    std::fs::write(&manifest, text).unwrap();
    std::fs::remove_file(dir.join("src/main.rs")).unwrap();
    dir
}

fn compile_rust(b: &Block, dir: &Path) {
    let example = dir.join("examples/doc.rs");
    let lib = dir.join("src/lib.rs");
    let args: &[&str] = if b.code.contains("fn main") {
        std::fs::create_dir_all(example.parent().unwrap()).unwrap();
        std::fs::write(&example, &b.code).unwrap();
        std::fs::write(&lib, "//! The docs' examples.\n").unwrap();
        &["build", "--example", "doc"]
    } else {
        let _ = std::fs::remove_file(&example);
        std::fs::write(&lib, &b.code).unwrap();
        &["build", "--lib"]
    };
    let (code, _, stderr) = cargo_in(dir, args);
    assert_eq!(
        code, 0,
        "{}:{}: the Rust block does not compile without warnings:\n{}\n{stderr}",
        b.doc, b.line, b.code
    );
}

#[test]
fn every_shell_and_rust_block_of_the_docs_runs() {
    archbuild_tests::toolkit();
    let tmp = tempfile::tempdir().unwrap();
    let target = archbuild_tests::TestTarget::new(
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("docs-target"),
    );
    let repo = repo_copy(tmp.path(), target.path());
    let rust = rust_crate(tmp.path());
    let (mut ran, mut compiled, mut skipped) = (0, 0, Vec::new());
    for b in all_blocks(&repo) {
        let skip = b.marks.iter().find(|m| *m == "gpu" || *m == "no_run");
        match (b.lang.as_str(), skip) {
            ("sh" | "bash" | "rust", Some(mark)) => {
                skipped.push(format!("{}:{} ({mark})", b.doc, b.line))
            }
            ("sh" | "bash", None) => {
                run_shell(&b, &repo, tmp.path());
                ran += 1;
            }
            ("rust", None) => {
                compile_rust(&b, &rust);
                compiled += 1;
            }
            ("text" | "toml" | "json", _) => {}
            (other, _) => panic!(
                "{}:{}: a block in `{other}`: mark it sh, rust, text, toml or json",
                b.doc, b.line
            ),
        }
    }
    eprintln!(
        "docs: {ran} shell block(s) ran, {compiled} Rust block(s) compiled, skipped: {skipped:?}"
    );
    assert!(ran >= 8 && compiled >= 5, "{ran} ran, {compiled} compiled");
}
