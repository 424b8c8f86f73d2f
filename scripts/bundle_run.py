#!/usr/bin/env python3
"""Runs a bundle made by `candle_flash_attn.py --bundle` on a GPU machine that has no Rust.

    python3 run.py build [--archs "9.0"] [--jobs N]   the crate's build script, run here
    python3 run.py link                              the test program, linked here
    python3 run.py test [-- ARGS]                    the crate's own tests, on this GPU

`build` runs the crate's `build.rs` (compiled on the other machine as a program) with the
variables cargo gives a build script: archbuild builds the kernel library here, with this
machine's CUDA toolkit and host compiler, CUTLASS from the bundle's wheel (`PIP_FIND_LINKS`,
`PIP_NO_INDEX`). Its `cargo:` lines are kept in `out/build-script.stdout`; a second run resumes
from archbuild's cache. `link` runs this machine's `cc` with the arguments rustc gave the linker on
the other machine (`flash_attn_tests.link.json`), the placeholder `-L@ARCHBUILD_OUT_DIR@` replaced by the build
script's search directories. `test` runs the program with those directories and the CUDA
libraries of this machine's Python packages (`nvidia-*`) on `LD_LIBRARY_PATH`.
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
STDOUT = OUT / "build-script.stdout"
PLACEHOLDER = "-L@ARCHBUILD_OUT_DIR@"


def build(archs: str, jobs: int) -> int:
    OUT.mkdir(exist_ok=True)
    crate = HERE / "crate"
    env = dict(
        os.environ,
        OUT_DIR=str(OUT),
        CARGO_MANIFEST_DIR=str(crate),
        CARGO_PKG_NAME="candle-flash-attn",
        CARGO_CFG_TARGET_OS="linux",
        CARGO_CFG_TARGET_ARCH="x86_64",
        CARGO_CFG_TARGET_ENV="gnu",
        TARGET="x86_64-unknown-linux-gnu",
        HOST="x86_64-unknown-linux-gnu",
        NUM_JOBS=str(jobs),
        OPT_LEVEL="3",
        PROFILE="release",
        DEBUG="false",
        ARCHBUILD_ARCHS=archs,
        PIP_FIND_LINKS=str(HERE / "wheels"),
        PIP_NO_INDEX="1",
    )
    with open(STDOUT.with_suffix(".tmp"), "w") as f:
        rc = subprocess.run([str(HERE / "build-script-build")], cwd=crate, env=env,
                            stdout=f).returncode
    os.replace(STDOUT.with_suffix(".tmp"), STDOUT)
    print(STDOUT.read_text(), end="")
    return rc


def cargo_lines(kind: str):
    vals = []
    for line in STDOUT.read_text().splitlines():
        for prefix in (f"cargo:{kind}=", f"cargo::{kind}="):
            if line.startswith(prefix):
                vals.append(line[len(prefix):])
    return vals


def search_dirs():
    return [v.split("=", 1)[-1] for v in cargo_lines("rustc-link-search")]


def cuda_lib_dirs():
    """This machine's CUDA libraries: the toolkit's, its driver stubs (link time only) and those
    of its Python packages (`nvidia-cublas` and friends)."""
    probe = ("import importlib.util,glob,os\n"
             "s=importlib.util.find_spec('nvidia')\n"
             "print('\\n'.join(sorted({os.path.dirname(p) for d in (s.submodule_search_locations or [])"
             " for p in glob.glob(d+'/**/lib*.so*', recursive=True)})) if s else '')")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout
    return [d for d in out.splitlines() if d] + ["/usr/local/cuda/lib64"]


def link() -> int:
    if not STDOUT.is_file():
        sys.exit("error: no build-script output: run `python3 run.py build` first")
    print("the build script's libraries:", cargo_lines("rustc-link-lib"))
    args = []
    for a in json.loads((HERE / "flash_attn_tests.link.json").read_text())["args"]:
        if a == PLACEHOLDER:
            args += [f"-L{d}" for d in search_dirs()]
        else:
            args.append(a)
    # A shared library named by `-l` that only exists as `libX.so.N` (Python packages ship no
    # `libX.so`) or only as a driver stub gets a `libX.so` in links/, searched last.
    links = HERE / "links"
    links.mkdir(exist_ok=True)
    cuda = cuda_lib_dirs()
    dirs = [a[2:] for a in args if a.startswith("-L")] + cuda
    for name in sorted({a[2:] for a in args if a.startswith("-l")}):
        if any((Path(d) / f"lib{name}.{ext}").exists() for d in dirs for ext in ("so", "a")):
            continue
        found = [p for d in dirs + ["/usr/local/cuda/lib64/stubs"]
                 for p in sorted(Path(d).glob(f"lib{name}.so*"))]
        if found and not (links / f"lib{name}.so").exists():
            (links / f"lib{name}.so").symlink_to(found[0])
    args += [f"-L{d}" for d in cuda] + [f"-L{links}"]
    cmd = ["cc", *args]
    print("linking:", " ".join(cmd[:3]), f"… ({len(cmd)} arguments)", flush=True)
    return subprocess.run(cmd, cwd=HERE).returncode


def library_path():
    dirs = search_dirs() + cuda_lib_dirs()
    old = os.environ.get("LD_LIBRARY_PATH")
    return ":".join(dirs + ([old] if old else []))


def test(rest) -> int:
    env = dict(os.environ, LD_LIBRARY_PATH=library_path())
    prog = HERE / "flash_attn_tests"
    print("LD_LIBRARY_PATH:", env["LD_LIBRARY_PATH"], flush=True)
    return subprocess.run([str(prog), *rest], cwd=HERE / "crate", env=env).returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("step", choices=["build", "link", "test"])
    ap.add_argument("--archs", default="9.0")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if a.step == "build":
        sys.exit(build(a.archs, a.jobs))
    if a.step == "link":
        sys.exit(link())
    sys.exit(test([r for r in a.rest if r != "--"]))


if __name__ == "__main__":
    main()
