#!/usr/bin/env python3
"""Builds candle-flash-attn with archbuild instead of cudaforge.

    python3 scripts/candle_flash_attn.py CANDLE [--archs "8.0 9.0"] [--no-run] [--restore]

CANDLE is a candle checkout (`git clone https://github.com/huggingface/candle`) or the
`candle-flash-attn` package from the Rust registry, unpacked; whoever runs this fetches it: no
candle code is in this repository. The script

1. keeps the crate's own `build.rs` as `build.rs.cudaforge` and writes one that builds the 53
   kernel files (`kernels/*.cu`, `flash_api.cu` among them) with `archbuild::Library`: the
   device side per arch through archbuild's job graph and cache, the host side once per file,
   the CUDA runtime linked shared as the crate did;
2. provisions CUTLASS from PyPI's `nvidia-cutlass` (4.2.0, the CUTLASS/CuTe headers of
   CUTLASS 4.2; the crate pins a CUTLASS commit of the 4.x line on GitHub, which the build
   fetched at build time and which fails offline) through archbuild's header libraries;
3. points the crate's build dependency at this checkout's `archbuild` (instead of `cudaforge`);
4. runs `cargo test --release -p candle-flash-attn` with `ARCHBUILD_ARCHS` (default `8.0 9.0`:
   Ampere and Hopper cubins; the kernels need sm_80 or newer), or with `--no-run` only builds
   the test binary and prints its path (to run on a GPU machine).

With `--bundle DIR` it makes, instead, everything a GPU machine without Rust needs to run the
crate's tests (such as the GPU host of `results/gpu.md`): the crate's `build.rs` compiled as a
program, the test program's Rust half with its link recorded (`scripts/link_capture.py`: its
objects and rlibs as one relocatable object, rustc's arguments), the kernels, CUTLASS's wheel, and `run.py`
(`scripts/bundle_run.py`): `run.py build` runs the build script there, so archbuild builds the
kernel library on that machine's cores with its toolkit and host compiler; `run.py link` links the
tests with its `cc`; `run.py test` runs them. Cargo is told the library's link lines by a `links`
override (the crate gets `links = "flashattention"`), so nothing is compiled here but Rust.

`--restore` puts the crate's own build back. The whole crate is hours of CPU per arch on two
cores; archbuild's cache makes every later build of the same list cheap (`docs/build.md`,
"Host libraries").
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CUTLASS = ("nvidia-cutlass", "4.2.0")

BUILD_RS = r'''// Written by archbuild's scripts/candle_flash_attn.py (the crate's own is build.rs.cudaforge):
// the flash-attention kernels built by archbuild::Library, CUTLASS from PyPI's nvidia-cutlass.
fn main() {
    let mut lib = archbuild::Library::new();
    lib.source_dir("kernels")
        .header_library(archbuild::HeaderLibrary::pypi("@CUTLASS_PKG@", "@CUTLASS_VER@"))
        .flags([
            "-std=c++17",
            "-O3",
            "-U__CUDA_NO_HALF_OPERATORS__",
            "-U__CUDA_NO_HALF_CONVERSIONS__",
            "-U__CUDA_NO_HALF2_OPERATORS__",
            "-U__CUDA_NO_BFLOAT16_CONVERSIONS__",
            "--expt-relaxed-constexpr",
            "--expt-extended-lambda",
            "--use_fast_math",
            "-Xcompiler",
            "-fPIC",
        ])
        .cudart("shared")
        .provision(true);
    let report = lib.compile("flashattention");
    let ran = |p: archbuild::JobPhase| report.jobs.iter().filter(|j| j.phase == p && !j.cached).count();
    let host = report.library.as_ref().map_or(0, |l| l.objects.iter().filter(|o| !o.cached).count());
    println!(
        "cargo:warning=archbuild: {} (`{}`) in {:.2} s: {} jobs, {} from the cache, {} cicc and {} \
         ptxas runs, {} host compiles, {} processes",
        report.archs, report.source, report.seconds, report.jobs_planned, report.cache_hits,
        ran(archbuild::JobPhase::Cicc), ran(archbuild::JobPhase::Ptxas), host, report.processes_started
    );
}
'''


def crate_dir(candle: Path) -> Path:
    for d in (candle / "candle-flash-attn", candle):
        if (d / "build.rs").is_file() and (d / "kernels" / "flash_api.cu").is_file():
            return d
    sys.exit(f"error: no candle-flash-attn crate in {candle} (expected build.rs and "
             "kernels/flash_api.cu in it or in its candle-flash-attn/ directory); pass a candle "
             "checkout or the unpacked candle-flash-attn package")


def patch_manifest(text: str) -> str:
    """The `cudaforge` build dependency replaced by this checkout's archbuild."""
    dep = f'archbuild = {{ path = "{REPO / "crates" / "archbuild"}" }}'
    # `[build-dependencies.cudaforge]` table (a registry package's normalized manifest).
    text, n = re.subn(r"\[build-dependencies\.cudaforge\][^\[]*",
                      f"[build-dependencies.archbuild]\npath = \"{REPO / 'crates' / 'archbuild'}\"\n\n",
                      text)
    if n == 0:
        # `cudaforge = …` inside `[build-dependencies]` (a candle checkout).
        text, n = re.subn(r"(?m)^cudaforge\s*=.*$", dep, text)
    if n == 0:
        sys.exit("error: no cudaforge build dependency in candle-flash-attn's Cargo.toml: this "
                 "script knows the crate from candle 0.9.2 on; patch the manifest by hand")
    # The registry package drops the tests' path-only dev-dependency on candle-nn (a checkout's
    # manifest names it by path); the tests need it, at the crate's own version.
    if "candle-nn" not in text:
        ver = re.search(r'(?m)^version\s*=\s*"([^"]+)"', text)
        text += ('\n[dev-dependencies.candle-nn]\nversion = "{}"\nfeatures = ["cuda"]\n'
                 .format(ver.group(1) if ver else "*"))
    # A crate that links a native library says so; `--bundle` overrides its link lines by this name.
    if not re.search(r'(?m)^links\s*=', text):
        text, n = re.subn(r"(?m)^(\[package\]\n)", r'\1links = "flashattention"\n', text, count=1)
    return text


TRIPLE = "x86_64-unknown-linux-gnu"


def run(cmd, **kw) -> None:
    print("running:", " ".join(map(str, cmd)), flush=True)
    rc = subprocess.run(cmd, **kw).returncode
    if rc != 0:
        sys.exit(f"error: `{' '.join(map(str, cmd))}` failed with exit status {rc}")


def bundle(crate: Path, dest: Path) -> None:
    """Everything a GPU machine with a C compiler and CUDA, but no Rust, needs (module doc)."""
    dest.mkdir(parents=True, exist_ok=True)
    # 1. The crate's build.rs as a program of its own.
    prog = dest / ".build-script"
    prog.mkdir(exist_ok=True)
    (prog / "Cargo.toml").write_text(
        '[package]\nname = "candle-flash-attn-build-script"\nversion = "0.0.0"\nedition = "2021"\n'
        f'[workspace]\n[[bin]]\nname = "build-script-build"\npath = "{crate / "build.rs"}"\n'
        f'[dependencies]\narchbuild = {{ path = "{REPO / "crates" / "archbuild"}", features = ["remote"] }}\n')
    # Its own target directory: the tests' linker setting below would rebuild what they share.
    run(["cargo", "build", "--release", "--manifest-path", str(prog / "Cargo.toml"),
         "--target-dir", str(prog / "target")])
    shutil.copy2(prog / "target" / "release" / "build-script-build", dest / "build-script-build")
    # 2. The tests' Rust half, their link recorded; the library's link lines by override.
    pre = f"target.{TRIPLE}"
    cfg = [
        f'{pre}.linker="{REPO / "scripts" / "link_capture.py"}"',
        f'{pre}.flashattention.rustc-link-search=["native=@ARCHBUILD_OUT_DIR@"]',
        f'{pre}.flashattention.rustc-link-lib=["static:-bundle=flashattention","dylib=cudart","dylib=stdc++"]',
    ]
    # Cargo links a program again only when something changed: a bumped source time makes it
    # record the link even when an earlier bundle's programs are up to date.
    for f in (crate / "src" / "lib.rs", crate / "tests" / "flash_attn_tests.rs"):
        os.utime(f)
    for old in dest.glob("*.link.json"):
        old.unlink()
    env = dict(os.environ, ARCHBUILD_CAPTURE_DIR=str(dest), ARCHBUILD_CAPTURE_MATCH="flash_attn_tests-",
               ARCHBUILD_CAPTURE_SKIP="candle_flash_attn-")
    cmd = ["cargo", "test", "--release", "--no-run", "--manifest-path", str(crate / "Cargo.toml")]
    for c in cfg:
        cmd += ["--config", c]
    run(cmd, env=env)
    if not (dest / "flash_attn_tests.link.json").is_file():
        sys.exit("error: the test program's link was not recorded: cargo did not link "
                 "`flash_attn_tests` (see its output above)")
    # 3. The crate's sources, CUTLASS's wheel and the runner.
    if (dest / "crate").exists():
        shutil.rmtree(dest / "crate")
    shutil.copytree(crate, dest / "crate", ignore=shutil.ignore_patterns("target", "*.cudaforge"))
    run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
         "--dest", str(dest / "wheels"), f"{CUTLASS[0]}=={CUTLASS[1]}"])
    shutil.copy2(REPO / "scripts" / "bundle_run.py", dest / "run.py")
    size = sum(f.stat().st_size for f in dest.rglob("*") if f.is_file() and ".build-script" not in f.parts)
    print(f"bundle: {dest} ({size / 1e6:.1f} MB); on the GPU machine: python3 run.py build "
          "--archs '9.0' && python3 run.py link && python3 run.py test")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("candle", type=Path)
    ap.add_argument("--archs", default="8.0 9.0")
    ap.add_argument("--no-run", action="store_true")
    ap.add_argument("--restore", action="store_true")
    ap.add_argument("--bundle", type=Path, help="make a bundle for a GPU machine without Rust")
    args = ap.parse_args()
    crate = crate_dir(args.candle.resolve())
    build, kept = crate / "build.rs", crate / "build.rs.cudaforge"
    manifest, kept_manifest = crate / "Cargo.toml", crate / "Cargo.toml.cudaforge"
    if args.restore:
        for orig, saved in ((build, kept), (manifest, kept_manifest)):
            if saved.is_file():
                os.replace(saved, orig)
        print(f"restored the crate's own build in {crate}")
        return
    if not kept.is_file():
        shutil.copy2(build, kept)
        shutil.copy2(manifest, kept_manifest)
    text = BUILD_RS.replace("@CUTLASS_PKG@", CUTLASS[0]).replace("@CUTLASS_VER@", CUTLASS[1])
    tmp = build.with_suffix(".rs.tmp")
    tmp.write_text(text)
    os.replace(tmp, build)
    tmp = manifest.with_suffix(".toml.tmp")
    tmp.write_text(patch_manifest(kept_manifest.read_text()))
    os.replace(tmp, manifest)
    if args.bundle:
        bundle(crate, args.bundle.resolve())
        return
    env = dict(os.environ, ARCHBUILD_ARCHS=args.archs)
    cmd = ["cargo", "test", "--release", "--manifest-path", str(manifest)]
    if args.no_run:
        cmd.append("--no-run")
    print("running:", " ".join(cmd), f"(ARCHBUILD_ARCHS={args.archs!r})", flush=True)
    sys.exit(subprocess.run(cmd, env=env).returncode)


if __name__ == "__main__":
    main()
