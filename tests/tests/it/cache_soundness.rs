//! The build cache never serves a stale result, with the real toolkit: a toolkit component
//! that changes while `nvcc --version` does not, a header that `__has_include` asks about
//! appearing later, and a new header shadowing another earlier on the include path. And the
//! other side of soundness: a comment-only edit starts no compiler at all (preprocessor mode).

use std::path::Path;

use archbuild::{Build, BuildReport, Toolkit};

struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.dir.path().join("pkg").join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn build(&self, tk: &Toolkit, cache: bool) -> BuildReport {
        let out = if cache { "out" } else { "out-nocache" };
        Build::new()
            .toolkit(tk.clone())
            .env(archbuild_tests::path_env())
            .manifest_dir(self.dir.path().join("pkg"))
            .cache_dir(self.dir.path().join("cache"))
            .cache(cache)
            .out_dir(self.dir.path().join(out))
            .file("kernels/k.cu")
            .include("inc")
            .archs("8.6")
            .quiet(true)
            .try_compile("kernels")
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// The fat binary of a cached build, and of a build that uses no cache at all.
    fn both(&self, tk: &Toolkit) -> (BuildReport, Vec<u8>, Vec<u8>) {
        let cached = self.build(tk, true);
        let fresh = self.build(tk, false);
        let a = std::fs::read(&cached.modules[0].fatbin).unwrap();
        let b = std::fs::read(&fresh.modules[0].fatbin).unwrap();
        (cached, a, b)
    }
}

fn tk() -> &'static Toolkit {
    archbuild_tests::toolkit()
}

const KERNEL: &str = r#"#include "params.cuh"
#if __has_include("optional_tuning.cuh")
#include "optional_tuning.cuh"
#endif
#ifndef TUNE
#define TUNE 1.0f
#endif
extern "C" __global__ void k(float *x) { x[0] = SCALE * TUNE; }
"#;

#[test]
fn a_header_that_has_include_asks_about_appearing_later_is_a_miss() {
    let p = Project::new();
    p.write("kernels/k.cu", KERNEL);
    p.write("inc/params.cuh", "#define SCALE 2.0f\n");
    let first = p.build(tk(), true);
    assert!(first.jobs_run > 0);
    p.write("inc/optional_tuning.cuh", "#define TUNE 3.0f\n");
    let (r, cached, fresh) = p.both(tk());
    assert!(r.jobs_run > 0, "served a stale result: {r}");
    assert!(
        cached == fresh,
        "the cached build differs from a build without cache"
    );
}

#[test]
fn a_new_header_shadowing_one_later_on_the_include_path_is_a_miss() {
    let p = Project::new();
    p.write("kernels/k.cu", KERNEL);
    p.write("inc/params.cuh", "#define SCALE 2.0f\n");
    p.build(tk(), true);
    // Quoted includes look next to the including file before `-I inc`.
    p.write("kernels/params.cuh", "#define SCALE 5.0f\n");
    let (r, cached, fresh) = p.both(tk());
    assert!(r.jobs_run > 0, "served a stale result: {r}");
    assert!(
        cached == fresh,
        "the cached build differs from a build without cache"
    );
}

/// A copy of the toolkit whose ptxas is another program (here: the real one with other
/// optimisation settings), with `nvcc --version` unchanged — what upgrading one pip wheel does.
fn toolkit_with_other_ptxas(dir: &Path) -> Toolkit {
    let real = tk().root().to_path_buf();
    let root = dir.join("cuda");
    let bin = root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for e in std::fs::read_dir(real.join("bin")).unwrap().flatten() {
        let to = bin.join(e.file_name());
        if e.file_name() == "ptxas" {
            continue;
        }
        if e.path().is_dir() {
            std::os::unix::fs::symlink(e.path(), &to).unwrap();
        } else if std::fs::hard_link(e.path(), &to).is_err() {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
    let script = format!(
        "#!/bin/sh\nexec {} -O1 \"$@\"\n",
        real.join("bin/ptxas").display()
    );
    std::fs::write(bin.join("ptxas"), script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(bin.join("ptxas"), std::fs::Permissions::from_mode(0o755)).unwrap();
    for e in std::fs::read_dir(&real).unwrap().flatten() {
        if e.file_name() != "bin" {
            std::os::unix::fs::symlink(e.path(), root.join(e.file_name())).unwrap();
        }
    }
    Toolkit::from_nvcc(bin.join("nvcc")).unwrap()
}

#[test]
fn a_toolkit_component_that_changes_alone_is_a_miss() {
    let p = Project::new();
    p.write("kernels/k.cu", KERNEL);
    p.write("inc/params.cuh", "#define SCALE 2.0f\n");
    let first = p.build(tk(), true);
    let first = std::fs::read(&first.modules[0].fatbin).unwrap();
    let other = toolkit_with_other_ptxas(p.dir.path());
    assert_eq!(
        other.release(),
        tk().release(),
        "nvcc --version is unchanged"
    );
    let (r, cached, fresh) = p.both(&other);
    assert!(r.jobs_run > 0, "served a stale result: {r}");
    assert!(
        cached == fresh,
        "the cached build differs from a build without cache"
    );
    assert!(cached != first, "the other ptxas makes other bytes");
}

#[test]
fn a_comment_only_edit_starts_no_compiler() {
    let p = Project::new();
    let src = "// A kernel.\n#include \"params.cuh\"\nextern \"C\" __global__ void k(float *x) {\n  x[0] = SCALE;\n}\n";
    p.write("kernels/k.cu", src);
    p.write("inc/params.cuh", "#define SCALE 2.0f\n");
    let cold = p.build(tk(), true);
    assert_eq!(cold.jobs_run, 2, "{cold}");
    let before = std::fs::read(&cold.modules[0].fatbin).unwrap();
    // Comments added, one of them a new line that shifts everything below.
    p.write(
        "kernels/k.cu",
        &src.replace(
            "// A kernel.\n",
            "// A kernel.\n// It scales.\n/* and more */\n",
        ),
    );
    p.write(
        "inc/params.cuh",
        "// the scale\n#define SCALE 2.0f // two\n",
    );
    let r = p.build(tk(), true);
    assert_eq!(r.jobs_run, 0, "a compiler ran: {r}");
    let pre: Vec<_> = r
        .jobs
        .iter()
        .filter(|j| j.served == archbuild::Served::Preprocessed)
        .collect();
    assert_eq!(
        pre.len(),
        1,
        "one preprocessor run for the one cicc job: {r}"
    );
    assert_eq!(r.processes_started, 1, "{r}");
    assert!(std::fs::read(&r.modules[0].fatbin).unwrap() == before);
    // The new state is recorded: the next build runs nothing at all.
    let again = p.build(tk(), true);
    assert_eq!(again.processes_started, 0, "{again}");
    // A real change still compiles.
    p.write("inc/params.cuh", "#define SCALE 3.0f\n");
    let changed = p.build(tk(), true);
    assert!(changed.jobs_run > 0, "{changed}");
}

/// A cache that cannot be written still serves its entries (docs/build.md says so): here its
/// temp directory cannot be created (as with a read-only mount, which root in CI cannot
/// simulate with permissions).
#[test]
fn a_cache_that_cannot_be_written_still_serves() {
    let p = Project::new();
    p.write("kernels/k.cu", KERNEL);
    p.write("inc/params.cuh", "#define SCALE 2.0f\n");
    let first = p.build(tk(), true);
    assert!(first.jobs_run > 0);
    let tmp = p.dir.path().join("cache/tmp");
    std::fs::remove_dir_all(&tmp).unwrap();
    std::fs::write(&tmp, "not a directory").unwrap();
    let again = p.build(tk(), true);
    assert_eq!(again.jobs_run, 0, "{again}");
    // A change still builds, with the temp files elsewhere.
    p.write("inc/params.cuh", "#define SCALE 4.0f\n");
    let changed = p.build(tk(), true);
    assert!(changed.jobs_run > 0, "{changed}");
}

/// A clock macro reached through flags is found like one in a source: a define, a flag, nvcc's
/// and archbuild's flag variables, and an options file a flag names. Each build compiles the
/// cicc job again and says why; nothing of it is served from the cache.
#[test]
fn clock_macros_in_flags_defines_variables_and_options_files_are_never_served() {
    let p = Project::new();
    p.write(
        "kernels/k.cu",
        "#ifndef STAMP\n#define STAMP \"none\"\n#endif\n\
         extern \"C\" __global__ void k(char *o) { const char s[] = STAMP; o[0] = s[1]; }\n",
    );
    p.write("opts.txt", "-DSTAMP=__TIME__\n");
    let build = |name: &str, vars: &[(&str, &str)], flags: &[&str], define: Option<&str>| {
        let mut b = Build::new();
        b.toolkit(tk().clone())
            .env(archbuild_tests::env_with(vars.iter().copied()))
            .manifest_dir(p.dir.path().join("pkg"))
            .cache_dir(p.dir.path().join("cache"))
            .out_dir(p.dir.path().join("out").join(name))
            .file("kernels/k.cu")
            .archs("8.6")
            .quiet(true);
        b.flags(flags);
        if let Some(d) = define {
            b.define("STAMP", Some(d));
        }
        b.try_compile("kernels")
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    /// A case: its name, variables, flags, the define's value, and what its note names.
    type Case<'a> = (
        &'a str,
        &'a [(&'a str, &'a str)],
        &'a [&'a str],
        Option<&'a str>,
        &'a str,
    );
    let cases: [Case; 5] = [
        ("define", &[], &[], Some("__TIME__"), "__TIME__"),
        ("flag", &[], &["-DSTAMP=__DATE__"], None, "__DATE__"),
        (
            "nvcc-var",
            &[("NVCC_PREPEND_FLAGS", "-DSTAMP=__TIMESTAMP__")],
            &[],
            None,
            "__TIMESTAMP__",
        ),
        (
            "archbuild-var",
            &[("ARCHBUILD_NVCC_FLAGS", "-DSTAMP=__TIME__")],
            &[],
            None,
            "__TIME__",
        ),
        (
            "options-file",
            &[],
            &["--options-file=opts.txt"],
            None,
            "opts.txt",
        ),
    ];
    for (name, vars, flags, define, named) in cases {
        build(name, vars, flags, define);
        let again = build(name, vars, flags, define);
        let cicc = again
            .jobs
            .iter()
            .find(|j| j.phase == archbuild::JobPhase::Cicc)
            .unwrap();
        assert!(
            !cicc.served.cached(),
            "{name}: served from the cache: {again}"
        );
        let note = cicc.served.note().unwrap_or_default();
        assert!(
            note.contains(named) && note.contains("not cached"),
            "{name}: {note}"
        );
    }
}

/// Direct mode trusts a header's remembered hash only for the same identity on disk
/// (`plan/stat_memo.rs`): a header rewritten at the same size, its modification time put
/// back, has a new change time, so it is read again and the build equals a cache-off one.
#[test]
fn a_header_rewritten_at_the_same_size_and_time_is_read_again() {
    let p = Project::new();
    p.write(
        "kernels/k.cu",
        "#include \"params.cuh\"\nextern \"C\" __global__ void k(float *x) { x[0] = SCALE; }\n",
    );
    p.write("inc/params.cuh", "#define SCALE 2.0f\n");
    let header = p.dir.path().join("pkg/inc/params.cuh");
    let mtime = std::fs::metadata(&header).unwrap().modified().unwrap();
    // Older than the memo's settle window, so the first build remembers it.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let first = p.build(tk(), true);
    assert_eq!(first.jobs_run, 2, "{first}");
    let old = std::fs::read(&first.modules[0].fatbin).unwrap();
    assert_eq!(p.build(tk(), true).processes_started, 0);

    p.write("inc/params.cuh", "#define SCALE 3.0f\n");
    std::fs::File::options()
        .write(true)
        .open(&header)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let (r, cached, fresh) = p.both(tk());
    assert!(r.jobs_run > 0, "served the old header's PTX: {r}");
    assert!(cached == fresh, "differs from a cache-off build");
    assert!(cached != old);
}
