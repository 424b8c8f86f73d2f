#!/usr/bin/env python3
"""What soundness costs: two `cargo-archbuild` binaries (before and after issue 22) on the same
machine in one run, with ratios.

    python3 benches/soundness_bench.py OLD_BIN NEW_BIN [--nvcc PATH] [--src FILE]

Per binary, on `benches/inputs/bench_kernels.cu` for `7.5 8.0 8.6 8.9 9.0+PTX` with
`cargo archbuild compile`, each step in a fresh ARCHBUILD_HOME unless said:
  cold        empty cache (a shared `file://` remote is written too)
  no-op       the same command again
  comment     a comment line added at the top of the source (preprocessor mode, where sound)
  second      another home with the shared remote only (a second machine)
  cached      every job a hit, the fat binary packed again (a new output path)
  verify 1%   `cached` with ARCHBUILD_VERIFY=0.01 (the new binary only)
  verify all  `cached` with ARCHBUILD_VERIFY=all (the new binary only)
and `nvcc --fatbin --threads 2` with the same targets as the reference, alternating with the
cold builds so drift on the machine hits both alike. Prints seconds and ratios.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ARCHS = "7.5 8.0 8.6 8.9 9.0+PTX"
GENCODE = [f"-gencode=arch=compute_{s},code=sm_{s}" for s in (75, 80, 86, 89)] + [
    "-gencode=arch=compute_90,code=[sm_90,compute_90]"
]


def timed(cmd, env=None, cwd=None):
    start = time.perf_counter()
    r = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    took = time.perf_counter() - start
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(map(str, cmd))}\n{r.stderr[-3000:]}")
    return took


def main():
    args = sys.argv[1:]
    nvcc = os.environ.get("NVCC")
    src = Path(__file__).resolve().parent / "inputs" / "bench_kernels.cu"
    for flag in ("--nvcc", "--src"):
        if flag in args:
            i = args.index(flag)
            value = args[i + 1]
            del args[i : i + 2]
            if flag == "--nvcc":
                nvcc = value
            else:
                src = Path(value).resolve()
    if len(args) != 2 or not nvcc:
        sys.exit(__doc__)
    bins = {"before": Path(args[0]).resolve(), "after": Path(args[1]).resolve()}
    tmp = Path(tempfile.mkdtemp(prefix="soundness-bench-"))
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("ARCHBUILD_")}
    base_env["NVCC"] = nvcc
    results = {}
    try:
        for name, exe in bins.items():
            work = tmp / name
            (work / "src").mkdir(parents=True)
            kernel = work / "src" / "bench_kernels.cu"
            shutil.copy(src, kernel)
            remote = work / "remote"
            remote.mkdir()

            def compile_(home, out, extra=None):
                env = dict(base_env)
                env["ARCHBUILD_HOME"] = str(work / home)
                env["ARCHBUILD_REMOTE_CACHE"] = f"file://{remote}"
                env.update(extra or {})
                return timed(
                    [exe, "compile", kernel.name, "--archs", ARCHS, "-o", str(work / out)],
                    env=env,
                    cwd=kernel.parent,
                )

            r = {}
            r["nvcc"] = timed(
                [nvcc, "--fatbin", "--threads", "2", *GENCODE, "-o", str(work / "ref.fatbin"), kernel.name],
                env=base_env,
                cwd=kernel.parent,
            )
            r["cold"] = compile_("home-a", "a.fatbin")
            r["no-op"] = compile_("home-a", "a.fatbin")
            text = kernel.read_text()
            kernel.write_text("// a comment added above everything\n" + text)
            r["comment"] = compile_("home-a", "a.fatbin")
            kernel.write_text(text)
            r["second"] = compile_("home-b", "b.fatbin")
            r["cached"] = compile_("home-a", "c1.fatbin")
            if name == "after":
                r["verify 1%"] = compile_("home-a", "c2.fatbin", {"ARCHBUILD_VERIFY": "0.01"})
                r["verify all"] = compile_("home-a", "c3.fatbin", {"ARCHBUILD_VERIFY": "all"})
            results[name] = r
        print(f"source: {src}\ntargets: {ARCHS}\nCPUs: {os.cpu_count()}\n")
        print(f"{'step':<12} {'before s':>9} {'after s':>9}   ratios (after)")
        after = results["after"]
        for step in after:
            b = results["before"].get(step)
            a = after[step]
            note = ""
            if step == "cold":
                note = f"cold / nvcc --threads 2 = {a / after['nvcc']:.3f} (before {b / results['before']['nvcc']:.3f})"
            elif step in ("comment", "second"):
                note = f"/ cold = {a / after['cold']:.3f} (before {b / results['before']['cold']:.3f})"
            elif step.startswith("verify"):
                note = f"/ cached = {a / after['cached']:.3f}; / cold = {a / after['cold']:.3f}"
            bs = f"{b:9.2f}" if b is not None else f"{'-':>9}"
            print(f"{step:<12} {bs} {a:9.2f}   {note}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
