//! Direct mode keys on the paths the compiler was seen to look at (`plan/observe.rs`), with the
//! real toolkit and the host's gcc: for each way a preprocessor finds a header that a prediction
//! from include directories and the text misses — a computed or line-spliced `__has_include`,
//! a header that appears earlier on the search path than a toolkit header, a directory named
//! inside nvcc's flags, `#include_next` past a `#pragma once` header — a file created after the
//! first build is a miss, and the cached build's output equals a build without the cache. The
//! device side (a kernel build) and the host side (a host library's host object) both.

use std::path::{Path, PathBuf};

use archbuild::{config::Home, Build, BuildReport, Library, Served};
use archbuild_tests::{env_with, toolkit};

struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new(files: &[(&str, &str)]) -> Self {
        let p = Self {
            dir: tempfile::tempdir().unwrap(),
        };
        for (rel, text) in files {
            p.write(rel, text);
        }
        p
    }

    fn pkg(&self) -> PathBuf {
        self.dir.path().join("pkg")
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.pkg().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn env() -> archbuild::Env {
        env_with([("ARCHBUILD_OBSERVE", "on")])
    }

    /// A kernel build of `kernels/k.cu` with `-I inc -I inc2` and `flags`.
    fn kernels(&self, cache: bool, flags: &[&str]) -> (BuildReport, Vec<u8>) {
        let out = if cache { "out" } else { "out-nocache" };
        let mut b = Build::new();
        b.toolkit(toolkit().clone())
            .env(Self::env())
            .home(Home::at(self.dir.path().join("home")))
            .manifest_dir(self.pkg())
            .cache(cache)
            .out_dir(self.dir.path().join(out))
            .file("kernels/k.cu")
            .include("inc")
            .include("inc2")
            .archs("8.6")
            .quiet(true);
        for f in flags {
            b.flag(f);
        }
        let r = b.try_compile("kernels").unwrap_or_else(|e| panic!("{e}"));
        let bytes = std::fs::read(&r.modules[0].fatbin).unwrap();
        (r, bytes)
    }

    /// A host library of `src/lib.cu` with `-I inc -I inc2` and `flags`: the report and the
    /// archive's bytes.
    fn library(&self, cache: bool, flags: &[&str]) -> (BuildReport, Vec<u8>) {
        let out = if cache { "out" } else { "out-nocache" };
        let mut l = Library::new();
        l.toolkit(toolkit().clone())
            .env(Self::env())
            .home(Home::at(self.dir.path().join("home")))
            .manifest_dir(self.pkg())
            .cache(cache)
            .out_dir(self.dir.path().join(out))
            .file("src/lib.cu")
            .include("inc")
            .include("inc2")
            .archs("8.6")
            .cargo_metadata(false)
            .quiet(true);
        for f in flags {
            l.flag(f);
        }
        let r = l.try_compile("lib").unwrap_or_else(|e| panic!("{e}"));
        let archive = &r.library.as_ref().expect("a library report").archive;
        let bytes = std::fs::read(archive).unwrap();
        (r, bytes)
    }
}

/// Builds, lets `change` create a file, then checks the cached build is no hit from the first
/// one and equals a cache-off build.
fn kernels_see(files: &[(&str, &str)], flags: &[&str], change: (&str, &str)) {
    let p = Project::new(files);
    let (first, before) = p.kernels(true, flags);
    assert!(first.jobs_run > 0);
    let (again, same) = p.kernels(true, flags);
    assert_eq!(
        again.jobs_run, 0,
        "an unchanged rebuild compiles nothing: {again}"
    );
    assert_eq!(before, same);
    p.write(change.0, change.1);
    let (cached, bytes) = p.kernels(true, flags);
    let (_, fresh) = p.kernels(false, flags);
    assert!(
        !cached.jobs.iter().any(|j| j.served == Served::Hit),
        "direct mode served a result from before {} appeared: {cached}",
        change.0
    );
    assert!(
        bytes == fresh,
        "the cached build differs from a cache-off build"
    );
    assert!(bytes != before, "the new file changes the output");
}

const SCALE_USER: &str = "extern \"C\" __global__ void k(float *x) { x[0] = SCALE; }\n";

#[test]
fn a_header_a_computed_has_include_names_appearing_later_is_a_miss() {
    let k = format!(
        "#define OPT \"tune.cuh\"\n#if __has_include(OPT)\n#include OPT\n#else\n#define SCALE 1.0f\n#endif\n{SCALE_USER}"
    );
    kernels_see(
        &[("kernels/k.cu", &k), ("inc/.keep", "")],
        &[],
        ("inc/tune.cuh", "#define SCALE 3.0f\n"),
    );
}

#[test]
fn a_header_a_line_spliced_has_include_names_appearing_later_is_a_miss() {
    let k = format!(
        "#if __has_include(\"tu\\\nne.cuh\")\n#include \"tune.cuh\"\n#else\n#define SCALE 1.0f\n#endif\n{SCALE_USER}"
    );
    kernels_see(
        &[("kernels/k.cu", &k), ("inc/.keep", "")],
        &[],
        ("kernels/tune.cuh", "#define SCALE 4.0f\n"),
    );
}

#[test]
fn a_header_appearing_before_a_toolkit_header_on_the_search_path_is_a_miss() {
    // `-I inc` comes before the toolkit's include directory: an `inc/cuda_fp16.h` would be
    // the one found.
    let k =
        format!("#include <cuda_fp16.h>\n#ifndef SCALE\n#define SCALE 1.0f\n#endif\n{SCALE_USER}");
    kernels_see(
        &[("kernels/k.cu", &k), ("inc/.keep", "")],
        &[],
        (
            "inc/cuda_fp16.h",
            "#pragma once\n#include_next <cuda_fp16.h>\n#define SCALE 5.0f\n",
        ),
    );
}

#[test]
fn a_header_in_a_directory_named_inside_nvcc_flags_is_a_miss() {
    let k = format!("#include \"params.cuh\"\n{SCALE_USER}");
    kernels_see(
        &[
            ("kernels/k.cu", &k),
            ("inc/params.cuh", "#define SCALE 2.0f\n"),
            ("flaginc/.keep", ""),
        ],
        &["-Iflaginc"],
        ("flaginc/params.cuh", "#define SCALE 6.0f\n"),
    );
}

#[test]
fn a_header_include_next_reaches_appearing_between_two_directories_is_a_miss() {
    // inc/params.cuh (`#pragma once`) goes on to the next directory's params.cuh: one created
    // in a directory between them (`-I inc -I mid -I inc2` through the flag) is found instead.
    let k = format!("#include \"params.cuh\"\n#include \"params.cuh\"\n{SCALE_USER}");
    kernels_see(
        &[
            ("kernels/k.cu", &k),
            (
                "inc/params.cuh",
                "#pragma once\n#include_next <params.cuh>\n",
            ),
            ("inc2/params.cuh", "#define SCALE 2.0f\n"),
            ("mid/.keep", ""),
        ],
        &["-Iinc", "-Imid"],
        ("mid/params.cuh", "#define SCALE 7.0f\n"),
    );
}

/// A host library source whose host code (only) reads what `host` includes.
fn host_source(host: &str) -> String {
    format!(
        "#ifndef __CUDA_ARCH__\n{host}\n#endif\n#ifndef HOST_SCALE\n#define HOST_SCALE 1\n#endif\n\
         __global__ void k(int *o) {{ o[0] = 1; }}\n\
         extern \"C\" int run(int *d) {{ k<<<1, 1>>>(d); return HOST_SCALE; }}\n"
    )
}

/// [`kernels_see`] for a host library's host object.
fn host_sees(host: &str, files: &[(&str, &str)], flags: &[&str], change: (&str, &str)) {
    let source = host_source(host);
    let mut all = vec![
        ("src/lib.cu", source.as_str()),
        ("inc/.keep", ""),
        ("inc2/.keep", ""),
    ];
    all.extend_from_slice(files);
    let p = Project::new(&all);
    let (first, before) = p.library(true, flags);
    assert!(first.jobs_run > 0);
    p.write(change.0, change.1);
    let (cached, bytes) = p.library(true, flags);
    let (_, fresh) = p.library(false, flags);
    let objects = &cached.library.as_ref().unwrap().objects;
    assert!(
        !objects.iter().any(|o| o.served == Served::Hit),
        "the host object was served from before {} appeared: {objects:?}",
        change.0
    );
    assert!(
        member_objects(&bytes) == member_objects(&fresh),
        "the cached build differs from a cache-off build"
    );
    assert!(member_objects(&bytes) != member_objects(&before));
}

#[test]
fn the_host_side_sees_a_header_its_computed_has_include_names_appearing_later() {
    host_sees(
        "#define HOST_OPT \"host_tune.h\"\n#if __has_include(HOST_OPT)\n#include HOST_OPT\n#endif",
        &[],
        &[],
        ("inc/host_tune.h", "#define HOST_SCALE 9\n"),
    );
}

#[test]
fn the_host_side_sees_a_header_in_a_directory_named_inside_nvcc_flags() {
    host_sees(
        "#include \"hparams.h\"",
        &[
            ("inc/hparams.h", "#define HOST_SCALE 2\n"),
            ("flaginc/.keep", ""),
        ],
        &["-Iflaginc"],
        ("flaginc/hparams.h", "#define HOST_SCALE 6\n"),
    );
}

#[test]
fn the_host_side_sees_a_header_include_next_reaches_past_a_pragma_once_header() {
    host_sees(
        "#include \"hparams.h\"\n#include \"hparams.h\"",
        &[
            ("inc/hparams.h", "#pragma once\n#include_next <hparams.h>\n"),
            ("inc2/hparams.h", "#define HOST_SCALE 2\n"),
            ("mid/.keep", ""),
        ],
        &["-Iinc", "-Imid"],
        ("mid/hparams.h", "#define HOST_SCALE 7\n"),
    );
}

#[test]
fn the_host_side_sees_a_header_appearing_before_a_toolkit_header() {
    host_sees(
        "#include <cuda_fp16.h>",
        &[],
        &[],
        (
            "inc/cuda_fp16.h",
            "#pragma once\n#include_next <cuda_fp16.h>\n#define HOST_SCALE 5\n",
        ),
    );
}

/// An archive's member contents (the archive's own header holds times).
fn member_objects(archive: &[u8]) -> Vec<Vec<u8>> {
    let dir = tempfile::tempdir().unwrap();
    let path: &Path = &dir.path().join("lib.a");
    std::fs::write(path, archive).unwrap();
    archbuild_tests::run(
        std::process::Command::new("ar")
            .arg("x")
            .arg(path)
            .current_dir(dir.path()),
    );
    let mut out: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "o"))
        .map(|e| (e.path(), std::fs::read(e.path()).unwrap()))
        .collect();
    out.sort();
    out.into_iter().map(|(_, b)| b).collect()
}

/// A FIFO where the preprocessor never looks (a later directory than the one that has the
/// header) must not hang a build: nothing archbuild reads may block. Cold, warm, observed and
/// predicted, each within a bound.
#[test]
fn a_fifo_among_the_include_candidates_hangs_no_build() {
    let k =
        format!("#if __has_include(\"params.cuh\")\n#include \"params.cuh\"\n#endif\n{SCALE_USER}");
    let p = Project::new(&[
        ("kernels/k.cu", &k),
        ("inc/params.cuh", "#define SCALE 2.0f\n"),
    ]);
    let fifo = p.pkg().join("inc2/params.cuh");
    std::fs::create_dir_all(fifo.parent().unwrap()).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let pkg = p.pkg();
    let home = p.dir.path().join("home");
    for observe in ["off", "on", "off", "on"] {
        let (pkg, home) = (pkg.clone(), home.clone());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let r = Build::new()
                .toolkit(toolkit().clone())
                .env(env_with([("ARCHBUILD_OBSERVE", observe)]))
                .home(Home::at(home))
                .manifest_dir(&pkg)
                .out_dir(pkg.join("out"))
                .file("kernels/k.cu")
                .include("inc")
                .include("inc2")
                .archs("8.6")
                .quiet(true)
                .try_compile("kernels")
                .map_err(|e| e.to_string());
            let _ = tx.send(r);
        });
        let r = rx
            .recv_timeout(std::time::Duration::from_secs(180))
            .unwrap_or_else(|_| panic!("the build with ARCHBUILD_OBSERVE={observe} hung"));
        r.unwrap_or_else(|e| panic!("{e}"));
    }
}
