//! Preprocessor mode (a changed source keyed on its preprocessed text) never serves a stale
//! result, with the real toolkit: line information asked for through `NVCC_APPEND_FLAGS` or
//! `-src-in-ptx`, `__builtin_LINE()` and `__builtin_FILE()`, raw string literals whose blank
//! and `# 1 "x"` lines are content, and `__TIME__`, which no cache may serve. Each case
//! compares a cached build with a build of the same files without the cache (as
//! `cache_soundness` does); the targets include PTX, so whatever the PTX carries is compared.
//! And the other side: a comment-only edit still starts no compiler.

use archbuild::{Build, BuildReport, JobPhase, Toolkit};

struct Project {
    dir: tempfile::TempDir,
    vars: Vec<(&'static str, &'static str)>,
    flags: Vec<&'static str>,
}

impl Project {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
            vars: vec![],
            flags: vec![],
        }
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.dir.path().join("pkg").join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn remove(&self, rel: &str) {
        std::fs::remove_file(self.dir.path().join("pkg").join(rel)).unwrap();
    }

    fn build(&self, cache: bool) -> BuildReport {
        let out = if cache { "out" } else { "out-nocache" };
        Build::new()
            .toolkit(tk().clone())
            .env(archbuild_tests::env_with(self.vars.iter().copied()))
            .manifest_dir(self.dir.path().join("pkg"))
            .cache_dir(self.dir.path().join("cache"))
            .cache(cache)
            .out_dir(self.dir.path().join(out))
            .file("kernels/k.cu")
            .include("inc")
            .flags(&self.flags)
            .archs("8.6+PTX")
            .quiet(true)
            .try_compile("kernels")
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn fatbin(r: &BuildReport) -> Vec<u8> {
        std::fs::read(&r.modules[0].fatbin).unwrap()
    }

    /// A first cached build, then `edit`, then a cached build and one without the cache: the
    /// two must agree, and differ from the first (the edit changes the output).
    fn edit_then_compare(&self, edit: impl FnOnce()) -> BuildReport {
        let first = self.build(true);
        assert!(first.jobs_run > 0, "{first}");
        let before = Self::fatbin(&first);
        edit();
        let cached = self.build(true);
        let fresh = self.build(false);
        assert!(
            Self::fatbin(&cached) == Self::fatbin(&fresh),
            "served a stale result: the cached build differs from a build without cache: {cached}"
        );
        assert!(
            Self::fatbin(&cached) != before,
            "the edit changes the output"
        );
        cached
    }
}

fn tk() -> &'static Toolkit {
    archbuild_tests::toolkit()
}

/// Comment lines that move everything below them.
const COMMENTS: &str = "// one\n// two\n/* three\n   four */\n";

#[test]
fn line_info_from_nvcc_append_flags_keeps_line_markers() {
    let mut p = Project::new();
    p.vars.push(("NVCC_APPEND_FLAGS", "-lineinfo"));
    let src = "extern \"C\" __global__ void k(float *x) {\n  x[0] = x[1] * 2.0f;\n}\n";
    p.write("kernels/k.cu", src);
    p.edit_then_compare(|| p.write("kernels/k.cu", &format!("{COMMENTS}{src}")));
}

#[test]
fn source_in_ptx_sees_a_comment_edited_on_its_line() {
    let mut p = Project::new();
    p.flags = vec!["-lineinfo", "-src-in-ptx"];
    let src = "extern \"C\" __global__ void k(float *x) {\n  x[0] = x[1] * 2.0f; // double\n}\n";
    p.write("kernels/k.cu", src);
    // The preprocessed text is the same to the byte: only the source's own line differs.
    p.edit_then_compare(|| p.write("kernels/k.cu", &src.replace("double", "twice")));
}

#[test]
fn builtin_line_is_read_after_lines_are_added_above() {
    let p = Project::new();
    let src = "extern \"C\" __global__ void k(int *x) {\n  x[0] = __builtin_LINE();\n}\n";
    p.write("kernels/k.cu", src);
    p.edit_then_compare(|| p.write("kernels/k.cu", &format!("{COMMENTS}{src}")));
}

#[test]
fn builtin_file_is_read_after_its_header_moves() {
    let p = Project::new();
    let header = "__device__ inline const char *where() { return __builtin_FILE(); }\n";
    p.write(
        "kernels/k.cu",
        "#include \"where.cuh\"\nextern \"C\" __global__ void k(char *out) {\n  \
         const char *f = where();\n  for (int i = 0; f[i]; ++i) out[i] = f[i];\n}\n",
    );
    p.write("inc/where.cuh", header);
    // The same header, now found next to the source (quoted includes look there first).
    p.edit_then_compare(|| {
        p.remove("inc/where.cuh");
        p.write("kernels/where.cuh", header);
    });
}

/// A kernel that copies a raw string literal into device memory.
fn raw_string_kernel(text: &str) -> String {
    format!(
        "__device__ const char text[] = R\"raw({text})raw\";\nextern \"C\" __global__ void \
         k(char *out) {{\n  for (int i = 0; i < sizeof(text); ++i) out[i] = text[i];\n}}\n"
    )
}

#[test]
fn a_raw_string_keeps_its_blank_lines() {
    let p = Project::new();
    p.write("kernels/k.cu", &raw_string_kernel("a\n\nb"));
    p.edit_then_compare(|| p.write("kernels/k.cu", &raw_string_kernel("a\nb")));
}

#[test]
fn a_raw_string_keeps_its_line_marker_lines() {
    let p = Project::new();
    p.write("kernels/k.cu", &raw_string_kernel("a\n# 1 \"x\"\nb"));
    p.edit_then_compare(|| p.write("kernels/k.cu", &raw_string_kernel("a\n# 2 \"x\"\nb")));
}

#[test]
fn time_in_a_kernel_is_compiled_on_every_build() {
    let p = Project::new();
    p.write(
        "kernels/k.cu",
        "__device__ const char stamp[] = __DATE__ \" \" __TIME__;\nextern \"C\" __global__ \
         void k(char *out) {\n  for (int i = 0; i < sizeof(stamp); ++i) out[i] = stamp[i];\n}\n",
    );
    p.build(true);
    for r in [p.build(true), p.build(true)] {
        let cicc: Vec<_> = r
            .jobs
            .iter()
            .filter(|j| j.phase == JobPhase::Cicc)
            .collect();
        assert_eq!(cicc.len(), 1, "{r}");
        let job = cicc[0];
        assert!(
            !job.served.cached() && job.command.is_some(),
            "served from the cache: {r}"
        );
        let note = job.served.note().unwrap_or_default();
        assert!(
            note.contains("kernels/k.cu") && note.contains("__DATE__"),
            "the job says why it is not cached: {note:?}"
        );
        assert!(
            r.to_string().contains(note),
            "the report shows the note: {r}"
        );
    }
    // The same through a header found on the include path.
    p.write("inc/stamp.cuh", "#define STAMP __TIMESTAMP__\n");
    p.write(
        "kernels/k.cu",
        "#include \"stamp.cuh\"\n__device__ const char stamp[] = STAMP;\nextern \"C\" __global__ \
         void k(char *out) {\n  for (int i = 0; i < sizeof(stamp); ++i) out[i] = stamp[i];\n}\n",
    );
    p.build(true);
    let r = p.build(true);
    let job = r.jobs.iter().find(|j| j.phase == JobPhase::Cicc).unwrap();
    assert!(job.command.is_some(), "served from the cache: {r}");
    let note = job.served.note().unwrap_or_default();
    assert!(
        note.contains("inc/stamp.cuh") && note.contains("__TIMESTAMP__"),
        "{note:?}"
    );
}

#[test]
fn a_comment_only_edit_next_to_literals_starts_no_compiler() {
    let p = Project::new();
    let src = "// A kernel.\n#include \"params.cuh\"\n__device__ const char text[] = \
               R\"(one\n\ntwo)\";\nextern \"C\" __global__ void k(char *out) {\n  \
               out[0] = text[SCALE] + '\"';\n}\n";
    p.write("kernels/k.cu", src);
    p.write("inc/params.cuh", "#define SCALE 2\n");
    let cold = p.build(true);
    assert_eq!(cold.jobs_run, 2, "{cold}");
    p.write("kernels/k.cu", &src.replace("// A kernel.\n", COMMENTS));
    p.write(
        "inc/params.cuh",
        "// the scale\n\n#define SCALE 2 /* two */\n",
    );
    let r = p.build(true);
    assert_eq!(r.jobs_run, 0, "a compiler ran: {r}");
    assert_eq!(r.processes_started, 1, "one preprocessor run: {r}");
    assert!(
        r.jobs
            .iter()
            .any(|j| j.served == archbuild::Served::Preprocessed),
        "{r}"
    );
    assert!(Project::fatbin(&r) == Project::fatbin(&cold));
    assert!(r.jobs.iter().all(|j| j.served.note().is_none()), "{r}");
}

/// A header stamped in the future (an archive unpacked from a machine whose clock is ahead, as
/// first suspected on the GPU host, `results/gpu.md`, 2026-11-25): direct mode cannot record
/// which content the result belongs to, but the next build still tries preprocessor mode, so a
/// comment-only edit of the source starts no cicc. Before, no manifest was recorded and every
/// later build compiled again.
#[test]
fn a_header_stamped_in_the_future_still_lets_a_comment_only_edit_start_no_cicc() {
    let p = Project::new();
    p.write("inc/h.h", "#define SCALE 3.0f\n");
    p.write(
        "kernels/k.cu",
        "#include \"h.h\"\nextern \"C\" __global__ void k(float *x) { x[0] *= SCALE; }\n",
    );
    let future = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(p.dir.path().join("pkg/inc/h.h"))
        .unwrap()
        .set_modified(future)
        .unwrap();
    let first = p.build(true);
    assert!(first.jobs.iter().any(|j| !j.served.cached()));
    p.write(
        "kernels/k.cu",
        "// a comment-only edit\n#include \"h.h\"\nextern \"C\" __global__ void k(float *x) { x[0] *= SCALE; }\n",
    );
    let second = p.build(true);
    let cicc: Vec<_> = second
        .jobs
        .iter()
        .filter(|j| j.phase == JobPhase::Cicc)
        .collect();
    assert!(
        cicc.iter()
            .all(|j| j.served.cached() && (j.served == archbuild::Served::Preprocessed)),
        "cicc ran again: {second}"
    );
    assert_eq!(Project::fatbin(&second), Project::fatbin(&p.build(false)));
}

/// The cicc jobs' `miss` lines of a report.
fn misses(r: &BuildReport) -> Vec<String> {
    r.jobs
        .iter()
        .filter(|j| j.phase == JobPhase::Cicc && !j.served.cached())
        .map(|j| {
            j.served
                .miss()
                .map(ToString::to_string)
                .unwrap_or_else(|| "(none)".into())
        })
        .collect()
}

#[test]
fn a_rebuild_that_compiles_says_which_input_changed_and_a_cache_that_cannot_store_says_so() {
    let p = Project::new();
    p.write("inc/scale.cuh", "#define SCALE 2.0f\n");
    p.write(
        "kernels/k.cu",
        "#include \"scale.cuh\"\nextern \"C\" __global__ void k(float *x) { x[0] *= SCALE; }\n",
    );
    let first = p.build(true);
    assert_eq!(
        misses(&first),
        ["not built before with these settings"],
        "{first}"
    );
    p.write("inc/scale.cuh", "#define SCALE 3.0f\n");
    let second = p.build(true);
    assert_eq!(
        misses(&second),
        ["changed since the last build: inc/scale.cuh; the preprocessed source is new"],
        "{second}"
    );
    assert!(
        second
            .jobs
            .iter()
            .all(|j| j.served.cached() || j.served.note().is_none()),
        "{second}"
    );
    // A cache that cannot store (its PTX directory replaced by a file): the build still
    // succeeds with the right output, and each job it could not store says so.
    let ptx_dir = walk(&p.dir.path().join("cache"))
        .into_iter()
        .find(|d| d.is_dir() && d.file_name().is_some_and(|n| n == "ptx"))
        .expect("the cache has a ptx directory");
    std::fs::remove_dir_all(&ptx_dir).unwrap();
    std::fs::write(&ptx_dir, "not a directory").unwrap();
    p.write("inc/scale.cuh", "#define SCALE 4.0f\n");
    let third = p.build(true);
    let fresh = p.build(false);
    assert!(
        Project::fatbin(&third) == Project::fatbin(&fresh),
        "{third}"
    );
    let note = third
        .jobs
        .iter()
        .find(|j| j.phase == JobPhase::Cicc)
        .and_then(|j| j.served.note().map(str::to_owned))
        .unwrap_or_default();
    assert!(
        note.starts_with("not cached: the cache could not store the PTX ("),
        "{note}"
    );
}

/// Every path under `dir`, directories before their contents.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        out.push(p.clone());
        if p.is_dir() {
            out.extend(walk(&p));
        }
    }
    out
}

/// glibc 2.38+'s C++ `assert`, as Ubuntu 24.04's `<assert.h>` defines it (this machine's older
/// glibc expands `__LINE__` instead), so the test reads the same text on every machine.
const GLIBC_ASSERT: &str = "#include <assert.h>\n#define CHECK(e) (static_cast <bool> (e) ? void (0) : \
     __assert_fail (#e, __builtin_FILE (), __builtin_LINE (), __extension__ __PRETTY_FUNCTION__))\n";

#[test]
fn an_assert_reading_its_line_lets_a_comment_elsewhere_start_no_cicc_and_sees_its_own_move() {
    let p = Project::new();
    let check =
        format!("{GLIBC_ASSERT}__device__ inline void check(int i, int n) {{ CHECK(i < n); }}\n");
    let other = "__device__ inline int width() { return 64; }\n";
    p.write("inc/other.cuh", other);
    p.write("inc/check.cuh", &check);
    p.write(
        "kernels/k.cu",
        "#include \"other.cuh\"\n#include \"check.cuh\"\n\
         extern \"C\" __global__ void k(float *x) { check(threadIdx.x, width()); x[0] = 1.0f; }\n",
    );
    let first = p.build(true);
    assert!(first.jobs_run > 0, "{first}");
    // A comment in a header included before: its lines move, the assert's place does not.
    p.write("inc/other.cuh", &format!("{COMMENTS}{other}"));
    let moved_elsewhere = p.build(true);
    let cicc_runs = |r: &BuildReport| {
        r.jobs
            .iter()
            .filter(|j| j.phase == JobPhase::Cicc && !j.served.cached())
            .count()
    };
    assert_eq!(cicc_runs(&moved_elsewhere), 0, "{moved_elsewhere}");
    let before = Project::fatbin(&moved_elsewhere);
    assert!(before == Project::fatbin(&p.build(false)));
    // The assert itself moves: its line is in the PTX, so cicc runs and the output changes.
    p.write(
        "inc/check.cuh",
        &check.replace("__device__", "// moved\n__device__"),
    );
    let moved = p.build(true);
    assert!(cicc_runs(&moved) > 0, "{moved}");
    assert!(
        Project::fatbin(&moved) == Project::fatbin(&p.build(false)),
        "{moved}"
    );
    assert!(
        Project::fatbin(&moved) != before,
        "the assert's line reaches the PTX"
    );
}
