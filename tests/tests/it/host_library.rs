//! Host libraries (`archbuild::Library`) with the real toolkit: `.cu` files with host code and
//! `<<<…>>>` launches built into a static archive, each source's device side through the job
//! graph and its host side once with archbuild's fat binary embedded. Checked against `nvcc -c`
//! of the same file, host and device names checked to agree, and the cache checked the ways a
//! kernel build's is: a comment-only header edit, a second machine sharing a remote, a host flag
//! against a cache-off build.

use std::path::{Path, PathBuf};
use std::process::Command;

use archbuild::{config::Home, BuildReport, JobPhase, Library};
use archbuild_tests::{output, path_env, repo_root, run, tool, toolkit};

const ARCHS: &str = "8.6 8.9+PTX";

/// Internal-linkage device code (an anonymous namespace, a `static` kernel, a `__device__`
/// variable): names the module ID seeds, registered by the host side by those names.
const ANON: &str = r#"#include "common.h"
namespace {
__device__ int counter;
__global__ void bump(int *o) { o[0] = ++counter + COMMON_OFFSET; }
}
static __global__ void twice(int *o) { o[0] *= 2; }
extern "C" int anon_run(int *d) {
    bump<<<1, 1>>>(d);
    twice<<<1, 1>>>(d);
#ifdef HOST_SCALE
    return HOST_SCALE;
#else
    return 0;
#endif
}
"#;

const COMMON: &str = "// Shared by the library's sources.\n#define COMMON_OFFSET 3\n";

/// A package with the host_cuda example's source and `anon.cu`.
fn package(at: &Path) -> PathBuf {
    let dir = at.join("pkg");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::copy(
        repo_root().join("examples/host_cuda/src/vector_add.cu"),
        dir.join("src/vector_add.cu"),
    )
    .unwrap();
    std::fs::write(dir.join("src/anon.cu"), ANON).unwrap();
    std::fs::write(dir.join("src/common.h"), COMMON).unwrap();
    dir
}

fn library(pkg: &Path, home: &Path) -> Library {
    let mut l = Library::new();
    l.toolkit(toolkit().clone())
        .env(path_env())
        .home(Home::at(home))
        .manifest_dir(pkg)
        .out_dir(pkg.join("out"))
        .archs(ARCHS)
        .files(["src/vector_add.cu", "src/anon.cu"])
        .cargo_metadata(false)
        .quiet(true);
    l
}

fn compile(l: &mut Library) -> BuildReport {
    l.try_compile("lib").unwrap_or_else(|e| panic!("{e}"))
}

/// The archive's members, by name.
pub(crate) fn members(archive: &Path) -> Vec<(String, Vec<u8>)> {
    let dir = tempfile::tempdir().unwrap();
    run(Command::new("ar")
        .arg("x")
        .arg(archive)
        .current_dir(dir.path()));
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| {
            let bytes = std::fs::read(e.path()).unwrap();
            (e.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect();
    out.sort();
    out
}

fn member(r: &BuildReport, name: &str) -> Vec<u8> {
    let lib = r.library.as_ref().expect("a library report");
    members(&lib.archive)
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no {name} in {}", lib.archive.display()))
        .1
}

/// `cuobjdump -xelf all -xptx all` of an object: `(suffix like sm_86.cubin, bytes)`.
fn images(object: &[u8]) -> Vec<(String, Vec<u8>)> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.o");
    std::fs::write(&path, object).unwrap();
    for what in ["-xelf", "-xptx"] {
        output(
            Command::new(tool("cuobjdump"))
                .args([what, "all"])
                .arg(&path)
                .current_dir(dir.path()),
        );
    }
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let suffix = name.split_once('.').map(|(_, s)| s.to_owned())?;
            (suffix.ends_with(".cubin") || suffix.ends_with(".ptx"))
                .then(|| (suffix, std::fs::read(e.path()).unwrap()))
        })
        .collect();
    out.sort();
    out
}

/// PTX without comments and with single spaces: nvcc's `fatbinary` strips comments (the
/// generator banner, `// .globl`) and collapses white space when it embeds PTX; archbuild
/// embeds what cicc wrote. The instructions are the same.
fn without_comments(ptx: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(ptx)
        .lines()
        .map(|l| {
            let code = l.split("//").next().unwrap_or("");
            code.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn each_embedded_image_equals_nvcc_c_of_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = package(dir.path());
    let r = compile(&mut library(&pkg, &dir.path().join("home")));
    let lib = r.library.as_ref().unwrap();
    assert_eq!(lib.objects.len(), 2, "{lib:?}");
    assert!(lib
        .link
        .contains(&"cargo::rustc-link-lib=static=lib".to_string()));
    assert!(lib
        .link
        .contains(&"cargo::rustc-link-lib=static=cudart_static".to_string()));
    let ours = images(&member(&r, "vector_add.o"));
    let nvcc_obj = dir.path().join("nvcc.o");
    // nvcc names the source by its absolute path, archbuild by its path in the package (so
    // checkouts share entries): the path seeds the module ID, which names the internal
    // symbols (`host_add_offset`), so nvcc is told archbuild's (`-Xcudafe` reaches cudafe++
    // and cicc, after nvcc's own).
    let mut nvcc = Command::new(tool("nvcc"));
    nvcc.current_dir(&pkg).arg("-c").args([
        "-Xcudafe",
        "--orig_src_path_name",
        "-Xcudafe",
        "src/vector_add.cu",
    ]);
    for f in r.arch_list().gencode_flags() {
        nvcc.arg(f);
    }
    output(nvcc.arg("src/vector_add.cu").arg("-o").arg(&nvcc_obj));
    let theirs = images(&std::fs::read(&nvcc_obj).unwrap());
    let names = |v: &[(String, Vec<u8>)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&ours), names(&theirs));
    assert_eq!(
        names(&ours),
        ["1.sm_86.cubin", "1.sm_89.ptx", "2.sm_89.cubin"]
    );
    for ((name, a), (_, b)) in ours.iter().zip(&theirs) {
        if name.ends_with(".cubin") {
            assert!(a == b, "{name}: the cubins differ");
        } else {
            assert_eq!(without_comments(a), without_comments(b), "{name}");
        }
    }
}

/// Identifiers in `bytes` that contain `needle` (`_GLOBAL__N__…`), as C strings and symbols.
fn names_with(bytes: &[u8], needle: &str) -> Vec<String> {
    let mut out: Vec<String> = bytes
        .split(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .filter(|w| w.contains(needle))
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn host_registration_names_the_device_symbols_of_internal_kernels() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = package(dir.path());
    let r = compile(&mut library(&pkg, &dir.path().join("home")));
    let object = member(&r, "anon.o");
    let host = names_with(&object, "_GLOBAL__N__");
    let kernel = host
        .iter()
        .find(|n| n.ends_with("4bumpEPi"))
        .unwrap_or_else(|| panic!("no registration of bump in the host object: {host:?}"));
    for (name, cubin) in images(&object)
        .iter()
        .filter(|(n, _)| n.ends_with(".cubin"))
    {
        let device = names_with(cubin, "_GLOBAL__N__");
        assert!(
            device.contains(kernel),
            "{name}: the host registers {kernel}, the device has {device:?}"
        );
    }
}

#[test]
fn a_comment_only_header_edit_starts_no_cicc_and_matches_a_cache_off_build() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = package(dir.path());
    let home = dir.path().join("home");
    let first = compile(&mut library(&pkg, &home));
    assert!(first.jobs.iter().any(|j| !j.served.cached()));
    std::fs::write(
        pkg.join("src/common.h"),
        format!("// A new comment line, which moves every line below it.\n{COMMON}"),
    )
    .unwrap();
    let second = compile(&mut library(&pkg, &home));
    let cicc_runs: Vec<_> = second
        .jobs
        .iter()
        .filter(|j| j.phase == JobPhase::Cicc && !j.served.cached())
        .map(|j| format!("{} {}", j.module, j.target))
        .collect();
    assert!(cicc_runs.is_empty(), "cicc ran for {cicc_runs:?}");
    let objs = &second.library.as_ref().unwrap().objects;
    let vector_add = objs.iter().find(|o| o.module == "vector_add").unwrap();
    assert!(
        vector_add.served.cached(),
        "vector_add does not include the header"
    );
    let mut off = library(&pkg, &home);
    off.cache(false).out_dir(pkg.join("out-nocache"));
    let cold = compile(&mut off);
    for name in ["vector_add.o", "anon.o"] {
        assert!(
            member(&second, name) == member(&cold, name),
            "{name}: the cached build's object differs from a cache-off build's"
        );
    }
}

#[test]
fn a_host_flag_is_in_the_key_and_the_object_matches_a_cache_off_build() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = package(dir.path());
    let home = dir.path().join("home");
    let mut objects = Vec::new();
    for scale in ["2", "5"] {
        let mut l = library(&pkg, &home);
        l.host_flag(&format!("-DHOST_SCALE={scale}"));
        let cached = compile(&mut l);
        let mut off = library(&pkg, &home);
        off.host_flag(&format!("-DHOST_SCALE={scale}"))
            .cache(false)
            .out_dir(pkg.join(format!("out-off-{scale}")));
        let cold = compile(&mut off);
        let obj = member(&cached, "anon.o");
        assert!(
            obj == member(&cold, "anon.o"),
            "HOST_SCALE={scale}: cached and cache-off objects differ"
        );
        // The device side does not see host-only flags: its jobs are the first build's.
        if scale == "5" {
            assert!(cached.jobs.iter().all(|j| j.served.cached()), "{cached}");
        }
        objects.push(obj);
    }
    assert_ne!(objects[0], objects[1], "the host flag changed nothing");
}

#[test]
fn a_second_machine_with_the_shared_cache_starts_no_compiler() {
    let shared = tempfile::tempdir().unwrap();
    let url = format!("file://{}", shared.path().display());
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let pkg_a = package(a.path());
    let pkg_b = package(&b.path().join("another/checkout/path"));
    let mut la = library(&pkg_a, &a.path().join("home"));
    la.remote_cache(&url);
    let ra = compile(&mut la);
    assert!(ra.processes_started > 0);
    let mut lb = library(&pkg_b, &b.path().join("home"));
    lb.remote_cache(&url);
    let rb = compile(&mut lb);
    assert_eq!(rb.processes_started, 0, "{rb}");
    assert!(rb
        .library
        .as_ref()
        .unwrap()
        .objects
        .iter()
        .all(|o| o.served.cached()));
    let archive = |r: &BuildReport| std::fs::read(&r.library.as_ref().unwrap().archive).unwrap();
    assert!(
        archive(&ra) == archive(&rb),
        "the second machine's archive differs"
    );
}

/// A host compiler that reads a file no key knows of (as in `verify.rs`), used by host code
/// only: the stale host object is served without verification and caught with it.
#[test]
fn verification_compiles_a_served_host_object_again_and_catches_a_stale_one() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("pkg");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(
        pkg.join("h.cu"),
        "extern \"C\" __global__ void k(float *x) { x[0] = 1.0f; }\n\
         extern \"C\" float host_extra(float *d) { k<<<1, 1>>>(d); return EXTRA; }\n",
    )
    .unwrap();
    let gcc = which::which("gcc").unwrap();
    let extra = dir.path().join("extra.txt");
    let cc = dir.path().join("cc");
    std::fs::create_dir_all(&cc).unwrap();
    std::fs::write(
        cc.join("gcc"),
        format!(
            // Read through `/proc`, which the observer leaves out (the kernel's files are
            // no inputs): a path the key cannot see. A plain `cat` of the file is observed.
            "#!/bin/sh\nexec {} -DEXTRA=\"$(cat /proc/self/root{})\" \"$@\"\n",
            gcc.display(),
            extra.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(cc.join("gcc"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let build = |verify: &str| {
        let mut l = Library::new();
        l.toolkit(toolkit().clone())
            .env(path_env())
            .home(Home::at(dir.path().join("home")))
            .manifest_dir(&pkg)
            .out_dir(pkg.join("out"))
            .archs("8.6")
            .file("h.cu")
            .flag("-ccbin")
            .flag(cc.to_str().unwrap())
            .verify(verify)
            .cargo_metadata(false)
            .quiet(true);
        l.try_compile("lib")
    };
    std::fs::write(&extra, "2.0f").unwrap();
    build("off").unwrap();
    let sound = build("all").unwrap();
    assert!(
        sound.verified >= 3,
        "cicc, ptxas and the host object: {sound}"
    );
    std::fs::write(&extra, "3.0f").unwrap();
    let stale = build("off").unwrap();
    assert!(
        stale.library.as_ref().unwrap().objects[0].served.cached(),
        "the hole is real: the stale object was served"
    );
    let err = build("all").unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(err, archbuild::Error::VerifyMismatch { .. }),
        "{msg}"
    );
    assert!(msg.contains("host object"), "names the job: {msg}");
    let next = build("off").unwrap();
    assert!(
        !next.library.as_ref().unwrap().objects[0].served.cached(),
        "{next}"
    );
}

#[test]
fn a_source_dir_adds_its_cu_files_and_a_missing_one_names_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = package(dir.path());
    let mut l = Library::new();
    l.toolkit(toolkit().clone())
        .env(path_env())
        .home(Home::at(dir.path().join("home")))
        .manifest_dir(&pkg)
        .out_dir(pkg.join("out"))
        .archs("8.6")
        .source_dir("src")
        .cargo_metadata(false)
        .quiet(true);
    let r = compile(&mut l);
    let modules: Vec<&str> = r.modules.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        modules,
        ["anon", "vector_add"],
        "the .cu files, not common.h"
    );
    let mut l = Library::new();
    l.toolkit(toolkit().clone())
        .env(path_env())
        .manifest_dir(&pkg)
        .source_dir("kernels");
    let e = l.try_compile("lib").unwrap_err().to_string();
    let e = e.replace(&pkg.display().to_string(), "<pkg>");
    insta::assert_snapshot!("source_dir_missing", e);
    std::fs::create_dir_all(pkg.join("empty")).unwrap();
    let mut l = Library::new();
    l.toolkit(toolkit().clone())
        .env(path_env())
        .manifest_dir(&pkg)
        .source_dir("empty");
    let e = l.try_compile("lib").unwrap_err().to_string();
    let e = e.replace(&pkg.display().to_string(), "<pkg>");
    insta::assert_snapshot!("source_dir_empty", e);
}

/// The embedded fat binary's C source is the text `fatbinary --embedded-fatbin` writes for the
/// same container (nvcc's kept `.fatbin` and `.fatbin.c`).
#[test]
fn the_embedded_fat_binary_source_is_fatbinarys_text() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = package(dir.path());
    let keep = dir.path().join("keep");
    std::fs::create_dir_all(&keep).unwrap();
    output(
        Command::new(tool("nvcc"))
            .current_dir(&pkg)
            .args(["-c", "-arch=sm_86", "--keep", "--keep-dir"])
            .arg(&keep)
            .arg("src/vector_add.cu")
            .arg("-o")
            .arg(dir.path().join("v.o")),
    );
    let fatbin = std::fs::read(keep.join("vector_add.fatbin")).unwrap();
    let c = std::fs::read_to_string(keep.join("vector_add.fatbin.c")).unwrap();
    assert_eq!(archbuild_fatbin::embedded_c_source(&fatbin), c);
}
