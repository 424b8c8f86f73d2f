#!/usr/bin/env python3
"""candle-flash-attn at crate scale, predicted from job times measured on a 16-core GPU host (issue 50).

    python3 benches/crate_sim.py [--logs results/logs/2026-12-07-56c1165-crate-scale-16.tar.xz]
                                 [--svg results/2026-12-07-56c1165-crate-scale.svg]

Reads the record's log archive as it is (no unpacking): for each run `NAME/` in it, `bench.log`
(archbuild's side: `library_bench --verbose`, every cicc and ptxas job's end and seconds, every
host object's seconds) or `nvcc-time.csv` (cudaforge's side: `nvcc --time`, every phase of every
`nvcc -c`), and `load.csv` (the load sampler) for the plot. From those job times it

1. replays each measured run with a list-scheduling model of its strategy and prints measured
   against predicted wall time — with the run's own job times, and with another run's (another
   call, or the other side's processes): the check that the model predicts what ran (goal: within
   10%);
2. predicts cudaforge's pattern (one `nvcc -c` per file with every `-gencode`, the archs one after
   another in it, files in parallel) and archbuild (cicc and ptxas per file and arch on one job
   graph, `plan::priorities`' start order, followers of a cicc class starting with their lead, the
   host objects after every device job and the fat binaries) for the measured subset and for the
   whole crate: 53 files, `8.0 8.6 8.9 9.0`, on 16, 64 and 128 cores; prints both makespans and
   the ratio against the goal (archbuild cold <= 0.85x cudaforge's pattern);
3. prints where archbuild's time goes (core-seconds against cores x wall, the critical path, the
   host stage after the device jobs) and what closes the gap: variants of the model with the host
   objects started as soon as their file's device code is done, and with each file's cicc work
   split in k parts;
4. checks the whole-crate model against two earlier runs that no job time here came from: the
   53 files for `9.0` on 16 jobs (2026-11-25, 3473319: device side 899.5 s) and for `8.0 8.9` on a
   64-core host (2026-11-27, 3ac094a: cicc and ptxas counts at 360, 420 and 480 s);
5. with --svg, draws the cores' use over time, measured (load sampler) and predicted.

Job times of files not in the subset come from the measured files of the same kind (forward or
split-kv), interpolated in log(head dim) per phase and arch; the split-kv kernels at head dim 512
from split-kv 256 times fwd 512 / fwd 256; 8.6 and 8.9 take 8.0's times (both are family 8, and
2026-11-26's six-files run measured compute_89's cicc at 0.91-1.01x compute_80's). A second table
(every heavy file at the subset's median) shows how much the ratios depend on that mapping.
Standard library only; takes a few seconds.
"""

import argparse
import csv
import heapq
import io
import math
import os
import re
import statistics
import sys
import tarfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_LOGS = os.path.join(REPO, "results", "logs", "2026-12-07-56c1165-crate-scale-16.tar.xz")
GOAL = 0.85

# The crate's 53 files: flash_api.cu, 36 forward kernels (head dims x fp16/bf16 x causal or
# not), 16 split-kv kernels.
FWD_HDIMS = (32, 64, 96, 128, 160, 192, 224, 256, 512)
SPLITKV_HDIMS = (64, 128, 256, 512)
CRATE = (["flash_api"]
         + [f"flash_fwd_hdim{h}_{t}{c}_sm80" for h in FWD_HDIMS for t in ("bf16", "fp16") for c in ("_causal", "")]
         + [f"flash_fwd_splitkv_hdim{h}_{t}{c}_sm80" for h in SPLITKV_HDIMS for t in ("bf16", "fp16")
            for c in ("_causal", "")])
assert len(CRATE) == 53
CRATE_ARCHS = (80, 86, 89, 90)
# cicc classes proven on CUDA 13.0 (crates/archbuild/src/plan/share.rs): a class's lowest arch
# in the list leads, the others follow (start with it, compile on their own when texts differ).
CLASSES = ((80, 87, 89), (86, 88))


def shape(module):
    m = re.match(r"flash_fwd_(splitkv_)?hdim(\d+)_", module)
    return (("splitkv" if m.group(1) else "fwd"), int(m.group(2))) if m else None


# ---------------------------------------------------------------- reading the logs

def read_archive(path):
    runs = {}
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            parts = member.name.split("/")
            if member.isfile() and len(parts) >= 2:
                runs.setdefault(parts[-2], {})[parts[-1]] = tar.extractfile(member).read().decode("utf-8", "replace")
    return runs


JOB = re.compile(r"^\s+\[\s*([0-9.]+) s\] (\S+) (cicc|ptxas) (?:compute|sm)_(\d+)a?: ran, ([0-9.]+) s")
HOST = re.compile(r"^\s+(\S+) host object: compiled, ([0-9.]+) s")
STEP = re.compile(r"^(archbuild cold|comment-only header edit|second home, shared remote|unchanged rebuild):\s+"
                  r"([0-9.]+) s\s*(.*)$")
MARK = re.compile(r"^mark: (\S+) (start|end) ([0-9.]+)")


def parse_archbuild(text):
    """The cold build's jobs (module, phase, arch, end, seconds) and host objects; every step."""
    run = {"jobs": [], "host": {}, "steps": {}, "marks": {}}
    in_cold = True
    for row in text.splitlines():
        m = MARK.match(row)
        if m:
            run["marks"].setdefault(m.group(1), {})[m.group(2)] = float(m.group(3))
        m = STEP.match(row)
        if m:
            run["steps"][m.group(1)] = (float(m.group(2)), m.group(3))
            in_cold = False
            continue
        if not in_cold:
            continue
        m = JOB.match(row)
        if m:
            run["jobs"].append((m.group(2), m.group(3), int(m.group(4)), float(m.group(1)), float(m.group(5))))
        m = HOST.match(row)
        if m:
            run["host"][m.group(1)] = float(m.group(2))
    return run


def parse_nvcc_time(text):
    """`nvcc --time` rows of every run: {(module, run): [(phase, arch, seconds)]}."""
    out = {}
    for r in csv.DictReader(io.StringIO(text)):
        arch = re.sub(r"\D", "", r["arch"]) or None
        out.setdefault((r["file"], r["run"]), []).append((r["phase"], int(arch) if arch else None, float(r["ms"]) / 1000))
    return out


def parse_nvcc_log(text):
    """Each `nvcc -c` of a run's log: (module, run tag, seconds, rc), its wall and deadline stops."""
    done, stopped, wall = [], [], None
    for row in text.splitlines():
        m = re.match(r"^\s+\[\s*[0-9.]+ s\] nvcc -c src/(\S+)\.cu \((\w+)\): rc=(\d+), ([0-9.]+) s", row)
        if m:
            done.append((m.group(1), m.group(2), float(m.group(4)), int(m.group(3))))
        m = re.match(r"^\s+deadline: stopping nvcc -c src/(\S+)\.cu \((\w+)\) after ([0-9.]+) s", row)
        if m:
            stopped.append((m.group(1), m.group(2), float(m.group(3))))
        m = re.search(r"wall ([0-9.]+) s", row)
        if m and row.startswith("nvcc-"):
            wall = float(m.group(1))
    return {"done": done, "stopped": stopped, "wall": wall}


def read_load(text):
    rows = []
    for r in csv.DictReader(io.StringIO(text)):
        rows.append((float(r["epoch"]), float(r["busy_cores"]), int(r["cicc"]), int(r["ptxas"]),
                     int(r["cudafe++"]) + int(r["cc1plus"])))
    return rows


# ---------------------------------------------------------------- job-time tables

def table_from_archbuild(run):
    """{module: {("cicc", arch): s, ("ptxas", arch): s, "host": s}} from archbuild's cold build."""
    t = {}
    for module, phase, arch, _end, secs in run["jobs"]:
        t.setdefault(module, {})[(phase, arch)] = secs
    for module, secs in run["host"].items():
        t.setdefault(module, {})["host"] = secs
    return t


def table_from_nvcc(rows):
    """The same table from `nvcc --time`: cicc = nvcc's gcc -E for the arch + cicc (archbuild's cicc
    job runs both), ptxas, host = host preprocessing + cudafe++ + the host compile, fatbinary, and
    `pp` (the device preprocessing alone: a follower's extra run). One-arch runs (nvcc-chains)
    give each arch's phases; their host parts are averaged."""
    t = {}
    for (module, _run), phases in rows.items():
        e = t.setdefault(module, {"_host": [], "_fatbin": [], "_pp": []})
        host = fat = 0.0
        for phase, arch, secs in phases:
            if phase.startswith("gcc (preprocessing 1)"):
                e[("cicc", arch)] = e.get(("cicc", arch), 0.0) + secs
                e["_pp"].append(secs)
            elif phase == "cicc":
                e[("cicc", arch)] = e.get(("cicc", arch), 0.0) + secs
            elif phase == "ptxas":
                e[("ptxas", arch)] = secs
            elif phase == "fatbinary":
                fat += secs
            elif phase.startswith("gcc (preprocessing 4)") or phase.startswith("cudafe++") or phase.startswith("gcc (compiling)"):
                host += secs
        e["_host"].append(host)
        e["_fatbin"].append(fat)
    for e in t.values():
        e["host"] = statistics.mean(e.pop("_host"))
        e["fatbin"] = statistics.mean(e.pop("_fatbin"))
        pp = e.pop("_pp")
        e["pp"] = statistics.mean(pp) if pp else 0.0
    return t


def merge(*tables):
    """Per module and key, the mean over the tables that have it."""
    out = {}
    for t in tables:
        for module, e in t.items():
            for k, v in e.items():
                out.setdefault(module, {}).setdefault(k, []).append(v)
    return {m: {k: statistics.mean(v) for k, v in e.items()} for m, e in out.items()}


def crate_table(sub, archs, median=False):
    """Every crate file's job times from the subset's (see the module's text)."""
    measured = {m: e for m, e in sub.items() if shape(m)}
    keys = sorted({k for e in measured.values() for k in e if isinstance(k, tuple)} | {"host"}, key=str)
    base_arch = 80

    def value(kind, hdim, key):
        pts = sorted((shape(m)[1], e[key]) for m, e in measured.items() if shape(m)[0] == kind and key in e)
        if not pts:  # no file of this kind measured: every heavy file's
            pts = sorted((shape(m)[1], e[key]) for m, e in measured.items() if key in e)
        if not pts:
            return None
        if median:
            return statistics.median(e[key] for e in measured.values() if key in e)
        pts_by = {}
        for h, v in pts:
            pts_by.setdefault(h, []).append(v)
        xs = sorted(pts_by)
        ys = [statistics.mean(pts_by[h]) for h in xs]
        if hdim <= xs[0]:
            return ys[0]
        if hdim >= xs[-1]:
            return ys[-1]
        for (x0, y0), (x1, y1) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
            if x0 <= hdim <= x1:
                w = (math.log(hdim) - math.log(x0)) / (math.log(x1) - math.log(x0))
                return y0 + w * (y1 - y0)
        return ys[-1]

    def arch_key(key, arch):
        return (key[0], arch) if isinstance(key, tuple) else key

    out = {}
    for module in CRATE:
        e = {}
        s = shape(module)
        for arch in archs:
            for phase in ("cicc", "ptxas"):
                src = arch if any((phase, arch) in x for x in sub.values()) else base_arch
                if module in sub and (phase, src) in sub[module]:
                    e[(phase, arch)] = sub[module][(phase, src)]
                    continue
                if s is None:  # flash_api.cu, not measured: 2026-11-25's fix.log times
                    e[(phase, arch)] = {"cicc": 3.5, "ptxas": 0.02}[phase]
                    continue
                kind, hdim = s
                v = value(kind, hdim, (phase, src))
                if kind == "splitkv" and hdim > 256 and not median:
                    f512, f256, sk256 = value("fwd", 512, (phase, src)), value("fwd", 256, (phase, src)), value("splitkv", 256, (phase, src))
                    if f512 and f256 and sk256:
                        v = sk256 * f512 / f256
                e[(phase, arch)] = v
        for k in ("host", "fatbin", "pp"):
            if module in sub and k in sub[module]:
                e[k] = sub[module][k]
            elif s is None:
                e[k] = {"host": 5.3, "fatbin": 0.05, "pp": 1.0}[k]
            else:
                vals = [x[k] for m, x in measured.items() if k in x and shape(m)[0] == s[0]] or \
                       [x[k] for x in measured.values() if k in x]
                e[k] = statistics.median(vals) if vals else 0.0
        out[module] = e
    return out


# ---------------------------------------------------------------- the list scheduler

class Job:
    __slots__ = ("name", "module", "kind", "dur", "dep", "early", "prio", "after", "start", "end")

    def __init__(self, name, module, kind, dur, dep=None, early=False, prio=0, after=()):
        self.name, self.module, self.kind, self.dur = name, module, kind, dur
        self.dep, self.early, self.prio, self.after = dep, early, prio, list(after)
        self.start = self.end = None


def schedule(jobs, workers):
    """Event-driven list scheduling: a free worker takes the ready job of highest priority (then the
    lowest index). A job is ready when `dep` has ended (an `early` job: when `dep` has started) and
    every job in `after` has ended. Returns the makespan; each job gets start and end."""
    index = {id(j): i for i, j in enumerate(jobs)}
    waiting = set(range(len(jobs)))
    running = []  # (end, index)
    ready = []    # (-prio, index)
    t, free = 0.0, workers

    def check():
        for i in sorted(waiting):
            j = jobs[i]
            if j.dep is not None:
                if j.early and j.dep.start is None:
                    continue
                if not j.early and j.dep.end is None:
                    continue
            if any(a.end is None for a in j.after):
                continue
            waiting.discard(i)
            heapq.heappush(ready, (-j.prio, i))

    check()
    while waiting or ready or running:
        started = False
        while free and ready:
            _, i = heapq.heappop(ready)
            j = jobs[i]
            j.start = t
            j.end = None
            heapq.heappush(running, (t + j.dur, i))
            free -= 1
            started = True
        if started:
            check()  # early jobs of what started
            if free and ready:
                continue
        if not running:
            if waiting:
                raise RuntimeError("deadlock in the job graph")
            break
        t, i = heapq.heappop(running)
        jobs[i].end = t
        free += 1
        while running and running[0][0] <= t + 1e-9:
            _, k = heapq.heappop(running)
            jobs[k].end = t
            free += 1
        check()
    del index
    return max((j.end for j in jobs), default=0.0)


def class_of(arch):
    return next((c for c in CLASSES if arch in c), None)


def archbuild_jobs(table, modules, archs, host_early=False, split=1, split_overhead=0.05, share=True):
    """archbuild's job graph: per module and arch a cicc job and a ptxas job, `plan::priorities`'
    start order (class leads, then cicc jobs that feed a ptxas job, newest arch first; then ptxas
    newest first); a follower starts with its lead and, its text differing, compiles with one
    more preprocessing run of its lead's text; then each module's fat binary, then the host
    objects (one stage after every device job: `output/host_stage.rs`; `host_early`: each as soon
    as its module's fat binary exists). `split` > 1: each cicc and ptxas job in `split` parts of
    1/split of the work plus `split_overhead` of the whole (the cost of running the headers'
    front end again per part)."""
    jobs, per_module = [], {}
    leads = {}
    for module in modules:
        e = table[module]
        present = [a for a in archs if ("cicc", a) in e]
        cls_lead = {}
        for a in sorted(present):
            c = class_of(a)
            if share and c:
                cls_lead.setdefault(c, a)
        for a in present:
            c = class_of(a)
            lead = cls_lead.get(c) if share and c else None
            is_lead = lead == a and sum(1 for b in present if class_of(b) == c) > 1
            prio = (30000 if is_lead else 20000) + a
            dur = e[("cicc", a)]
            follower = lead is not None and lead != a
            if follower:
                dur += e.get("pp", 0.0)
            parts = []
            for k in range(split):
                d = dur / split + (dur * split_overhead if split > 1 else 0.0)
                j = Job(f"{module} cicc {a}" + (f"/{k}" if split > 1 else ""), module, "cicc", d, prio=prio)
                if follower:
                    j.dep, j.early = leads[(module, lead)][0], True
                parts.append(j)
            if is_lead:
                leads[(module, a)] = parts
            jobs.extend(parts)
            per_module.setdefault(module, []).append((a, parts))
    ptxas = []
    for module, lst in per_module.items():
        e = table[module]
        for a, parts in lst:
            for k, c in enumerate(parts):
                d = e[("ptxas", a)] / split + (e[("ptxas", a)] * split_overhead if split > 1 else 0.0)
                p = Job(f"{module} ptxas {a}" + (f"/{k}" if split > 1 else ""), module, "ptxas", d, dep=c, prio=a)
                ptxas.append(p)
    jobs.extend(ptxas)
    device = list(jobs)
    fat = []
    for module in per_module:
        mine = [p for p in ptxas if p.module == module]
        fat.append(Job(f"{module} fatbin", module, "fatbin", table[module].get("fatbin", 0.05), after=mine, prio=1))
    jobs.extend(fat)
    for f in fat:
        e = table[f.module]
        after = [f] if host_early else device + fat
        jobs.append(Job(f"{f.module} host", f.module, "host", e.get("host", 10.0), after=after,
                        prio=(5 if host_early else 0)))
    return jobs


def cudaforge_jobs(table, modules, archs, one_arch=False):
    """cudaforge's pattern: one `nvcc -c` per module with every -gencode, its phases in nvcc's
    order (host preprocessing and cudafe++; per arch gcc -E + cicc, ptxas; fatbinary; host
    compile), one module per worker, modules in order. `one_arch`: an `nvcc -c` per (module,
    arch) instead (the nvcc-chains runs), each with its own host part."""
    jobs = []
    runs = [(m, (a,)) for m in modules for a in archs] if one_arch else [(m, tuple(archs)) for m in modules]
    for module, lst in runs:
        e = table[module]
        host = e.get("host", 10.0)
        steps = [("host", 0.6 * host)]  # host preprocessing and cudafe++ (the host compile is the rest)
        for a in lst:
            if ("cicc", a) in e:
                steps += [("cicc", e[("cicc", a)]), ("ptxas", e[("ptxas", a)])]
        steps += [("fatbin", e.get("fatbin", 0.05)), ("host", 0.4 * host)]
        prev = None
        for k, (kind, d) in enumerate(steps):
            j = Job(f"{module} {'/'.join(map(str, lst))} {kind} {k}", module, kind, d, dep=prev, prio=0)
            # the next step of a started nvcc runs on its worker: it goes first
            j.prio = 1 if prev is not None else 0
            jobs.append(j)
            prev = j
    return jobs


def simulate(kind, table, modules, archs, cores, **kw):
    jobs = (archbuild_jobs if kind == "archbuild" else cudaforge_jobs)(table, modules, archs, **kw)
    span = schedule(jobs, cores)
    return span, jobs


def counts_at(jobs, t):
    c = {"cicc": 0, "ptxas": 0, "host": 0}
    for j in jobs:
        if j.start is not None and j.start <= t < j.end and j.kind in c:
            c[j.kind] += 1
    return c


def busy_core_seconds(jobs):
    return sum(j.dur for j in jobs)


def critical_path(jobs):
    """The longest chain of job times through deps and `after` lists."""
    memo = {}

    def longest(j):
        if id(j) not in memo:
            pre = ([j.dep] if j.dep is not None and not j.early else []) + j.after
            memo[id(j)] = j.dur + max((longest(p) for p in pre), default=0.0)
        return memo[id(j)]

    return max(longest(j) for j in jobs)


# ---------------------------------------------------------------- the report

def pct(pred, meas):
    return f"{100 * (pred - meas) / meas:+.1f}%"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--logs", default=DEFAULT_LOGS, help="the record's log archive")
    p.add_argument("--svg", help="write the cores-over-time plot here")
    a = p.parse_args()
    runs = read_archive(a.logs)
    arch_runs = {n: parse_archbuild(r["bench.log"]) for n, r in sorted(runs.items()) if "bench.log" in r}
    nvcc_runs = {n: (parse_nvcc_time(r["nvcc-time.csv"]), parse_nvcc_log(r.get(f"{n}.log", "")))
                 for n, r in sorted(runs.items()) if "nvcc-time.csv" in r}
    arch_tables = {n: table_from_archbuild(r) for n, r in arch_runs.items() if r["jobs"]}
    nvcc_tables = {n: table_from_nvcc(rows) for n, (rows, _) in nvcc_runs.items()}
    subset = sorted({m for t in list(arch_tables.values()) + list(nvcc_tables.values()) for m in t})
    sub_archs = sorted({k[1] for t in arch_tables.values() for e in t.values() for k in e if isinstance(k, tuple)}
                       | {k[1] for t in nvcc_tables.values() for e in t.values() for k in e if isinstance(k, tuple)})
    print(f"log archive: {os.path.relpath(a.logs, REPO)}")
    print(f"subset: {len(subset)} files, archs {sub_archs}; runs: archbuild {list(arch_tables)}, nvcc {list(nvcc_tables)}")

    # --- the measured job times
    print("\n== measured job times (s): cicc / ptxas per arch, host object; archbuild runs, then nvcc --time")
    for name, t in list(arch_tables.items()) + list(nvcc_tables.items()):
        print(f"  {name}:")
        for m in subset:
            if m not in t:
                continue
            e = t[m]
            cols = "  ".join(f"c{a} {e.get(('cicc', a), float('nan')):6.1f} p{a} {e.get(('ptxas', a), float('nan')):5.1f}"
                             for a in sub_archs)
            print(f"    {m:<46} {cols}  host {e.get('host', float('nan')):5.1f}")
    # the nvcc-side host part and fat binary fill in archbuild's tables (archbuild prints no
    # fatbinary time; its host objects are its own)
    nvcc_all = merge(*nvcc_tables.values()) if nvcc_tables else {}
    for t in arch_tables.values():
        for m, e in t.items():
            for k in ("fatbin", "pp"):
                if m in nvcc_all and k in nvcc_all[m]:
                    e.setdefault(k, nvcc_all[m][k])

    # --- 1. the model against what ran
    print("\n== 1. the model against the measured runs (wall s; predicted with the run's own job times, "
          "and with other runs')")
    checks = []
    for name, r in arch_runs.items():
        if not r["jobs"] or "archbuild cold" not in r["steps"]:
            print(f"  archbuild {name}: cold build not finished in the call; not a check")
            continue
        meas = r["steps"]["archbuild cold"][0]
        modules = sorted({j[0] for j in r["jobs"]})
        for src, table in [(f"{name} (own)", arch_tables[name])] + \
                          [(n, t) for n, t in arch_tables.items() if n != name] + \
                          [(n, t) for n, t in nvcc_tables.items()]:
            if not all(m in table and all(("cicc", x) in table[m] for x in sub_archs) for m in modules):
                continue
            tab = {m: dict(table[m]) for m in modules}
            for m in modules:  # host objects: archbuild's own where the table has none
                tab[m].setdefault("host", arch_tables[name][m].get("host", 10.0))
            span, _ = simulate("archbuild", tab, modules, sub_archs, 16)
            checks.append(abs(span - meas) / meas)
            print(f"  archbuild {name}: measured {meas:7.2f}  predicted from {src:<22} {span:7.2f}  {pct(span, meas)}")
    for name, (rows, log) in nvcc_runs.items():
        modules = sorted({m for (m, _r) in rows})
        one_arch = all(run != "all" for (_m, run) in rows)
        meas = log["wall"]
        if log["stopped"]:
            print(f"  nvcc {name}: stopped at the deadline ({len(log['stopped'])} runs unfinished); compared per finished run below")
        for src, table in [(f"{name} (own)", nvcc_tables[name])] + \
                          [(n, t) for n, t in nvcc_tables.items() if n != name] + list(arch_tables.items()):
            if not all(m in table and all(("cicc", x) in table[m] for x in sub_archs) for m in modules):
                continue
            tab = {m: dict(table[m]) for m in modules}
            for m in modules:
                for k in ("host", "fatbin"):
                    if k in nvcc_tables[name].get(m, {}):
                        tab[m].setdefault(k, nvcc_tables[name][m][k])
            span, jobs = simulate("cudaforge", tab, modules, sub_archs, 16, one_arch=one_arch)
            if meas and not log["stopped"]:
                checks.append(abs(span - meas) / meas)
                print(f"  nvcc {name}: measured {meas:7.2f}  predicted from {src:<22} {span:7.2f}  {pct(span, meas)}")
            # per nvcc run
            per = {}
            for j in jobs:
                key = (j.module, j.name.split()[1])
                per[key] = max(per.get(key, 0.0), j.end)
                per.setdefault(("start",) + key, j.start)
            errs = []
            for m, tag, secs, rc in log["done"]:
                k = (m, tag.replace("all", "/".join(map(str, sub_archs))) if tag == "all" else tag)
                k = (m, "/".join(map(str, sub_archs)) if tag == "all" else tag)
                if k in per:
                    errs.append((per[k] - per[("start",) + k]) / secs - 1)
            if errs:
                print(f"      per nvcc -c ({len(errs)} runs): predicted/measured - 1 from {src}: "
                      f"median {100 * statistics.median(errs):+.1f}%, range {100 * min(errs):+.1f}% .. {100 * max(errs):+.1f}%")
    if checks:
        print(f"  largest wall error of the model: {100 * max(checks):.1f}% (goal: within 10%)")

    # --- 2. the subset and the crate, both strategies
    tables = list(arch_tables.values())
    full = merge(*tables) if tables else merge(*nvcc_tables.values())
    for m, e in nvcc_all.items():  # archs only the nvcc side measured
        for k, v in e.items():
            full.setdefault(m, {}).setdefault(k, v)
    print("\n== 2. both strategies, from the mean of the archbuild runs' job times (nvcc's where archbuild has none)")
    results = {}
    sub_modules = [m for m in subset if all(("cicc", x) in full.get(m, {}) for x in sub_archs)]
    for cores in (16,):
        ab, ab_jobs = simulate("archbuild", full, sub_modules, sub_archs, cores)
        cf, cf_jobs = simulate("cudaforge", full, sub_modules, sub_archs, cores)
        results[("subset", cores)] = (ab, cf, ab_jobs, cf_jobs)
        print(f"  subset ({len(sub_modules)} files, {sub_archs}), {cores} cores: archbuild {ab:7.1f} s, "
              f"cudaforge's pattern {cf:7.1f} s, ratio {ab / cf:.3f} (goal <= {GOAL})")
    for label, median in (("interpolated by shape", False), ("every heavy file at the subset's median", True)):
        crate = crate_table(full, CRATE_ARCHS, median=median)
        print(f"  whole crate, 53 files, {list(CRATE_ARCHS)}, job times {label}:")
        for cores in (16, 64, 128):
            ab, ab_jobs = simulate("archbuild", crate, CRATE, CRATE_ARCHS, cores)
            cf, cf_jobs = simulate("cudaforge", crate, CRATE, CRATE_ARCHS, cores)
            if not median:
                results[("crate", cores)] = (ab, cf, ab_jobs, cf_jobs)
            mark = "met" if ab / cf <= GOAL else "MISSED"
            print(f"    {cores:>3} cores: archbuild {ab:7.1f} s, cudaforge's pattern {cf:7.1f} s, "
                  f"ratio {ab / cf:.3f} ({mark})")

    # --- 3. where the time goes, what closes it
    crate = crate_table(full, CRATE_ARCHS)
    print("\n== 3. where archbuild's time goes (whole crate) and what closes the gap")
    for cores in (16, 64, 128):
        ab, cf, ab_jobs, cf_jobs = results[("crate", cores)]
        work = busy_core_seconds(ab_jobs)
        cp = critical_path(ab_jobs)
        last_dev = max(j.end for j in ab_jobs if j.kind in ("cicc", "ptxas"))
        cp_cf = max(j.end for j in cf_jobs)
        print(f"  {cores:>3} cores: archbuild {ab:7.1f} s = device jobs until {last_dev:7.1f} s + host stage "
              f"{ab - last_dev:5.1f} s; core use {work / (cores * ab):.0%}; work/cores {work / cores:7.1f} s, "
              f"longest chain {cp:6.1f} s; cudaforge {cp_cf:7.1f} s, core use {busy_core_seconds(cf_jobs) / (cores * cp_cf):.0%}")
        for label, kw in (("host objects as soon as their file's device code is done", {"host_early": True}),
                          ("sharing off (no follower preprocessing)", {"share": False}),
                          ("each file's cicc and ptxas work split in 2 (+5% each)", {"split": 2}),
                          ("split in 4 (+5% each)", {"split": 4}),
                          ("split in 4 and host objects early", {"split": 4, "host_early": True})):
            span, _ = simulate("archbuild", crate, CRATE, CRATE_ARCHS, cores, **kw)
            print(f"        {label:<58} {span:7.1f} s, ratio {span / cf:.3f}")

    # --- 4. the model against earlier whole-crate runs
    print("\n== 4. the whole-crate model against earlier runs (no job time here came from them)")
    c90 = crate_table(full, (90,))
    span, jobs = simulate("archbuild", c90, CRATE, (90,), 16)
    dev = max(j.end for j in jobs if j.kind in ("cicc", "ptxas"))
    print(f"  2026-11-25 (3473319): 53 files, 9.0, 16 jobs, H100 host: device side measured 899.5 s, predicted {dev:.1f} s "
          f"({pct(dev, 899.5)})")
    c8089 = crate_table(full, (80, 89))
    span, jobs = simulate("archbuild", c8089, CRATE, (80, 89), 64)
    seen = {360: (52, 12), 420: (40, 24), 480: (26, 38)}
    for scale in (1.0, 1.45):
        sc = {m: {k: (v * scale if isinstance(k, tuple) else v) for k, v in e.items()} for m, e in c8089.items()}
        span, jobs = simulate("archbuild", sc, CRATE, (80, 89), 64)
        got = ", ".join(f"{t} s: {counts_at(jobs, t)['cicc']} cicc {counts_at(jobs, t)['ptxas']} ptxas "
                        f"(seen {c} / {p})" for t, (c, p) in seen.items())
        first = min(j.end for j in jobs if j.kind == "cicc")
        print(f"  2026-11-27 (3ac094a): 53 files, 8.0 8.9, 64 jobs, job times x{scale}: first cicc ends {first:.0f} s "
              f"(seen: first ptxas by 360 s); {got}; predicted end {span:.0f} s (not seen: > 520 s)")

    if a.svg:
        draw(a.svg, runs, results)
        print(f"\nwrote {a.svg}")
    return 0


# ---------------------------------------------------------------- the plot

COLORS = {"cicc": "#4e79a7", "ptxas": "#f28e2b", "host": "#59a14f"}


def series_from_jobs(jobs, step=1.0):
    end = max(j.end for j in jobs)
    n = int(end / step) + 1
    out = []
    for i in range(n):
        t = i * step
        c = counts_at(jobs, t + step / 2)
        out.append((t, float(c["cicc"] + c["ptxas"] + c["host"]), c["cicc"], c["ptxas"], c["host"]))
    return out


def series_from_load(rows, start=None, end=None):
    t0 = start if start is not None else rows[0][0]
    return [(t - t0, busy, cicc, ptxas, host) for t, busy, cicc, ptxas, host in rows
            if (start is None or t >= start - 1) and (end is None or t <= end + 1)]


def panel(svg, x, y, w, h, series, tmax, cores, title, note):
    out = [f'<text x="{x}" y="{y - 6}" font-size="12" font-weight="bold">{title}</text>',
           f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="none" stroke="#999"/>']
    ymax = cores

    def X(t):
        return x + w * min(t, tmax) / tmax

    def Y(v):
        return y + h - h * min(v, ymax) / ymax
    # stacked areas: cicc, ptxas, host
    for layer in range(3):
        top, base = [], []
        for t, _busy, *c in series:
            below = sum(c[:layer])
            top.append((X(t), Y(below + c[layer])))
            base.append((X(t), Y(below)))
        pts = top + base[::-1]
        if pts:
            out.append('<polygon fill="{}" fill-opacity="0.8" stroke="none" points="{}"/>'.format(
                list(COLORS.values())[layer], " ".join(f"{px:.1f},{py:.1f}" for px, py in pts)))
    busy = " ".join(f"{X(t):.1f},{Y(b):.1f}" for t, b, *_ in series)
    out.append(f'<polyline fill="none" stroke="#222" stroke-width="1" points="{busy}"/>')
    for v in range(0, cores + 1, max(cores // 4, 1)):
        out.append(f'<text x="{x - 4}" y="{Y(v) + 4:.1f}" font-size="9" text-anchor="end">{v}</text>')
    tick = 60 if tmax <= 600 else 300 if tmax <= 3000 else 600
    for t in range(0, int(tmax) + 1, tick):
        out.append(f'<line x1="{X(t):.1f}" y1="{y + h}" x2="{X(t):.1f}" y2="{y + h + 3}" stroke="#999"/>'
                   f'<text x="{X(t):.1f}" y="{y + h + 13}" font-size="9" text-anchor="middle">{t}</text>')
    out.append(f'<text x="{x + w - 4}" y="{y + 14}" font-size="10" text-anchor="end">{note}</text>')
    svg.extend(out)


def draw(path, runs, results):
    rows = []
    # measured: the first archbuild run and the first nvcc run with a load file
    meas = []
    for name, r in sorted(runs.items()):
        if "load.csv" not in r:
            continue
        load = read_load(r["load.csv"])
        if "bench.log" in r:
            marks = parse_archbuild(r["bench.log"])["marks"].get("archbuild-cold", {})
            s = series_from_load(load, marks.get("start"), marks.get("end"))
            wall = marks["end"] - marks["start"] if "end" in marks else None
            meas.append(("archbuild", name, s, wall))
        else:
            marks = {}
            for row in r.get(f"{name}.log", "").splitlines():
                m = MARK.match(row)
                if m and m.group(1) == "nvcc":
                    marks[m.group(2)] = float(m.group(3))
            s = series_from_load(load, marks.get("start"), marks.get("end"))
            wall = marks["end"] - marks["start"] if "end" in marks else None
            meas.append(("nvcc", name, s, wall))
    a_meas = next((m for m in meas if m[0] == "archbuild"), None)
    n_meas = next((m for m in meas if m[0] == "nvcc"), None)
    if a_meas or n_meas:
        tmax = max(s[-1][0] for _, _, s, _ in [m for m in (a_meas, n_meas) if m])
        rows.append(("measured on the 16-core host (subset)", 16, tmax,
                     [(f"archbuild cold, run {a_meas[1]}", a_meas[2], f"wall {a_meas[3]:.0f} s" if a_meas[3] else "") if a_meas else None,
                      (f"nvcc, run {n_meas[1]}", n_meas[2], f"wall {n_meas[3]:.0f} s" if n_meas[3] else "") if n_meas else None]))
    for key, title in ((("subset", 16), "predicted: subset, 16 cores"), (("crate", 16), "predicted: whole crate, 16 cores"),
                       (("crate", 64), "predicted: whole crate, 64 cores"), (("crate", 128), "predicted: whole crate, 128 cores")):
        if key not in results:
            continue
        ab, cf, ab_jobs, cf_jobs = results[key]
        tmax = max(ab, cf)
        rows.append((title, key[1], tmax,
                     [("archbuild cold", series_from_jobs(ab_jobs, max(tmax / 400, 1.0)), f"{ab:.0f} s ({ab / cf:.2f}x)"),
                      ("cudaforge's pattern", series_from_jobs(cf_jobs, max(tmax / 400, 1.0)), f"{cf:.0f} s")]))
    W, H, PW, PH = 1000, 60 + 150 * len(rows), 440, 100
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif">',
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="18" font-size="14" font-weight="bold">candle-flash-attn: cores in use over time '
           '(busy cores line; running cicc, ptxas, host compiles stacked), measured and predicted</text>']
    lx = 10
    for k, c in COLORS.items():
        svg.append(f'<rect x="{lx}" y="28" width="12" height="10" fill="{c}"/><text x="{lx + 16}" y="37" font-size="11">{k}</text>')
        lx += 70
    svg.append(f'<line x1="{lx}" y1="33" x2="{lx + 14}" y2="33" stroke="#222"/><text x="{lx + 18}" y="37" font-size="11">'
               'busy cores (measured: /proc/stat; predicted: jobs running)</text>')
    for r, (title, cores, tmax, panels) in enumerate(rows):
        y = 70 + 150 * r
        svg.append(f'<text x="10" y="{y + 4}" font-size="12" fill="#555">{title}, time axis in s</text>')
        for c, pn in enumerate(panels):
            if pn:
                panel(svg, 50 + c * 490, y + 26, PW, PH, pn[1], tmax, cores, pn[0], pn[2])
    svg.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    sys.exit(main())
