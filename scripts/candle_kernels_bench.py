#!/usr/bin/env python3
"""candle-kernels cold, on a GPU host with no Rust: archbuild once for a fleet list against
candle's own build (cudaforge's nvcc commands and parallelism) once per arch.

    python3 bench.py archbuild [--archs "8.0 8.6 8.9 9.0+PTX"] [--jobs N]
    python3 bench.py cudaforge [--arch 80 --arch 86 ...] [--jobs N]

From a bundle of `scripts/candle_switch.py --bench DIR` (this file is its `bench.py`):

- `archbuild` runs the switched candle-kernels' build script (compiled on the Rust machine as
  the program `build-script-build`) on `crate/`, as cargo would run it, with an empty
  `ARCHBUILD_HOME` (cold: no cache, no toolkit but this machine's, `CUDA_HOME`), `NUM_JOBS` and
  `ARCHBUILD_JOBS` the cores. Every job's times (module, phase, target, how it was served) are
  appended by the build script's `on_job` hook to `CANDLE_BENCH_TIMES`, so the log says where the
  time went.
- `cudaforge` replays the nvcc commands candle's own build ran on the Rust machine
  (`nvcc-commands.jsonl`, recorded with `CUDA_COMPUTE_CAP=90`) once per `--arch`, with the
  `-gencode` cudaforge writes for that arch (`sm_90` becomes `sm_90a` as cudaforge makes it) and
  its order: the PTX modules in parallel (a rayon pool of `--jobs`), then the library's objects in
  parallel, then the archive, each phase waiting for the last, as `build.rs` calls them.

Each prints one line of figures and writes `<mode>.json` (wall time, every process's times) into
`--log`.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
TRIPLE = "x86_64-unknown-linux-gnu"
CUDA = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))


def run_archbuild(archs: str, jobs: int, log: Path) -> dict:
    home = Path(tempfile.mkdtemp(prefix="archbuild-home-"))
    out = Path(tempfile.mkdtemp(prefix="candle-kernels-out-"))
    times = log / "archbuild-processes.jsonl"
    times.unlink(missing_ok=True)
    env = dict(
        os.environ, OUT_DIR=str(out), CARGO_MANIFEST_DIR=str(HERE / "crate"),
        CARGO_PKG_NAME="candle-kernels", CARGO_PKG_VERSION="0.11.1",
        CARGO_CFG_TARGET_OS="linux", CARGO_CFG_TARGET_ARCH="x86_64", CARGO_CFG_TARGET_ENV="gnu",
        TARGET=TRIPLE, HOST=TRIPLE, NUM_JOBS=str(jobs), OPT_LEVEL="0", PROFILE="debug",
        DEBUG="false", ARCHBUILD_HOME=str(home), ARCHBUILD_JOBS=str(jobs), ARCHBUILD_ARCHS=archs,
        CUDA_HOME=str(CUDA), CANDLE_BENCH_TIMES=str(times),
    )
    t0 = time.time()
    p = subprocess.run([str(HERE / "build-script-build")], cwd=HERE / "crate", env=env,
                       capture_output=True, text=True)
    wall = time.time() - t0
    (log / "archbuild-build-script.log").write_text(p.stdout + "\n--- stderr ---\n" + p.stderr)
    if p.returncode != 0:
        sys.exit(f"error: the build script failed ({p.returncode}); see {log}")
    procs = [json.loads(l) for l in times.read_text().splitlines()] if times.exists() else []
    shutil.rmtree(home, ignore_errors=True)
    return {"wall_s": round(wall, 2), "archs": archs, "jobs": jobs, "processes": procs,
            "summary": [l for l in p.stdout.splitlines() if "archbuild:" in l]}


def gencode(arch: str) -> str:
    sm = f"{arch}a" if int(arch) >= 90 else arch  # cudaforge's auto suffix
    return f"-gencode=arch=compute_{sm},code=sm_{sm}"


def replay_arch(arch: str, cmds: list, jobs: int, out: Path) -> dict:
    """One cudaforge build for `arch`: its three phases, each in a pool of `jobs`."""
    crate = HERE / "crate"
    phases = {"ptx": [], "obj": [], "lib": []}
    for c in cmds:
        argv = [a if not a.startswith("-gencode=") else gencode(arch) for a in c["argv"]]
        if argv == ["--version"]:
            continue
        # Paths of the recording machine's out dir and crate, made this run's.
        argv = [a.replace(c["out_dir"], str(out)) for a in argv]
        kind = "ptx" if "--ptx" in argv else "lib" if "--lib" in argv else "obj"
        phases[kind].append(argv)

    def one(argv):
        t0 = time.time()
        p = subprocess.run([str(CUDA / "bin" / "nvcc")] + argv, cwd=crate, capture_output=True,
                           text=True)
        if p.returncode != 0:
            raise RuntimeError(f"nvcc {' '.join(argv)} failed: {p.stderr[-2000:]}")
        src = next((a for a in reversed(argv) if a.endswith(".cu")), argv[-1])
        return {"file": Path(src).name, "start": t0, "end": time.time()}

    t0 = time.time()
    procs = []
    with ThreadPoolExecutor(jobs) as pool:
        for kind in ("ptx", "obj", "lib"):
            procs += [dict(r, phase=kind) for r in pool.map(one, phases[kind])]
    return {"arch": arch, "wall_s": round(time.time() - t0, 2), "processes": procs}


def run_cudaforge(archs: list, jobs: int, log: Path) -> dict:
    cmds = [json.loads(l) for l in (HERE / "nvcc-commands.jsonl").read_text().splitlines()]
    runs = []
    for arch in archs:
        out = Path(tempfile.mkdtemp(prefix=f"cudaforge-{arch}-"))
        r = replay_arch(arch, cmds, jobs, out)
        print(f"cudaforge sm_{arch}: {r['wall_s']} s, {len(r['processes'])} nvcc", flush=True)
        runs.append(r)
        shutil.rmtree(out, ignore_errors=True)
    return {"wall_s": round(sum(r["wall_s"] for r in runs), 2), "jobs": jobs, "runs": runs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=["archbuild", "cudaforge"])
    ap.add_argument("--archs", default="8.0 8.6 8.9 9.0+PTX")
    ap.add_argument("--arch", action="append", help="cudaforge: one CUDA_COMPUTE_CAP per build")
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--log", type=Path, default=HERE / "logs")
    args = ap.parse_args()
    args.log.mkdir(parents=True, exist_ok=True)
    if args.mode == "archbuild":
        r = run_archbuild(args.archs, args.jobs, args.log)
        busy = sum(p["end"] - p["start"] for p in r["processes"])
        print(f"archbuild {args.archs!r}: {r['wall_s']} s wall, {len(r['processes'])} jobs, "
              f"{busy:.1f} s of them; {' | '.join(r['summary'])}")
    else:
        r = run_cudaforge(args.arch or ["80", "86", "89", "90"], args.jobs, args.log)
        print(f"cudaforge, {len(r['runs'])} builds: {r['wall_s']} s wall in all")
    (args.log / f"{args.mode}.json").write_text(json.dumps(r))


if __name__ == "__main__":
    main()
