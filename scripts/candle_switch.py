#!/usr/bin/env python3
"""Switches candle's kernels (candle-kernels, candle-core) from cudaforge to archbuild.

    python3 scripts/candle_switch.py WORK [--archs "8.0 8.6 8.9 9.0+PTX"] [--sides ref,switch]
                                          [--bundle DIR]
    python3 scripts/candle_switch.py WORK --bench DIR       (after a run of both sides)

candle-core and candle-kernels 0.11.1 (candle commit 59f8e903ca80, their `.cargo_vcs_info.json`)
are fetched from crates.io into WORK at run time (their checksums checked against the registry's
index); no candle code is in this repository. Two copies are made:

- `WORK/ref`: candle's own build, as its users build it: cudaforge with `CUDA_COMPUTE_CAP=90`
  (cudaforge makes that `sm_90a`), the CUDA 13.0 toolkit archbuild provisions (the GPU host's
  driver is R580, CUDA 13.0: PTX from a newer toolkit would not load there). Every nvcc command
  cudaforge runs is recorded (`WORK/ref/nvcc-commands.jsonl`) for the benchmark's replay.
- `WORK/switch`: the same crates on archbuild:
  - candle-kernels' `build.rs` builds its eleven PTX modules with `archbuild::Build` (one fat
    binary per `.cu`, `kernels::<stem>::FATBIN`) and its MoE/GGUF sources with
    `archbuild::Library` (`libmoe.a`, the link lines printed by archbuild), for the arch list of
    `[package.metadata.archbuild]` (`--archs`; `ptx-toolkit = "13.0"`, so the PTX JITs on the R580
    driver of the fleet's oldest member and the cubins come from the default toolkit);
  - its `-DNO_BF16_KERNEL` (set when *the* detected GPU was older than 8.0) is dropped: the arch
    list starts at 8.0, where every image has the bf16 kernels (`docs/moving-over.md` has the
    recipe for a list that does not: `__CUDA_ARCH__` guards in device code, `Loaded::kernel` in
    host code);
  - `candle_kernels::Module` carries the fat binary instead of a PTX string, and candle-core's one
    call site (`CudaDevice::get_or_load_func`) loads it with `archbuild_runtime::Loader`, which
    picks this GPU's cubin or JIT-compiles the PTX (`ARCHBUILD_LOAD_POLICY=force-ptx` forces the
    latter); `CANDLE_ARCHBUILD_REPORT=1` prints each module's load report.

Both sides change candle-core's cudarc features the same way (`dynamic-loading` instead of
`dynamic-linking`, `cuda-13000` instead of `cuda-version-from-build-system`), so that their test
programs link here without CUDA's libraries and load them on the GPU host.

Each side's candle-core tests are built once here, as one program (`all_tests`: each test file a
module of it, its `crate::` paths pointed at that module; the sixteen programs would be 40–66 MB
each). `--bundle DIR` copies both, stripped, with their data files and
`scripts/candle_tests_run.py` as `run.py`, into DIR: on the GPU host `python3 run.py a b c` runs
the CUDA tests of (a) the switched program (cubins), (b) the same with
`ARCHBUILD_LOAD_POLICY=force-ptx` and (c) candle's own build, and prints the counts.

`--bench DIR` makes the bundle of `scripts/candle_kernels_bench.py` (as `bench.py`): the switched
candle-kernels, its build script compiled as a program, and the recorded nvcc commands.
"""

import argparse
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VERSION = "0.11.1"
CRATES = ("candle-core", "candle-kernels")
PTX_TOOLKIT = "13.0"
# The PTX modules' sources are the crate's `src/*.cu` minus these (its build.rs's `exclude`).
LIB_SOURCES = [
    "src/moe/moe_gguf.cu", "src/moe/moe_wmma.cu", "src/moe/moe_wmma_gguf.cu", "src/mmvq_gguf.cu",
    "src/mmq_gguf/mmq_quantize.cu",
] + [f"src/mmq_gguf/mmq_instance_{q}.cu" for q in
     ("q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k")]

BUILD_RS = r'''// Written by archbuild's scripts/candle_switch.py (the crate's own is build.rs.cudaforge).
use std::path::PathBuf;

const LIB_SOURCES: &[&str] = &@LIB_SOURCES@;

/// For archbuild's benchmark (`scripts/candle_kernels_bench.py`): each job's times, appended to
/// the file `CANDLE_BENCH_TIMES` names; nothing without it.
fn bench_times(what: &'static str) -> impl Fn(&archbuild::JobRecord) + Send + Sync + 'static {
    let path = std::env::var_os("CANDLE_BENCH_TIMES");
    move |j| {
        let Some(path) = &path else { return };
        let end = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        let served = format!("{:?}", j.served).replace(['"', '\\'], "'");
        let line = format!(
            "{{\"what\":\"{what}\",\"module\":\"{}\",\"phase\":\"{:?}\",\"target\":\"{}\",\"served\":\"{served}\",\"start\":{},\"end\":{end}}}\n",
            j.module, j.phase, j.target, end - j.seconds
        );
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
            let _ = f.write_all(line.as_bytes());
        }
    }
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CANDLE_BENCH_TIMES");
    // The PTX modules: every `src/*.cu` not built into the library, one fat binary each.
    let mut modules: Vec<PathBuf> = std::fs::read_dir("src")
        .expect("src/ is readable")
        .map(|e| e.expect("src/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .filter(|p| !LIB_SOURCES.iter().any(|s| p.ends_with(s)))
        .collect();
    modules.sort();
    // cudaforge's flags: the crate's, and the default stream it adds to every nvcc command.
    let flags = ["--expt-relaxed-constexpr", "-std=c++17", "-O3", "--default-stream", "per-thread"];
    let kernels = archbuild::Build::new()
        .files(&modules)
        .flags(flags)
        .provision(true)
        .on_job(bench_times("kernels"))
        .compile("kernels");
    let lib = archbuild::Library::new()
        .files(LIB_SOURCES)
        .flags(flags)
        .flags(["-Xcompiler", "-fPIC"])
        .cudart("shared")
        .provision(true)
        .on_job(bench_times("moe"))
        .compile("moe");
    println!("cargo:rustc-link-lib=stdc++");
    for (what, r) in [("PTX modules", &kernels), ("moe library", &lib)] {
        println!(
            "cargo:warning=archbuild: {what}: {} (`{}`) in {:.2} s: {} jobs, {} from the cache, {} processes",
            r.archs, r.source, r.seconds, r.jobs_planned, r.cache_hits, r.processes_started
        );
    }
}
'''

LIB_RS_HEAD = '''mod fatbins {
    include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
}
'''

MODULE_STRUCT = '''pub struct Module {
    index: usize,
    fatbin: &'static [u8],
}

impl Module {
    pub fn index(&self) -> usize {
        self.index
    }

    /// The module's fat binary (archbuild: a cubin per arch of the list, and PTX).
    pub fn fatbin(&self) -> &'static [u8] {
        self.fatbin
    }
}
'''

LOAD_CALL = "let cuda_module = self.context.load_module(mdl.ptx().into()).w()?;"
LOAD_NEW = '''let fatbin = archbuild_runtime::FatBinary::new(mdl.fatbin()).map_err(crate::Error::wrap)?;
        let loaded = archbuild_loader()?
            .load_in(&fatbin, &self.context)
            .map_err(crate::Error::wrap)?;
        if std::env::var_os("CANDLE_ARCHBUILD_REPORT").is_some() {
            eprintln!("{}", loaded.report);
        }
        let cuda_module = loaded.module;'''
LOADER_FN = '''
/// One archbuild loader for the process (`ARCHBUILD_*` settings read once).
fn archbuild_loader() -> Result<&'static archbuild_runtime::Loader<archbuild_runtime::driver::CudaDriver>> {
    static LOADER: std::sync::OnceLock<archbuild_runtime::Loader<archbuild_runtime::driver::CudaDriver>> = std::sync::OnceLock::new();
    if let Some(l) = LOADER.get() {
        return Ok(l);
    }
    let l = archbuild_runtime::Loader::new().map_err(crate::Error::wrap)?;
    Ok(LOADER.get_or_init(|| l))
}
'''


def run(cmd, **kw) -> subprocess.CompletedProcess:
    print("running:", " ".join(map(str, cmd)), flush=True)
    p = subprocess.run(cmd, **kw)
    if p.returncode != 0:
        sys.exit(f"error: `{' '.join(map(str, cmd))}` failed with exit status {p.returncode}")
    return p


def replace(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replaces `old` exactly `count` times, or stops naming the file (candle changed)."""
    text = path.read_text()
    if text.count(old) != count:
        sys.exit(f"error: expected {count} of {old!r} in {path}, found {text.count(old)}: this "
                 f"script knows candle {VERSION}; patch by hand or update the script")
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text.replace(old, new))
    os.replace(tmp, path)


def fetch(work: Path) -> Path:
    """The two crates from crates.io, checked against the index's checksums, unpacked once."""
    src = work / "src"
    for name in CRATES:
        dest = src / f"{name}-{VERSION}"
        if dest.is_dir():
            continue
        index = urllib.request.urlopen(f"https://index.crates.io/ca/nd/{name}", timeout=60).read()
        rows = [json.loads(l) for l in index.decode().splitlines() if l.strip()]
        want = next((r["cksum"] for r in rows if r["vers"] == VERSION), None)
        if want is None:
            sys.exit(f"error: {name} {VERSION} is not in the crates.io index")
        url = f"https://static.crates.io/crates/{name}/{name}-{VERSION}.crate"
        data = urllib.request.urlopen(url, timeout=120).read()
        if hashlib.sha256(data).hexdigest() != want:
            sys.exit(f"error: {url} does not match the index's sha256 {want}")
        src.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(data)) as t:
            t.extractall(src, filter="data")
    return src


def common(side: Path, src: Path) -> None:
    """A workspace of the two crates, candle-core's lock, cudarc loading its libraries at run time."""
    if side.exists():
        shutil.rmtree(side)
    side.mkdir(parents=True)
    for name in CRATES:
        shutil.copytree(src / f"{name}-{VERSION}", side / name)
    (side / "Cargo.toml").write_text('[workspace]\nmembers = ["candle-core", "candle-kernels"]\n'
                                     'resolver = "2"\n')
    shutil.copy2(side / "candle-core" / "Cargo.lock", side / "Cargo.lock")
    # candle-core's test files as modules of one program (`all_tests`): the programs share
    # candle-core and its dependencies, 40-66 MB each; one program carries them once.
    tests = sorted(p.stem for p in (side / "candle-core" / "tests").glob("*_tests.rs")
                   if p.stem not in ("cutile_tests", "metal_concurrent_tests"))
    for t in tests:
        # A test file's `crate::` meant its own program's root; it is now a module of one.
        f = side / "candle-core" / "tests" / f"{t}.rs"
        f.write_text(f.read_text().replace("crate::", f"crate::{t}::"))
    (side / "candle-core" / "tests" / "all_tests.rs").write_text(
        "// Written by archbuild's scripts/candle_switch.py: candle-core's tests as one program.\n"
        + "".join(f'#[path = "{t}.rs"]\nmod {t};\n' for t in tests))
    core = side / "candle-core" / "Cargo.toml"
    replace(core, '[[test]]\nname = "bilinear_tests"\n',
            '[[test]]\nname = "all_tests"\npath = "tests/all_tests.rs"\n\n'
            '[[test]]\nname = "bilinear_tests"\n')
    replace(core, '    "cuda-version-from-build-system",\n    "dynamic-linking",\n',
            '    "cuda-13000",\n    "dynamic-loading",\n')
    replace(core, f'[dependencies.candle-kernels]\nversion = "{VERSION}"\n',
            f'[dependencies.candle-kernels]\nversion = "{VERSION}"\npath = "../candle-kernels"\n')


def switch(side: Path, archs: str) -> None:
    kern = side / "candle-kernels"
    shutil.copy2(kern / "build.rs", kern / "build.rs.cudaforge")
    rs = BUILD_RS.replace("@LIB_SOURCES@", json.dumps(LIB_SOURCES))
    (kern / "build.rs").write_text(rs)
    replace(kern / "Cargo.toml", '[build-dependencies.cudaforge]\nversion = "0.1.2"\n',
            f'[build-dependencies.archbuild]\npath = "{REPO / "crates" / "archbuild"}"\n\n'
            f'[package.metadata.archbuild]\narchs = "{archs}"\nptx-toolkit = "{PTX_TOOLKIT}"\n')
    lib = kern / "src" / "lib.rs"
    replace(lib, 'mod ptx {\n    include!(concat!(env!("OUT_DIR"), "/ptx.rs"));\n}\n', LIB_RS_HEAD)
    text = lib.read_text()
    text = re.sub(r"pub struct Module \{.*?\n\}\n\nimpl Module \{.*?\n\}\n", MODULE_STRUCT, text,
                  count=1, flags=re.S)
    text = text.replace("ptx: ptx::$cst,", "fatbin: fatbins::$m::FATBIN,")
    text = text.replace("($cst:ident, $id:ident) =>", "($cst:ident, $id:ident, $m:ident) =>")
    text = re.sub(r"mdl!\((\w+), (\w+)\);", lambda m: f"mdl!({m[1]}, {m[2]}, {m[1].lower()});", text)
    (kern / "src" / "lib.rs").write_text(text)
    if "fatbins::$m::FATBIN" not in text or "mdl!(AFFINE, Affine, affine);" not in text:
        sys.exit(f"error: candle-kernels' lib.rs is not the {VERSION} one this script patches")
    core = side / "candle-core"
    replace(core / "Cargo.toml", "[dependencies.cudarc]\n",
            f'[dependencies.archbuild-runtime]\npath = "{REPO / "crates" / "archbuild-runtime"}"\n'
            'optional = true\n\n[dependencies.cudarc]\n')
    replace(core / "Cargo.toml", 'cuda = [\n    "cudarc",\n', 'cuda = [\n    "cudarc",\n'
            '    "dep:archbuild-runtime",\n')
    dev = core / "src" / "cuda_backend" / "device.rs"
    replace(dev, LOAD_CALL, LOAD_NEW)
    with open(dev, "a") as f:
        f.write(LOADER_FN)


def nvcc_recorder(work: Path, toolkit: Path) -> Path:
    """A toolkit tree whose `bin/nvcc` logs each command (argv, start, end) and runs the real one."""
    rec = work / "nvcc-recorder"
    if rec.exists():
        shutil.rmtree(rec)
    (rec / "bin").mkdir(parents=True)
    for d in ("include", "lib", "nvvm"):
        os.symlink(toolkit / d, rec / d)
    for f in (toolkit / "bin").iterdir():
        if f.name != "nvcc":
            os.symlink(f, rec / "bin" / f.name)
    # candle's build script links `cudart` by its unversioned name, which the wheel lacks; the
    # linker finds it here (LIBRARY_PATH, which no crate's fingerprint holds).
    (rec / "link").mkdir()
    os.symlink(toolkit / "lib" / "libcudart.so.13", rec / "link" / "libcudart.so")
    nvcc = rec / "bin" / "nvcc"
    nvcc.write_text(f'''#!{sys.executable}
import json, os, subprocess, sys, time
t0 = time.time()
rc = subprocess.run([{str(toolkit / "bin" / "nvcc")!r}] + sys.argv[1:]).returncode
with open(os.environ["CANDLE_SWITCH_NVCC_LOG"], "a") as f:
    f.write(json.dumps({{"argv": sys.argv[1:], "cwd": os.getcwd(), "start": t0,
                        "end": time.time(), "rc": rc}}) + "\\n")
sys.exit(rc)
''')
    nvcc.chmod(0o755)
    return rec


def toolkit_root(version: str) -> Path:
    """The CUDA toolkit archbuild provisions for `version` (installed when missing)."""
    cli = REPO / "target" / "debug" / "cargo-archbuild"
    if not cli.is_file():
        run(["cargo", "build", "-p", "cargo-archbuild"], cwd=REPO)
    p = run([str(cli), "archbuild", "toolkit", "install", version], capture_output=True, text=True)
    out = p.stdout + p.stderr
    m = re.search(r"at (\S+)/bin/nvcc", out)
    if not m:
        sys.exit(f"error: could not read the toolkit's path from: {out}")
    return Path(m[1])


def build_tests(side: Path, env: dict) -> list:
    """candle-core's tests with CUDA, as one program (`all_tests`), built once; its path."""
    cmd = ["cargo", "test", "--no-run", "-p", "candle-core", "--features", "cuda", "--test",
           "all_tests",
           "--message-format=json-render-diagnostics"]
    p = run(cmd, cwd=side, env=env, stdout=subprocess.PIPE, text=True)
    exes = []
    for line in p.stdout.splitlines():
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            continue
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") and \
                msg["profile"].get("test") and msg["target"]["name"] not in ("candle_core",):
            exes.append(Path(msg["executable"]))
    return exes


def bench_bundle(work: Path, dest: Path) -> None:
    """What `scripts/candle_kernels_bench.py` needs on a GPU host without Rust."""
    kern = work / "switch" / "candle-kernels"
    prog = work / "bench-prog"
    prog.mkdir(exist_ok=True)
    (prog / "Cargo.toml").write_text(
        '[package]\nname = "candle-kernels-build-script"\nversion = "0.0.0"\nedition = "2021"\n'
        f'[workspace]\n[[bin]]\nname = "build-script-build"\npath = "{kern / "build.rs"}"\n'
        f'[dependencies]\narchbuild = {{ path = "{REPO / "crates" / "archbuild"}" }}\n'
        '[profile.release]\nstrip = true\n')
    run(["cargo", "build", "--release", "--manifest-path", str(prog / "Cargo.toml"),
         "--target-dir", str(prog / "target")])
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(prog / "target" / "release" / "build-script-build", dest / "build-script-build")
    if (dest / "crate").exists():
        shutil.rmtree(dest / "crate")
    shutil.copytree(kern, dest / "crate", ignore=shutil.ignore_patterns("target"))
    # The recorded commands, each with the out dir it wrote to (the replay makes it its own).
    rows = []
    for line in (work / "ref" / "nvcc-commands.jsonl").read_text().splitlines():
        r = json.loads(line)
        a = r["argv"]
        out = a[a.index("--output-directory") + 1] if "--output-directory" in a else \
            str(Path(a[a.index("-o") + 1]).parent) if "-o" in a else ""
        rows.append(dict(r, out_dir=out))
    outs = {r["out_dir"] for r in rows if r["out_dir"]}
    if len(outs) != 1:
        sys.exit(f"error: the recorded commands name {len(outs)} out dirs ({outs}); rebuild ref")
    out = outs.pop()
    for r in rows:
        r["out_dir"] = out
    (dest / "nvcc-commands.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    shutil.copy2(REPO / "scripts" / "candle_kernels_bench.py", dest / "bench.py")
    print(f"bench bundle: {dest}; on the GPU host: python3 bench.py archbuild && "
          "python3 bench.py cudaforge")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("work", type=Path)
    ap.add_argument("--archs", default="8.0 8.6 8.9 9.0+PTX")
    ap.add_argument("--sides", default="ref,switch")
    ap.add_argument("--bundle", type=Path, help="collect the test programs for a GPU host")
    ap.add_argument("--bench", type=Path, help="make the benchmark's bundle for a GPU host")
    args = ap.parse_args()
    work = args.work.resolve()
    src = fetch(work)
    if args.bench:
        bench_bundle(work, args.bench.resolve())
        return
    target = work / "target"
    base = dict(os.environ, CARGO_TARGET_DIR=str(target), CARGO_PROFILE_DEV_DEBUG="0",
                CARGO_PROFILE_DEV_STRIP="symbols", CARGO_INCREMENTAL="0")
    built = {}
    for name in args.sides.split(","):
        side = work / name
        common(side, src)
        if name == "ref":
            tk = toolkit_root(PTX_TOOLKIT)
            rec = nvcc_recorder(work, tk)
            log = side / "nvcc-commands.jsonl"
            env = dict(base, CUDA_COMPUTE_CAP="90", CUDA_HOME=str(rec), CUDA_PATH=str(rec),
                       PATH=f"{rec / 'bin'}:{os.environ['PATH']}", CANDLE_SWITCH_NVCC_LOG=str(log),
                       LIBRARY_PATH=str(rec / "link"))
        elif name == "switch":
            switch(side, args.archs)
            env = dict(base)
        else:
            sys.exit(f"error: unknown side {name!r}: accepted are ref and switch")
        if name == "ref":
            # cudaforge skips files its cache in OUT_DIR calls current, and the benchmark needs
            # every command it runs recorded: its build starts from nothing.
            run(["cargo", "clean", "-p", "candle-kernels"], cwd=side, env=env)
        built[name] = build_tests(side, env)
        print(f"{name}: {len(built[name])} test programs")
    if args.bundle:
        dest = args.bundle.resolve()
        dest.mkdir(parents=True, exist_ok=True)
        for name, exes in built.items():
            d = dest / name
            d.mkdir(exist_ok=True)
            for exe in exes:
                shutil.copy2(exe, d / exe.name.rsplit("-", 1)[0])
        data = work / "src" / f"candle-core-{VERSION}" / "tests"
        shutil.copytree(data, dest / "tests", dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("*.rs"))
        shutil.copy2(REPO / "scripts" / "candle_tests_run.py", dest / "run.py")
        size = sum(f.stat().st_size for f in dest.rglob("*") if f.is_file())
        print(f"bundle: {dest} ({size / 1e6:.1f} MB); on the GPU host: python3 run.py a b c")


if __name__ == "__main__":
    main()
