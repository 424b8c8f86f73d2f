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
    println!("cargo:warning=archbuild: {} (`{}`)", report.archs, report.arch_source);
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
    return text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("candle", type=Path)
    ap.add_argument("--archs", default="8.0 9.0")
    ap.add_argument("--no-run", action="store_true")
    ap.add_argument("--restore", action="store_true")
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
    env = dict(os.environ, ARCHBUILD_ARCHS=args.archs)
    cmd = ["cargo", "test", "--release", "--manifest-path", str(manifest)]
    if args.no_run:
        cmd.append("--no-run")
    print("running:", " ".join(cmd), f"(ARCHBUILD_ARCHS={args.archs!r})", flush=True)
    sys.exit(subprocess.run(cmd, env=env).returncode)


if __name__ == "__main__":
    main()
