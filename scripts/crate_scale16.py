#!/usr/bin/env python3
"""candle-flash-attn measured in pieces that fit one device call on the 16-core GPU host (issue 50).

    python3 scripts/crate_scale16.py SIDE [--carry .gpu50] [--archs "8.0 9.0"] [--files F.cu ...]
                                          [--deadline 560] [--jobs N] [--share-cicc on|off]
                                          [--tag NAME] [--dry-run]

or, on the development machine, makes the carried folder:

    python3 scripts/crate_scale16.py pack --crate CRATE_DIR --cutlass-wheel WHEEL --bench LIBRARY_BENCH [--carry .gpu50]

(CRATE_DIR: candle-flash-attn 0.11.1 unpacked from
`https://static.crates.io/crates/candle-flash-attn/candle-flash-attn-0.11.1.crate`; WHEEL:
`python3 -m pip download --no-deps nvidia-cutlass==4.2.0`; LIBRARY_BENCH:
`cargo build --release -p archbuild --features remote --example library_bench`'s
`target/release/examples/library_bench`, stripped and xz-compressed into the folder).

SIDE is one of

  archbuild     `library_bench --skip-nvcc --verbose --edit-header kernels/flash.h` on the files:
                archbuild cold (empty home, empty `file://` remote it fills), a comment-only edit
                of `kernels/flash.h`, a second home with that remote, an unchanged rebuild; each
                job printed as it finishes (module, phase, target, seconds);
  nvcc-pattern  cudaforge's pattern as `library_bench` runs it (`nvcc -c` per file with every
                `-gencode`, the files at once up to --jobs), each `nvcc` with `--time` (a CSV of its
                phases: host preprocessing, cudafe++, per arch gcc -E + cicc + ptxas, fatbinary,
                the host compile);
  nvcc-chains   the same `nvcc -c` lines with ONE `-gencode` each, every (file, arch) pair at once:
                both archs' phases of every file in one call, where cudaforge's pattern (the archs
                one after another in one `nvcc`) takes longer than a call for these files.

Each side runs under a load sampler (`gpu_run.load_sampler`: busy cores, memory, cicc, ptxas and
host-compiler counts each second: `load.csv`, drawn by `scripts/schedule_plot.py`) and a process tracer
(`trace.csv`: every cicc, ptxas, cudafe++, cc1plus, gcc, fatbinary and nvcc process, first and last
seen every 0.25 s, with its arch, its source and its arguments), and stops at --deadline seconds
after this script started (what ran until then is kept). Then everything is packed into
`$OUT/<tag>.tar.xz`, folder `<tag>/` (`<tag>.log`, `bench.log`, `load.csv`, `trace.csv`,
`nvcc-time.csv`), and the log is copied to `$OUT`; `benches/crate_sim.py --logs <tag>.tar.xz` reads it as
it is. The files default to SUBSET below (`8.0 9.0`: 14 heavy cicc jobs, at once on 16 cores).

The carried folder (`--carry`, git-ignored) holds `library_bench.xz` (stripped,
`cargo build --release -p archbuild --features remote --example library_bench`) and `fa.tar.xz`
(`fa/kernels`: candle-flash-attn 0.11.1's `kernels/`; `fa/cutlass/include`: `nvidia-cutlass==4.2.0`'s
`cutlass_library/source/include`), as the `crate` scenario of `scripts/gpu_run.py` uses them.
Standard library only; every process from an argument vector.
"""

import argparse
import csv
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_run  # noqa: E402  (load_sampler, FLASH_FLAGS, the machine lines)

# The measured subset: every kind of the crate's kernels (head dim 32 … 512, fp16 and bf16, causal
# or not, the split-kv kernels at a small and a large head dim), the hdim64 file whose
# cudaforge's-pattern build on this host did not end in 530 s (2026-11-25, 01a0b63), and
# flash_api.cu (host-heavy).
SUBSET = [
    "flash_api.cu",
    "flash_fwd_hdim32_fp16_sm80.cu",
    "flash_fwd_hdim64_fp16_sm80.cu",
    "flash_fwd_hdim160_fp16_causal_sm80.cu",
    "flash_fwd_hdim256_bf16_sm80.cu",
    "flash_fwd_hdim512_fp16_causal_sm80.cu",
    "flash_fwd_splitkv_hdim64_bf16_sm80.cu",
    "flash_fwd_splitkv_hdim256_fp16_causal_sm80.cu",
]
TRACED = ("cicc", "ptxas", "cudafe++", "cc1plus", "gcc", "fatbinary", "nvcc", "as", "ld", "collect2")
T0 = time.time()


def say(log, text=""):
    print(text, flush=True)
    log.write(text + "\n")
    log.flush()


def tracer(path, stop, period=0.25):
    """First and last sighting of every traced process, with its parent and arguments. Every
    process's name is read again at each sample, so a child seen between its fork and its exec
    is recorded under the program it becomes."""
    seen = {}  # pid -> [comm, ppid, first, last, cmdline]
    done = []
    while not stop.is_set():
        now = time.time()
        alive = set()
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/comm") as f:
                    comm = f.read().strip()
            except OSError:
                continue
            old = seen.get(pid)
            if old and old[0] == comm:
                old[3] = now
                alive.add(pid)
                continue
            if old:  # the same pid, another program (an exec, or a reused pid)
                done.append([pid] + seen.pop(pid))
            if comm not in TRACED:
                continue
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
                with open(f"/proc/{pid}/stat") as f:
                    ppid = f.read().rsplit(")", 1)[1].split()[1]
            except (OSError, IndexError):
                continue
            seen[pid] = [comm, ppid, now, now, cmd]
            alive.add(pid)
        for pid in [p for p in seen if p not in alive]:
            done.append([pid] + seen.pop(pid))
        stop.wait(period)
    done += [[pid] + v for pid, v in seen.items()]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["pid", "comm", "ppid", "first", "last", "arch", "src", "cmdline"])
        for pid, comm, ppid, first, last, cmd in sorted(done, key=lambda r: r[3]):
            arch = re.search(r"(?:-arch[= ]|--gpu-name[= ]|-gencode=arch=)(\S+)", cmd)
            src = re.search(r"(flash_\w+?)\.(?:cu|cpp1\.ii|cpp4\.ii|ptx|module_id|compute_\d+)\b", cmd)
            # long include lists cut; the arch and the file names are kept above
            short = cmd if len(cmd) <= 600 else cmd[:300] + " ... " + cmd[-300:]
            w.writerow([pid, comm, ppid, f"{first:.2f}", f"{last:.2f}", arch.group(1) if arch else "",
                        src.group(1) if src else "", short])


def unxz(src, dest):
    import lzma
    with lzma.open(src) as fin, open(dest, "wb") as fout:
        shutil.copyfileobj(fin, fout)
    os.chmod(dest, 0o755)


def package(root, kernels, files):
    """library_bench's package: each file with `#include "bench_common.h"` first, in pkg/src."""
    pkg = os.path.join(root, "pkg")
    os.makedirs(os.path.join(pkg, "src"), exist_ok=True)
    with open(os.path.join(pkg, "src", "bench_common.h"), "w") as f:
        f.write("#pragma once\n#define BENCH_COMMON 1\n")
    for name in files:
        with open(os.path.join(kernels, name), encoding="utf-8") as f:
            text = f.read()
        with open(os.path.join(pkg, "src", name), "w", encoding="utf-8") as f:
            f.write('#include "bench_common.h"\n' + text)
    return pkg


def gencodes(archs):
    """`-gencode=arch=compute_80,code=sm_80` per plain arch, as ArchList::gencode_flags writes it."""
    out = []
    for a in archs.split():
        sm = a.replace(".", "")
        out.append(f"-gencode=arch=compute_{sm},code=sm_{sm}")
    return out


def run_nvcc_side(a, log, kernels, cutlass, deadline):
    pkg = package(os.path.join(a.root, "work", "a"), kernels, a.files)
    times = os.path.join(a.root, "time")
    os.makedirs(times, exist_ok=True)
    if a.side == "nvcc-pattern":
        tasks = [(i, f, gencodes(a.archs), "all") for i, f in enumerate(a.files)]
    else:  # nvcc-chains: every (file, arch) pair, interleaved by arch so both archs start at once
        tasks = []
        for arch in a.archs.split():
            for i, f in enumerate(a.files):
                tasks.append((i, f, gencodes(arch), arch.replace(".", "")))
        tasks.sort(key=lambda t: (t[0], t[3]))
    env = dict(os.environ, PATH=gpu_run.CUDA_BIN + os.pathsep + os.environ.get("PATH", ""))
    pending = list(tasks)
    running = {}
    results = []
    start = time.time()
    say(log, f"mark: nvcc start {start:.3f}")
    while pending or running:
        while pending and len(running) < a.jobs:
            i, f, gc, tag = pending.pop(0)
            argv = ["nvcc", "-c", *gc, f"-I{cutlass}", f"-I{kernels}", *gpu_run.FLASH_FLAGS,
                    os.path.join("src", f), "-o", os.path.join(pkg, f"nvcc-{i}-{tag}.o"),
                    "--time", os.path.join(times, f"{f[:-3]}.{tag}.csv")]
            if not results and not running:
                say(log, "first command: " + " ".join(argv))
            p = subprocess.Popen(argv, cwd=pkg, env=env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
            running[p] = (f, tag, time.time())
        for p in list(running):
            if p.poll() is not None:
                f, tag, began = running.pop(p)
                out = p.stdout.read().decode("utf-8", "replace") if p.stdout else ""
                now = time.time()
                say(log, f"    [{now - start:7.2f} s] nvcc -c src/{f} ({tag}): rc={p.returncode}, "
                         f"{now - began:.2f} s")
                if p.returncode:
                    say(log, "\n".join(out.splitlines()[-15:]))
                results.append((f, tag, p.returncode, now - began))
        if time.time() > deadline:
            for p, (f, tag, began) in running.items():
                say(log, f"    deadline: stopping nvcc -c src/{f} ({tag}) after {time.time() - began:.2f} s")
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            say(log, f"not run (deadline): {[t[1] + ' ' + t[3] for t in pending]}")
            break
        time.sleep(0.2)
    end = time.time()
    say(log, f"mark: nvcc end {end:.3f}")
    ok = len(results) == len(tasks) and all(r[2] == 0 for r in results)
    say(log, f"{a.side}: {len(results)} of {len(tasks)} nvcc runs ended, "
             f"{'all ok' if ok else 'NOT all finished or ok'}; wall {end - start:.2f} s")
    # one CSV of every phase, file and arch named
    with open(os.path.join(a.root, "nvcc-time.csv"), "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(["file", "run", "phase", "arch", "ms"])
        for name in sorted(os.listdir(times)):
            f, _, tag = name[:-4].rpartition(".")
            with open(os.path.join(times, name), newline="") as fin:
                for row in list(csv.reader(fin))[1:]:
                    if len(row) >= 7:
                        w.writerow([f, tag, row[1].strip(), row[4].strip(), row[6].strip()])
    return 0 if ok else 1


def run_archbuild_side(a, log, kernels, cutlass, deadline):
    bench = os.path.join(a.carry, "library_bench")
    if not os.path.exists(bench):
        unxz(bench + ".xz", bench)
    argv = [os.path.abspath(bench), *a.files, "--archs", a.archs, "-I", cutlass, "-I", kernels]
    for flag in gpu_run.FLASH_FLAGS:
        argv += ["--flag", flag]
    argv += ["--jobs", str(a.jobs), "--skip-nvcc", "--verbose", "--edit-header",
             os.path.join(kernels, "flash.h"), "--work", os.path.join(a.root, "work")]
    env = dict(os.environ, PATH=gpu_run.CUDA_BIN + os.pathsep + os.environ.get("PATH", ""))
    if a.share_cicc:
        env["ARCHBUILD_SHARE_CICC"] = a.share_cicc
    say(log, "command: " + " ".join(argv) + (f"  (ARCHBUILD_SHARE_CICC={a.share_cicc})" if a.share_cicc else ""))
    bench_log = os.path.join(a.root, "bench.log")
    start = time.time()
    with open(bench_log, "w") as out:
        p = subprocess.Popen(argv, cwd=kernels, env=env, stdin=subprocess.DEVNULL, stdout=out,
                             stderr=subprocess.STDOUT, start_new_session=True)
        while p.poll() is None and time.time() < deadline:
            time.sleep(0.5)
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = 124
        else:
            rc = p.returncode
    with open(bench_log, "a") as out:
        out.write(f"bench rc={rc} seconds={time.time() - start:.2f}\n")
    with open(bench_log, encoding="utf-8", errors="replace") as f:
        for row in f:
            if not row.startswith("        ") and "warning" not in row:
                say(log, row.rstrip("\n"))
    return rc


def pack(argv):
    """The carried folder: fa.tar.xz (fa/kernels, fa/cutlass/include) and library_bench.xz."""
    import lzma
    import zipfile
    p = argparse.ArgumentParser(prog="crate_scale16.py pack")
    p.add_argument("--crate", required=True, help="candle-flash-attn 0.11.1, unpacked")
    p.add_argument("--cutlass-wheel", required=True, help="nvidia_cutlass-4.2.0.0-py3-none-any.whl")
    p.add_argument("--bench", required=True, help="library_bench, as cargo built it")
    p.add_argument("--carry", default=".gpu50")
    a = p.parse_args(argv)
    os.makedirs(a.carry, exist_ok=True)
    prefix = "cutlass_library/source/include/"
    with tarfile.open(os.path.join(a.carry, "fa.tar.xz"), "w:xz", preset=9) as tar, \
            zipfile.ZipFile(a.cutlass_wheel) as whl:
        tar.add(os.path.join(a.crate, "kernels"), arcname="fa/kernels")
        for info in whl.infolist():
            if info.filename.startswith(prefix) and not info.is_dir():
                data = whl.read(info)
                ti = tarfile.TarInfo("fa/cutlass/include/" + info.filename[len(prefix):])
                ti.size, ti.mtime, ti.mode = len(data), time.time() - 3600, 0o644
                tar.addfile(ti, io.BytesIO(data))
    stripped = os.path.join(a.carry, "library_bench")
    shutil.copy(a.bench, stripped)
    subprocess.run(["strip", stripped], check=True)
    with open(stripped, "rb") as fin, lzma.open(stripped + ".xz", "wb", preset=9) as fout:
        shutil.copyfileobj(fin, fout)
    os.remove(stripped)
    for n in ("fa.tar.xz", "library_bench.xz"):
        print(f"{os.path.join(a.carry, n)}: {os.path.getsize(os.path.join(a.carry, n)) / 2**20:.1f} MiB")
    return 0


def main():
    if sys.argv[1:2] == ["pack"]:
        return pack(sys.argv[2:])
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("side", choices=("archbuild", "nvcc-pattern", "nvcc-chains"))
    p.add_argument("--carry", default=".gpu50")
    p.add_argument("--root", default="/tmp/crate-scale16")
    p.add_argument("--archs", default="8.0 9.0")
    p.add_argument("--files", nargs="+", default=SUBSET)
    p.add_argument("--jobs", type=int, default=gpu_run.nproc())
    p.add_argument("--deadline", type=float, default=560,
                   help="seconds after this script started at which the side is stopped (default 560)")
    p.add_argument("--share-cicc", help="ARCHBUILD_SHARE_CICC for the archbuild side (default: unset, on)")
    p.add_argument("--tag", help="the log's and tarball's name (default: the side)")
    p.add_argument("--dry-run", action="store_true", help="print the plan and stop")
    a = p.parse_args()
    a.tag = a.tag or a.side
    a.carry = os.path.abspath(a.carry)
    if a.dry_run:
        print(a)
        return 0
    shutil.rmtree(a.root, ignore_errors=True)
    os.makedirs(a.root)
    out_dir = os.environ.get("OUT", a.root)
    log_path = os.path.join(a.root, f"{a.tag}.log")
    log = open(log_path, "w")
    host = gpu_run.Host()
    host.log = log
    host.step("machine")
    gpu_run.machine(host, "date", "props", "nvcc", "gcc", "cpus", "memory")
    for row in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
        if row.split(":")[0] in ("CPU(s)", "Model name", "Thread(s) per core", "Core(s) per socket",
                                 "Socket(s)", "NUMA node(s)", "L3", "CPU max MHz"):
            say(log, row)
    host.step("unpack")
    t = time.time()
    with tarfile.open(os.path.join(a.carry, "fa.tar.xz")) as tar:
        tar.extractall(a.root)
    kernels = os.path.join(a.root, "fa", "kernels")
    cutlass = os.path.join(a.root, "fa", "cutlass", "include")
    say(log, f"unpacked in {time.time() - t:.1f} s; {len(a.files)} files: {' '.join(a.files)}")
    host.step(f"{a.side}, archs `{a.archs}`, {a.jobs} jobs")
    deadline = T0 + a.deadline
    stop = threading.Event()
    stop_file = os.path.join(a.root, "sampler.stop")
    sampler = threading.Thread(target=gpu_run.load_sampler, args=(os.path.join(a.root, "load.csv"), stop_file, 1.0),
                               daemon=True)
    trace = threading.Thread(target=tracer, args=(os.path.join(a.root, "trace.csv"), stop), daemon=True)
    sampler.start()
    trace.start()
    try:
        if a.side == "archbuild":
            rc = run_archbuild_side(a, log, kernels, cutlass, deadline)
        else:
            rc = run_nvcc_side(a, log, kernels, cutlass, deadline)
    finally:
        with open(stop_file, "w"):
            pass
        stop.set()
        sampler.join(5)
        trace.join(10)
    host.step("collect")
    say(log, f"rc={rc}; script {time.time() - T0:.1f} s")
    log.close()
    names = [n for n in (f"{a.tag}.log", "bench.log", "load.csv", "trace.csv", "nvcc-time.csv")
             if os.path.exists(os.path.join(a.root, n))]
    with tarfile.open(os.path.join(out_dir, f"{a.tag}.tar.xz"), "w:xz") as tar:
        for n in names:
            tar.add(os.path.join(a.root, n), arcname=f"{a.tag}/{n}")
    if out_dir != a.root:
        shutil.copy(log_path, os.path.join(out_dir, f"{a.tag}.log"))
    print(f"packed {names} into {a.tag}.tar.xz")
    return rc


if __name__ == "__main__":
    sys.exit(main())
