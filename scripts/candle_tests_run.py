#!/usr/bin/env python3
"""Runs candle-core's CUDA tests from a bundle of `scripts/candle_switch.py` (as `run.py`).

    python3 run.py [a] [b] [c] [--log DIR] [--filter _gpu --filter cuda] [--timeout S]

On a GPU host with CUDA's libraries (`/usr/local/cuda/lib64` is added to `LD_LIBRARY_PATH`) and
no Rust. Each mode runs every test program of its side with the filters (default `_gpu` and
`cuda`: the tests candle's `test_device!` makes for the CUDA device, and the CUDA-only ones; 109
of candle-core 0.11.1's 292), from this directory (the programs read `tests/*.npy` and friends
relative to it):

- `a`: `switch/`, archbuild's fat binaries with the loader's default policy (this GPU's cubin);
- `b`: `switch/` with `ARCHBUILD_LOAD_POLICY=force-ptx` (every module JIT-compiled from its PTX,
  into a JIT cache of the run's own);
- `c`: `ref/`, candle's own build (cudaforge, `CUDA_COMPUTE_CAP=90`).

`a` and `b` set `CANDLE_ARCHBUILD_REPORT=1`, so each module's load report goes to the log and
the summary counts how modules were loaded. It prints one line per mode and writes
`summary.json` and each program's output into `--log`.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULT = re.compile(r"test result: (\w+)\. (\d+) passed; (\d+) failed; (\d+) ignored; "
                    r"(\d+) measured; (\d+) filtered out")
MODES = {
    "a": ("switch", {"CANDLE_ARCHBUILD_REPORT": "1"}),
    "b": ("switch", {"CANDLE_ARCHBUILD_REPORT": "1", "ARCHBUILD_LOAD_POLICY": "force-ptx"}),
    "c": ("ref", {}),
}
# The first line of the loader's report: "… loaded [1] sm_90 via cubin in 0.2 ms".
LOADED = re.compile(r"loaded \[\d+\] (\S+) via (cubin|cached JIT|driver JIT|nvJitLink)")


def run_mode(mode: str, filters: list, log: Path, timeout: float) -> dict:
    side, extra = MODES[mode]
    env = dict(os.environ, **extra)
    env["LD_LIBRARY_PATH"] = ":".join(p for p in ("/usr/local/cuda/lib64",
                                                   os.environ.get("LD_LIBRARY_PATH", "")) if p)
    jit = tempfile.mkdtemp(prefix=f"jit-{mode}-")
    env["ARCHBUILD_JIT_CACHE"] = jit
    total = {"passed": 0, "failed": 0, "ignored": 0, "filtered": 0, "programs": 0,
             "failures": [], "no_result": [], "loads": {}}
    t0 = time.time()
    for prog in sorted((HERE / side).iterdir()):
        try:
            # The load reports are printed inside tests, which libtest captures otherwise.
            nocap = ["--nocapture"] if "CANDLE_ARCHBUILD_REPORT" in extra else []
            p = subprocess.run([str(prog), *filters, *nocap], cwd=HERE, env=env, capture_output=True,
                               text=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            (log / f"{mode}-{prog.name}.log").write_text(out)
            total["no_result"].append(f"{prog.name} (killed after {timeout} s)")
            total["programs"] += 1
            continue
        (log / f"{mode}-{prog.name}.log").write_text(p.stdout + "\n--- stderr ---\n" + p.stderr)
        total["programs"] += 1
        m = RESULT.search(p.stdout)
        if not m:
            total["no_result"].append(f"{prog.name} (exit {p.returncode})")
            continue
        total["passed"] += int(m[2])
        total["failed"] += int(m[3])
        total["ignored"] += int(m[4])
        total["filtered"] += int(m[6])
        total["failures"] += [f"{prog.name}::{n}" for n in
                              re.findall(r"^test (\S+) \.\.\. FAILED", p.stdout, re.M)]
        for target, path in LOADED.findall(p.stdout + p.stderr):
            key = f"{target} via {path}"
            total["loads"][key] = total["loads"].get(key, 0) + 1
    total["seconds"] = round(time.time() - t0, 1)
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("modes", nargs="*", default=["a", "b", "c"])
    ap.add_argument("--log", type=Path, default=HERE / "logs")
    ap.add_argument("--filter", action="append", help="test name filters (default _gpu, cuda)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per test program")
    args = ap.parse_args()
    args.log.mkdir(parents=True, exist_ok=True)
    summary = {}
    for mode in args.modes:
        if mode not in MODES:
            sys.exit(f"error: unknown mode {mode!r}: accepted are a, b and c")
        r = summary[mode] = run_mode(mode, args.filter or ["_gpu", "cuda"], args.log, args.timeout)
        print(f"{mode} ({MODES[mode][0]}): {r['passed']} passed, {r['failed']} failed, "
              f"{r['ignored']} ignored, {r['programs']} programs, {r['seconds']} s; "
              f"loads {r['loads']}; failures {r['failures']}; no result {r['no_result']}",
              flush=True)
    (args.log / "summary.json").write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
