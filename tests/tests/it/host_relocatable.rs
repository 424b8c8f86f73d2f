//! A host library of relocatable device code with the real toolkit: `<<<…>>>` launches of
//! kernels that call a `__device__` function and write a `__device__` variable of another file.
//! Each object embeds what `nvcc -rdc=true -c` embeds (its relocatable images, in
//! `__nv_relfatbin`), the archive holds the device link `nvcc -dlink` makes of them, and a C++
//! program links against it with the CUDA runtime and the device runtime; the cache serves a
//! rebuild with no process and equals a cache-off build.

use std::path::{Path, PathBuf};
use std::process::Command;

use archbuild::{config::Home, BuildReport, Library};
use archbuild_tests::{output, path_env, run, tool, toolkit};

use crate::host_library::members;

const ARCHS: &str = "8.6 9.0+PTX";

const SCALE_H: &str = "#pragma once\nextern __device__ float scale_factor;\n\
                       __device__ float scale(float x);\n";
const SCALE: &str = "#include \"scale.h\"\n__device__ float scale_factor = 2.0f;\n\
                     __device__ float scale(float x) { return x * scale_factor; }\n";
/// The kernels and their host launches, in the other file.
pub(crate) const LAUNCH: &str = r#"#include <cuda_runtime.h>
#include <cstdio>
#include "scale.h"

__global__ void set_factor(float f) { scale_factor = f; }
__global__ void scaled(const float* a, float* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = scale(a[i]);
}

// out = a * factor on GPU 0 (factor 0: the variable's initial value); 0, else the cudaError_t.
extern "C" int rdc_scale(const float* a, float* out, unsigned int n, float factor,
                         char* err, size_t len) {
    float *da = nullptr, *dout = nullptr;
    cudaError_t e = cudaMalloc(&da, n * sizeof(float));
    if (e == cudaSuccess) e = cudaMalloc(&dout, n * sizeof(float));
    if (e == cudaSuccess) e = cudaMemcpy(da, a, n * sizeof(float), cudaMemcpyHostToDevice);
    if (e == cudaSuccess && factor != 0.0f) {
        set_factor<<<1, 1>>>(factor);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) {
        scaled<<<(n + 255) / 256, 256>>>(da, dout, n);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpy(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(dout);
    if (e != cudaSuccess) {
        std::snprintf(err, len, "%s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
        return static_cast<int>(e);
    }
    return 0;
}
"#;

/// A program that runs `rdc_scale` twice and checks both results; exit 0 only when both are
/// right, 2 when there is no GPU.
pub(crate) const MAIN: &str = r#"#include <cstdio>
#include <cstddef>
extern "C" int rdc_scale(const float*, float*, unsigned int, float, char*, size_t);
int main() {
    const unsigned int n = 4096;
    static float a[4096], out[4096];
    for (unsigned int i = 0; i < n; ++i) a[i] = float(i % 1000);
    const float factors[2] = {0.0f, 3.0f}, expect[2] = {2.0f, 3.0f};
    for (int k = 0; k < 2; ++k) {
        char err[256] = {0};
        int rc = rdc_scale(a, out, n, factors[k], err, sizeof err);
        if (rc != 0) {
            std::printf("error: %s\n", err);
            return rc == 100 || rc == 35 || rc == 34 ? 2 : 1;
        }
        for (unsigned int i = 0; i < n; ++i) {
            if (out[i] != a[i] * expect[k]) {
                std::printf("wrong: out[%u] = %g, expected %g\n", i, out[i], a[i] * expect[k]);
                return 1;
            }
        }
        std::printf("scale_factor %g: %u elements checked on the CPU: OK\n", expect[k], n);
    }
    return 0;
}
"#;

fn package(at: &Path) -> PathBuf {
    let dir = at.join("pkg");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    for (name, text) in [
        ("scale.h", SCALE_H),
        ("scale.cu", SCALE),
        ("launch.cu", LAUNCH),
    ] {
        std::fs::write(dir.join("src").join(name), text).unwrap();
    }
    dir
}

fn build(pkg: &Path, home: &Path, out: &str, cache: bool) -> BuildReport {
    let mut l = Library::new();
    l.toolkit(toolkit().clone())
        .env(path_env())
        .home(Home::at(home))
        .manifest_dir(pkg)
        .out_dir(pkg.join(out))
        .archs(ARCHS)
        .files(["src/scale.cu", "src/launch.cu"])
        .relocatable_device_code(true)
        .cache(cache)
        .cargo_metadata(false)
        .quiet(true);
    l.try_compile("rdc").unwrap_or_else(|e| panic!("{e}"))
}

/// `cuobjdump -xelf all` of an object: its cubins' bytes, sorted by name suffix.
fn cubins(object: &Path) -> Vec<(String, Vec<u8>)> {
    let dir = tempfile::tempdir().unwrap();
    output(
        Command::new(tool("cuobjdump"))
            .args(["-xelf", "all"])
            .arg(object)
            .current_dir(dir.path()),
    );
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let suffix = name.rsplit('.').nth(1).unwrap_or_default().to_owned();
            (suffix, std::fs::read(e.path()).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// The program linked against the archive as Cargo would link it: the archive, the device
/// runtime, the static CUDA runtime and its system libraries.
pub(crate) fn link_program(r: &BuildReport, dir: &Path) -> PathBuf {
    let lib = r.library.as_ref().unwrap();
    let main = dir.join("main.cpp");
    std::fs::write(&main, MAIN).unwrap();
    let exe = dir.join("rdc_main");
    let mut cmd = Command::new("g++");
    cmd.arg(&main).arg("-o").arg(&exe);
    for line in &lib.link {
        let (_, v) = line.split_once('=').unwrap();
        match v.split_once('=') {
            Some(("native", d)) => cmd.arg(format!("-L{d}")),
            Some((kind, l)) if kind.starts_with("static") => {
                cmd.args(["-Wl,-Bstatic", &format!("-l{l}"), "-Wl,-Bdynamic"])
            }
            Some((_, l)) => cmd.arg(format!("-l{l}")),
            None => &mut cmd,
        };
    }
    run(&mut cmd);
    exe
}

#[test]
fn a_relocatable_host_library_embeds_nvccs_images_holds_its_device_link_and_links() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = package(dir.path());
    let home = dir.path().join("home");
    let first = build(&pkg, &home, "out", true);
    let lib = first.library.as_ref().unwrap();
    // scale.cu has no kernel, as a file of device functions to link against has none.
    assert!(first.warnings.is_empty(), "{:?}", first.warnings);
    let names: Vec<String> = members(&lib.archive).into_iter().map(|m| m.0).collect();
    assert_eq!(names, ["launch.o", "rdc_device_link.o", "scale.o"]);

    // nvcc's own: each file with `-rdc=true -c`, then `-dlink` of both.
    let nvcc = tool("nvcc");
    let gencode = [
        "-gencode=arch=compute_86,code=sm_86",
        "-gencode=arch=compute_90,code=[sm_90,compute_90]",
    ];
    for f in ["scale", "launch"] {
        run(Command::new(&nvcc)
            .current_dir(&pkg)
            .args(["-rdc=true", "-c"])
            .args(gencode)
            .arg(format!("src/{f}.cu"))
            .arg("-o")
            .arg(dir.path().join(format!("{f}.o"))));
    }
    run(Command::new(&nvcc)
        .current_dir(dir.path())
        .args([
            "-dlink",
            "-gencode=arch=compute_86,code=sm_86",
            "-gencode=arch=compute_90,code=sm_90",
        ])
        .args(["scale.o", "launch.o", "-o", "dlink.o"]));
    let ours = tempfile::tempdir().unwrap();
    for (name, bytes) in members(&lib.archive) {
        std::fs::write(ours.path().join(name), bytes).unwrap();
    }
    for (mine, theirs) in [
        ("scale.o", "scale.o"),
        ("launch.o", "launch.o"),
        ("rdc_device_link.o", "dlink.o"),
    ] {
        let (a, b) = (
            cubins(&ours.path().join(mine)),
            cubins(&dir.path().join(theirs)),
        );
        assert_eq!(
            a.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(),
            b.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(),
            "{mine}"
        );
        for ((name, x), (_, y)) in a.iter().zip(&b) {
            assert!(x == y, "{mine}: {name} differs from nvcc's");
        }
    }

    // It links (every `__cudaRegisterLinkedBinary_<id>` the objects call is defined) and runs:
    // on a machine without a GPU, as far as the runtime's device query.
    let exe = link_program(&first, dir.path());
    let ran = Command::new(&exe).output().unwrap();
    let text = String::from_utf8_lossy(&ran.stdout);
    match ran.status.code() {
        Some(0) => assert!(text.contains("scale_factor 3: 4096 elements"), "{text}"),
        Some(2) => println!("SKIPPED the GPU run: {text}"),
        other => panic!("{other:?}: {text}"),
    }

    let again = build(&pkg, &home, "out", true);
    assert_eq!(again.processes_started, 0, "{:#?}", again.jobs);
    let off = build(&pkg, &home, "out-off", false);
    assert_eq!(
        members(&off.library.as_ref().unwrap().archive),
        members(&lib.archive)
    );
}
