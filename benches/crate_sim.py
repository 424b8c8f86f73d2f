#!/usr/bin/env python3
"""candle-flash-attn at crate scale, predicted from job times measured on 16-core GPU hosts (issue 50).

    python3 benches/crate_sim.py [--logs results/logs/2026-12-07-56c1165-crate-scale-16.tar.xz]
                                 [--svg results/2026-12-07-56c1165-crate-scale.svg]

Reads log archives as they are (no unpacking): this record's (`--logs`; each run a folder with
`bench.log` from `library_bench --verbose`, or `nvcc-time.csv` from `nvcc --time`, `load.csv`
and `trace.csv` from `scripts/crate_scale16.py`; read if it exists) and the earlier records'
`library_bench --verbose` logs of candle-flash-attn files (`EARLIER` below: every cicc and ptxas
job's end and seconds, every host object's seconds, each cold build's wall time). From the job
times it

1. replays every measured archbuild cold build with a list-scheduling model of archbuild and
   prints measured against predicted wall time: from the run's own job times (does the model
   schedule as archbuild did?) and from the job times of the *other* runs (can a run be
   predicted from times measured in other calls, on other hosts of the kind?) — the issue's
   check, goal within 10%; and checks cudaforge's pattern against what was seen of it;
2. predicts cudaforge's pattern (one `nvcc -c` per file with every `-gencode`, the archs one after
   another inside it, files in parallel, one per core) and archbuild (a cicc and a ptxas job per
   file and arch on one job graph in `plan::priorities`' start order; a follower of a cicc class
   starts with its lead and, its text differing, compiles with one more preprocessing run; the fat
   binaries, then the host objects after every device job, `output/host_stage.rs`) for the
   measured files and for the whole crate: 53 files, `8.0 8.6 8.9 9.0`, on 16, 64 and 128 cores;
   prints both and the ratio against the goal (archbuild cold <= 0.85x cudaforge's pattern);
3. prints where archbuild's time goes (core use, the longest chain, the host stage at the end)
   and what would close the gap: the host objects started as soon as their own file's device
   code is done; each file's cicc and ptxas work split in k parts;
4. checks the whole-crate model against two earlier runs none of its job times came from: the 53
   files for `9.0` on 16 jobs (2026-11-25, 3473319: device side 899.5 s) and for `8.0 8.9` on 64
   jobs (2026-11-27, 3ac094a: cicc and ptxas counts at 360, 420 and 480 s);
5. with --svg, draws the cores' use over time, measured (the load sampler) and predicted.

Job times of a file: this record's runs where they have it, else the earlier 16-core runs, else
the 64-core six-files run (2026-11-26, f8008f9), the mean over runs. Files not measured take the
times of the measured files of their kind (forward or split-kv) interpolated in log(head dim);
split-kv at head dim 512 is split-kv 256 times forward 512 / forward 256; a file measured for 8.0
but not 9.0 takes 8.0's times times the 9.0/8.0 ratio of the files measured for both; 8.6 and 8.9
take 8.0's (2026-11-26 measured compute_89's cicc at 0.91-1.01x compute_80's). A second table
(every kernel file at the measured files' median) shows how much the ratios depend on that.
Standard library only; runs in seconds.
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
LOGS = os.path.join(REPO, "results", "logs")
DEFAULT_LOGS = os.path.join(LOGS, "2026-12-07-56c1165-crate-scale-16.tar.xz")
GOAL = 0.85
H16 = "H100 host, 16 cores"
# Earlier records' library_bench logs of candle-flash-attn files: (archive, log, label, host).
EARLIER = [
    ("2026-11-25-01a0b63-host-libraries.tar.xz", "flash-archbuild-alone.log", "01a0b63 alone", H16),
    ("2026-11-25-01a0b63-host-libraries.tar.xz", "flash-empty-manifest.log", "01a0b63 empty-manifest", H16),
    ("2026-11-25-63dce71-flash-edit-miss.tar.xz", "flash-edit.log", "63dce71 edit", H16),
    ("2026-11-25-63dce71-flash-edit-miss.tar.xz", "flash-edit-backdated.log", "63dce71 backdated", H16),
    ("2026-11-25-91c646a-flash-edit-fix.tar.xz", "fix.log", "91c646a fix", H16),
    ("2026-11-26-f8008f9-crate-scale.tar.xz", "six-files-bench.log", "f8008f9 six files",
     "H100x4 host, 64 cores (32 for archbuild, at once with nvcc on the other 32)"),
]

FWD_HDIMS = (32, 64, 96, 128, 160, 192, 224, 256, 512)
SPLITKV_HDIMS = (64, 128, 256, 512)
CRATE = (["flash_api"]
         + [f"flash_fwd_hdim{h}_{t}{c}_sm80" for h in FWD_HDIMS for t in ("bf16", "fp16") for c in ("_causal", "")]
         + [f"flash_fwd_splitkv_hdim{h}_{t}{c}_sm80" for h in SPLITKV_HDIMS for t in ("bf16", "fp16")
            for c in ("_causal", "")])
assert len(CRATE) == 53
CRATE_ARCHS = (80, 86, 89, 90)
# cicc classes proven for CUDA 13.0 (crates/archbuild/src/plan/share.rs): a class's lowest arch in
# the list leads; the others follow: they start with it and compile on their own when their
# preprocessed text differs (it does for these files: 2026-11-26).
CLASSES = ((80, 87, 89), (86, 88))
# A follower's extra device preprocessing run (its lead's text) where nvcc --time did not measure
# it: about 1 s for these files on the H100 host (2026-11-25, 91c646a, fix.log: the edit's two
# preprocessing runs and a 9.24-s host compile took 10.24 s).
PP = 1.0


def shape(module):
    m = re.match(r"flash_fwd_(splitkv_)?hdim(\d+)_", module)
    return (("splitkv" if m.group(1) else "fwd"), int(m.group(2))) if m else None


# ---------------------------------------------------------------- reading the logs

def read_archive(path):
    """{folder: {file: text}} of a tar archive (the folder holding each file)."""
    runs = {}
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            parts = member.name.split("/")
            if member.isfile() and len(parts) >= 2:
                runs.setdefault(parts[-2], {})[parts[-1]] = tar.extractfile(member).read().decode("utf-8", "replace")
    return runs


HEADER = re.compile(r"^(\d+) file\(s\), archs `([^`]*)`, (\d+) job\(s\)")
JOB = re.compile(r"^\s+\[\s*([0-9.]+) s\] (\S+) (cicc|ptxas) (?:compute|sm)_(\d+)a?: ran, ([0-9.]+) s")
HOST = re.compile(r"^\s+(\S+) host object: compiled, ([0-9.]+) s")
STEP = re.compile(r"^(archbuild cold|comment-only header edit|second home, shared remote|unchanged rebuild):\s+"
                  r"([0-9.]+) s\s*(.*)$")
MARK = re.compile(r"^mark: (\S+) (start|end) ([0-9.]+)")
NVCC_DONE = re.compile(r"^\s+\[\s*([0-9.]+) s\] nvcc -c src/(\S+)\.cu -> \S+: ([0-9.]+) s")
STOPPED = re.compile(r"^bench rc=(\d+)(?: seconds=([0-9.]+))?")


def archs_of(text):
    return tuple(int(a.replace(".", "").split("+")[0]) for a in text.split())


def parse_bench_log(text, label, host):
    """Every library_bench run in a log: its cold build's jobs (module, phase, arch, end, s), host
    objects, wall (None if it did not end), the other steps, nvcc -c ends and the marks."""
    runs, run = [], None
    for row in text.splitlines():
        m = HEADER.match(row)
        if m:
            run = {"label": label if not runs else f"{label} #{len(runs) + 1}", "host": host,
                   "archs": archs_of(m.group(2)), "workers": int(m.group(3)), "jobs": [], "host_objects": {},
                   "steps": {}, "marks": {}, "nvcc": [], "stop": None, "in_cold": True}
            runs.append(run)
            continue
        if run is None:
            continue
        m = MARK.match(row)
        if m:
            run["marks"].setdefault(m.group(1), {})[m.group(2)] = float(m.group(3))
        m = STEP.match(row)
        if m:
            run["steps"][m.group(1)] = (float(m.group(2)), m.group(3).strip())
            run["in_cold"] = False
            continue
        m = NVCC_DONE.match(row)
        if m:
            run["nvcc"].append((m.group(2), float(m.group(1)), float(m.group(3))))
        m = STOPPED.match(row)
        if m:
            run["rc"] = int(m.group(1))
            run["stop"] = float(m.group(2)) if m.group(2) else None
        if not run["in_cold"]:
            continue
        m = JOB.match(row)
        if m:
            run["jobs"].append((m.group(2), m.group(3), int(m.group(4)), float(m.group(1)), float(m.group(5))))
        m = HOST.match(row)
        if m:
            run["host_objects"][m.group(1)] = float(m.group(2))
    for r in runs:
        r["cold"] = r["steps"].get("archbuild cold", (None,))[0]
        r["modules"] = sorted({j[0] for j in r["jobs"]} | set(r["host_objects"]))
    return runs


def parse_nvcc_time(text):
    """`nvcc --time` rows (scripts/crate_scale16.py's nvcc-time.csv): {(module, run): [(phase, arch, s)]}."""
    out = {}
    for r in csv.DictReader(io.StringIO(text)):
        arch = re.sub(r"\D", "", r["arch"]) or None
        out.setdefault((r["file"], r["run"]), []).append((r["phase"], int(arch) if arch else None,
                                                          float(r["ms"]) / 1000))
    return out


def parse_nvcc_log(text):
    """scripts/crate_scale16.py's nvcc sides: each nvcc -c (module, tag, s, rc), its wall, stops."""
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


def read_load(text, side=None):
    rows = []
    pre = "nvcc_" if side == "nvcc" else ""
    for r in csv.DictReader(io.StringIO(text)):
        busy = float(r[f"busy_{side}"] if side else r["busy_cores"])
        rows.append((float(r["epoch"]), busy, int(r[pre + "cicc"]), int(r[pre + "ptxas"]),
                     int(r[pre + "cudafe++"]) + int(r[pre + "cc1plus"])))
    return rows


def unfinished_from_trace(text, stop_epoch):
    """cicc processes still running when a run was stopped: {(module, arch): seconds run}."""
    out = {}
    for r in csv.DictReader(io.StringIO(text)):
        if r["comm"] != "cicc" or not r.get("src"):
            continue
        if float(r["last"]) >= stop_epoch - 1.0:
            arch = int(re.sub(r"\D", "", r["arch"]) or 0)
            out[(r["src"], arch)] = float(r["last"]) - float(r["first"])
    return out


# ---------------------------------------------------------------- job-time tables

def table_of(run):
    """{module: {("cicc", arch): s, ("ptxas", arch): s, "host": s}} of one archbuild cold build."""
    t = {}
    for module, phase, arch, _end, secs in run["jobs"]:
        t.setdefault(module, {})[(phase, arch)] = secs
    for module, secs in run["host_objects"].items():
        t.setdefault(module, {})["host"] = secs
    return t


def table_from_nvcc(rows):
    """The same from `nvcc --time`: cicc = the arch's gcc -E + cicc (archbuild's cicc job runs
    both), ptxas, host_pre (host preprocessing + cudafe++), host_post (the host compile),
    fatbin, pp (the device preprocessing alone). Phases not ended (a stopped run) are left out."""
    t = {}
    for (module, _run), phases in rows.items():
        e = t.setdefault(module, {"_pre": [], "_post": [], "_fatbin": [], "_pp": []})
        pre = post = fat = None
        pp = {}
        for phase, arch, secs in phases:
            if phase.startswith("gcc (preprocessing 1)"):
                pp[arch] = secs
                e["_pp"].append(secs)
            elif phase == "cicc":
                e[("cicc", arch)] = pp.get(arch, 0.0) + secs
            elif phase == "ptxas":
                e[("ptxas", arch)] = secs
            elif phase == "fatbinary":
                fat = (fat or 0.0) + secs
            elif phase.startswith("gcc (preprocessing 4)") or phase.startswith("cudafe++"):
                pre = (pre or 0.0) + secs
            elif phase.startswith("gcc (compiling)"):
                post = (post or 0.0) + secs
        for k, v in (("_pre", pre), ("_post", post), ("_fatbin", fat)):
            if v is not None:
                e[k].append(v)
    for e in t.values():
        pre, post, fat, pp = (e.pop(k) for k in ("_pre", "_post", "_fatbin", "_pp"))
        if pre:
            e["host_pre"] = statistics.mean(pre)
        if post:
            e["host_post"] = statistics.mean(post)
        if pre and post:
            e["host"] = e["host_pre"] + e["host_post"]
        if fat:
            e["fatbin"] = statistics.mean(fat)
        if pp:
            e["pp"] = statistics.mean(pp)
    return t


def merge(tables):
    """Per module and key, the mean over the tables that have it."""
    acc = {}
    for t in tables:
        for module, e in t.items():
            for k, v in e.items():
                acc.setdefault(module, {}).setdefault(k, []).append(v)
    return {m: {k: statistics.mean(v) for k, v in e.items()} for m, e in acc.items()}


def layered(*tiers):
    """The first tier's value of each module and key, else the next tier's."""
    out = {}
    for tier in reversed(tiers):
        for module, e in tier.items():
            out.setdefault(module, {}).update(e)
    return out


def fill_archs(table, archs):
    """A module measured for 8.0 (or 8.9) but not for another arch of `archs`: 9.0 = 8.0 times the
    9.0/8.0 ratio of the modules measured for both; 8.6 and 8.9 = 8.0."""
    ratio = {}
    for phase in ("cicc", "ptxas"):
        r = [e[(phase, 90)] / e[(phase, 80)] for m, e in table.items()
             if shape(m) and (phase, 90) in e and (phase, 80) in e]
        ratio[phase] = statistics.mean(r) if r else 1.0
    out = {}
    for module, e in table.items():
        e = dict(e)
        for phase in ("cicc", "ptxas"):
            base = e.get((phase, 80), e.get((phase, 89)))
            if base is None:
                continue
            for a in archs:
                if (phase, a) not in e:
                    e[(phase, a)] = base * (ratio[phase] if a == 90 else 1.0)
        out[module] = e
    return out, ratio


def crate_table(sub, archs, median=False):
    """Every crate file's job times from the measured files' (see the module's text)."""
    measured = {m: e for m, e in sub.items() if shape(m)}

    def value(kind, hdim, key):
        pts = [(shape(m)[1], e[key]) for m, e in measured.items() if shape(m)[0] == kind and key in e]
        if not pts:
            pts = [(shape(m)[1], e[key]) for m, e in measured.items() if key in e]
        if not pts:
            return None
        if median:  # every kernel file alike: the median of all measured ones
            return statistics.median(e[key] for e in measured.values() if key in e)
        by = {}
        for h, v in pts:
            by.setdefault(h, []).append(v)
        xs = sorted(by)
        ys = [statistics.mean(by[h]) for h in xs]
        if hdim <= xs[0]:
            return ys[0]
        if hdim >= xs[-1]:
            return ys[-1]
        for (x0, y0), (x1, y1) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
            if x0 <= hdim <= x1:
                w = (math.log(hdim) - math.log(x0)) / (math.log(x1) - math.log(x0))
                return y0 + w * (y1 - y0)
        return ys[-1]

    out = {}
    for module in CRATE:
        e, s = {}, shape(module)
        for a in archs:
            for phase in ("cicc", "ptxas"):
                key = (phase, a)
                if module in sub and key in sub[module] and not (median and s):
                    e[key] = sub[module][key]
                elif s is None:  # flash_api.cu, if not measured: 2026-11-25's fix.log
                    e[key] = {"cicc": 3.5, "ptxas": 0.02}[phase]
                else:
                    kind, hdim = s
                    v = value(kind, hdim, key)
                    if kind == "splitkv" and hdim > 256 and not median and not any(
                            shape(m) == ("splitkv", 512) for m in measured):
                        f512, f256, sk256 = value("fwd", 512, key), value("fwd", 256, key), value("splitkv", 256, key)
                        if f512 and f256 and sk256 and any(shape(m) == ("fwd", 512) for m in measured):
                            v = sk256 * f512 / f256
                    e[key] = v
        for k in ("host", "host_pre", "host_post", "fatbin", "pp"):
            if module in sub and k in sub[module]:
                e[k] = sub[module][k]
            elif s is None:
                e[k] = {"host": 5.3, "host_pre": 4.5, "host_post": 1.0, "fatbin": 0.05, "pp": 1.0}[k]
            else:
                vals = [x[k] for x in measured.values() if k in x]
                if vals:
                    e[k] = statistics.median(vals)
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
    """Event-driven list scheduling, as `plan/exec.rs` runs a graph: a free worker takes the ready
    job of highest priority, then the lowest index. A job is ready when `dep` has ended (an
    `early` job: when `dep` has started) and every job in `after` has ended."""
    waiting = set(range(len(jobs)))
    running, ready = [], []
    t, free = 0.0, workers

    def check():
        for i in sorted(waiting):
            j = jobs[i]
            if j.dep is not None and (j.dep.start is None if j.early else j.dep.end is None):
                continue
            if any(a.end is None for a in j.after):
                continue
            waiting.discard(i)
            heapq.heappush(ready, (-j.prio, i))

    check()
    while waiting or ready or running:
        while free and ready:
            _, i = heapq.heappop(ready)
            jobs[i].start = t
            heapq.heappush(running, (t + jobs[i].dur, i))
            free -= 1
            check()  # early jobs of what started
        if not running:
            if waiting:
                raise RuntimeError("the job graph cannot finish")
            break
        t, i = heapq.heappop(running)
        jobs[i].end = t
        free += 1
        while running and running[0][0] <= t + 1e-9:
            _, k = heapq.heappop(running)
            jobs[k].end = t
            free += 1
        check()
    return max((j.end for j in jobs), default=0.0)


def class_of(arch):
    return next((c for c in CLASSES if arch in c), None)


def archbuild_jobs(table, modules, archs, host_early=False, split=1, split_overhead=0.05, share=True,
                   follower_waits=False):
    """archbuild's graph (see the module's text). `host_early`: each host object as soon as its
    module's fat binary exists instead of after every device job. `split` > 1: each cicc and
    ptxas job in `split` parts, each 1/split of the work plus `split_overhead` of the whole (the
    headers' front end run again per part). `follower_waits`: the rule before b385ec6 (a
    follower's cicc started when its lead's ended), to replay the 2026-11-26 run."""
    jobs, per_module, leads = [], {}, {}
    for module in modules:
        e = table[module]
        present = [a for a in archs if ("cicc", a) in e]
        lead_of = {}
        for a in sorted(present):
            if share and class_of(a):
                lead_of.setdefault(class_of(a), a)
        for a in present:
            lead = lead_of.get(class_of(a)) if share and class_of(a) else None
            is_lead = lead == a and sum(1 for b in present if class_of(b) == class_of(a)) > 1
            follower = lead is not None and lead != a
            dur = e[("cicc", a)] + (e.get("pp", PP) if follower and not follower_waits else 0.0)
            parts = []
            for k in range(split):
                d = dur / split + (dur * split_overhead if split > 1 else 0.0)
                j = Job(f"{module} cicc {a}" + (f"/{k}" if split > 1 else ""), module, "cicc", d,
                        prio=(30000 if is_lead else 20000) + a)
                if follower:
                    j.dep, j.early = leads[(module, lead)][0], not follower_waits
                parts.append(j)
            if is_lead:
                leads[(module, a)] = parts
            jobs.extend(parts)
            per_module.setdefault(module, []).append((a, parts))
    ptxas = []
    for module, lst in per_module.items():
        e = table[module]
        for a, parts in lst:
            if ("ptxas", a) not in e:
                continue
            for k, c in enumerate(parts):
                d = e[("ptxas", a)] / split + (e[("ptxas", a)] * split_overhead if split > 1 else 0.0)
                ptxas.append(Job(f"{module} ptxas {a}" + (f"/{k}" if split > 1 else ""), module, "ptxas", d,
                                 dep=c, prio=a))
    jobs.extend(ptxas)
    device = list(jobs)
    fat = [Job(f"{m} fatbin", m, "fatbin", table[m].get("fatbin", 0.05),
               after=[p for p in ptxas if p.module == m] + [c for _a, ps in per_module[m] for c in ps], prio=1)
           for m in per_module]
    jobs.extend(fat)
    for f in fat:
        jobs.append(Job(f"{f.module} host", f.module, "host", table[f.module].get("host", 10.0),
                        after=[f] if host_early else device + fat, prio=5 if host_early else 0))
    return jobs


def cudaforge_jobs(table, modules, archs, one_arch=False):
    """cudaforge's pattern: one `nvcc -c` per module with every -gencode, its phases in nvcc's
    order (host preprocessing and cudafe++; per arch gcc -E + cicc, then ptxas; fatbinary; the
    host compile), back to back on one core; modules in order, one per free core. `one_arch`:
    an `nvcc -c` per (module, arch) (scripts/crate_scale16.py's nvcc-chains)."""
    jobs = []
    runs = [(m, (a,)) for m in modules for a in archs] if one_arch else [(m, tuple(archs)) for m in modules]
    for module, lst in runs:
        e = table[module]
        host = e.get("host", 10.0)
        pre = e.get("host_pre", 0.6 * host)
        post = e.get("host_post", max(host - pre, 0.5))
        steps = [("host", pre)]
        for a in lst:
            if ("cicc", a) in e:
                steps += [("cicc", e[("cicc", a)]), ("ptxas", e.get(("ptxas", a), 0.0))]
        steps += [("fatbin", e.get("fatbin", 0.05)), ("host", post)]
        prev = None
        for k, (kind, d) in enumerate(steps):
            j = Job(f"{module} {'/'.join(map(str, lst))} {kind} {k}", module, kind, d, dep=prev,
                    prio=1 if prev is not None else 0)  # a started nvcc goes on on its core
            jobs.append(j)
            prev = j
    return jobs


def simulate(kind, table, modules, archs, cores, **kw):
    jobs = (archbuild_jobs if kind == "archbuild" else cudaforge_jobs)(table, modules, archs, **kw)
    return schedule(jobs, cores), jobs


def loaded(kind, table, modules, archs, cores, beta=0.4, **kw):
    """The makespan with every cicc and ptxas time x (1 + beta x the share of cores the side keeps
    busy): job times measured at low load, a side that fills the machine slowed more (beta 0.4:
    the 64-core host of 2026-11-27 ran these jobs about 1.4x slower at 64 at once than the 16-core
    hosts did at 2 to 10 at once). Returns (makespan, share busy unscaled)."""
    span, jobs = simulate(kind, table, modules, archs, cores, **kw)
    busy = sum(j.dur for j in jobs) / (cores * span)
    scaled = {m: {k: (v * (1 + beta * busy) if isinstance(k, tuple) else v) for k, v in e.items()}
              for m, e in table.items()}
    return simulate(kind, scaled, modules, archs, cores, **kw)[0], busy


def counts_at(jobs, t):
    c = {"cicc": 0, "ptxas": 0, "host": 0}
    for j in jobs:
        if j.start is not None and j.start <= t < j.end and j.kind in c:
            c[j.kind] += 1
    return c


def longest_chain(jobs):
    memo = {}

    def longest(j):
        if id(j) not in memo:
            pre = ([j.dep] if j.dep is not None and not j.early else []) + j.after
            memo[id(j)] = j.dur + max((longest(p) for p in pre), default=0.0)
        return memo[id(j)]

    return max(longest(j) for j in jobs)


def planned_subset():
    """scripts/crate_scale16.py's SUBSET, as module names."""
    with open(os.path.join(REPO, "scripts", "crate_scale16.py"), encoding="utf-8") as f:
        text = f.read()
    body = text[text.index("SUBSET = ["):]
    body = body[:body.index("]")]
    return [n[:-3] for n in re.findall(r'"([^"]+\.cu)"', body)]


def pct(pred, meas):
    return f"{100 * (pred - meas) / meas:+.1f}%"


# ---------------------------------------------------------------- the report

def load_all(paths):
    """The runs of the given archives that exist (a folder named `rehearsal-…` is a rehearsal on
    the development machine, not a measurement: skipped) and the earlier records' archbuild runs."""
    new_arch, new_nvcc, loads = [], {}, {}
    for path in paths:
        if not os.path.exists(path):
            continue
        for name, files in sorted(read_archive(path).items()):
            if name.startswith("rehearsal"):
                continue
            if "bench.log" in files:
                for r in parse_bench_log(files["bench.log"], name, "this record"):
                    r["new"] = True
                    if "trace.csv" in files and r["cold"] is None and r["marks"].get("archbuild-cold", {}).get("start"):
                        start = r["marks"]["archbuild-cold"]["start"]
                        r["running"] = unfinished_from_trace(files["trace.csv"], start + (r["stop"] or 0))
                    new_arch.append(r)
            if "nvcc-time.csv" in files:
                new_nvcc[name] = (parse_nvcc_time(files["nvcc-time.csv"]), parse_nvcc_log(files.get(f"{name}.log", "")))
            if "load.csv" in files:
                loads[name] = files
    old = []
    for archive, member, label, host in EARLIER:
        p = os.path.join(LOGS, archive)
        if not os.path.exists(p):
            continue
        with tarfile.open(p) as tar:
            m = next((x for x in tar.getmembers() if x.name.endswith("/" + member)), None)
            text = tar.extractfile(m).read().decode("utf-8", "replace") if m else ""
        for r in parse_bench_log(text, label, host):
            r["new"] = False
            if r["jobs"] or r["host_objects"]:
                old.append(r)
    return new_arch, new_nvcc, loads, old


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--logs", action="append", help="a log archive of runs made by scripts/crate_scale16.py "
                   "(repeatable; default: this record's, read if it exists)")
    p.add_argument("--svg", help="write the cores-over-time plot here")
    a = p.parse_args()
    a.logs = a.logs or [DEFAULT_LOGS]
    new_arch, new_nvcc, loads, old = load_all(a.logs)
    runs = new_arch + old
    for path in a.logs:
        print(f"archive {os.path.relpath(path, REPO)}: {'read' if os.path.exists(path) else 'not there'}")
    print(f"runs of scripts/crate_scale16.py on a GPU host: {len(new_arch)} archbuild, {len(new_nvcc)} nvcc"
          + ("" if new_arch or new_nvcc else " -- the predictions below come from the earlier records' job times alone"))

    # --- the measured job times
    print("\n== measured job times (s): cicc and ptxas per arch, host object; '-' not measured, '>' still "
          "running when the run was stopped")
    for r in runs:
        t = table_of(r)
        state = f"cold {r['cold']:.1f} s" if r["cold"] else f"stopped at {r['stop'] or 0:.0f} s, cold not finished"
        print(f"  {r['label']} ({r['host']}; {r['workers']} jobs, archs {list(r['archs'])}; {state})")
        for m in r["modules"]:
            e = t.get(m, {})
            cols = []
            for x in r["archs"]:
                c = e.get(("cicc", x))
                run = r.get("running", {}).get((m, x))
                cs = f"{c:6.1f}" if c else (f">{run:5.0f}" if run else "     -")
                ps = f"{e[('ptxas', x)]:5.1f}" if ("ptxas", x) in e else "    -"
                cols.append(f"c{x} {cs} p{x} {ps}")
            print(f"    {m:<46} {'  '.join(cols)}  host {e.get('host', float('nan')):5.1f}")
    for name, (rows, _log) in new_nvcc.items():
        t = table_from_nvcc(rows)
        print(f"  {name} (nvcc --time; cicc = gcc -E + cicc)")
        for m, e in sorted(t.items()):
            cols = "  ".join(f"c{x} {e.get(('cicc', x), float('nan')):6.1f} p{x} {e.get(('ptxas', x), float('nan')):5.1f}"
                             for x in sorted({k[1] for k in e if isinstance(k, tuple)}))
            print(f"    {m:<46} {cols}  host {e.get('host', float('nan')):5.1f}")

    # --- the tables
    t_new = merge([table_of(r) for r in new_arch])
    t_nvcc = merge([table_from_nvcc(rows) for rows, _ in new_nvcc.values()])
    t_old16 = merge([table_of(r) for r in old if r["host"] == H16])
    t_old64 = merge([table_of(r) for r in old if r["host"] != H16])
    # an unfinished cicc (a stopped run): at least as long as it ran
    floors = {}
    for r in new_arch:
        for key, secs in r.get("running", {}).items():
            floors[key] = max(floors.get(key, 0.0), secs)
    base = layered(t_new, t_nvcc, t_old16, t_old64)
    for (m, x), secs in floors.items():
        e = base.setdefault(m, {})
        if e.get(("cicc", x), 0.0) < secs:
            e[("cicc", x)] = secs
    for m, e in base.items():  # host parts and follower preprocessing from nvcc where measured
        for k in ("host_pre", "host_post", "fatbin", "pp"):
            if k in t_nvcc.get(m, {}):
                e.setdefault(k, t_nvcc[m][k])

    # --- 1. the model against what ran
    print("\n== 1. the model against the measured runs: cold wall time (s), measured and predicted")
    errors = []
    for r in runs:
        if not r["cold"] or not r["jobs"]:
            continue
        own = table_of(r)
        for m in r["modules"]:
            own.setdefault(m, {}).setdefault("host", 10.0)
        others = merge([table_of(x) for x in runs if x is not r and x["host"] == r["host"]])
        if not others and r["host"] == "this record":
            others = t_old16
        span, _ = simulate("archbuild", own, r["modules"], r["archs"], r["workers"])
        line = f"  {r['label']:<26} measured {r['cold']:7.2f}  own job times {span:7.2f} ({pct(span, r['cold'])})"
        if all(("cicc", x) in others.get(m, {}) for m in r["modules"] if shape(m) for x in r["archs"]):
            tab = {m: {**own[m], **others.get(m, {})} for m in r["modules"]}
            span2, _ = simulate("archbuild", tab, r["modules"], r["archs"], r["workers"])
            line += f"; the other runs' job times {span2:7.2f} ({pct(span2, r['cold'])})"
            errors.append((r["label"], (span2 - r["cold"]) / r["cold"]))
        print(line)
    if errors:
        spread = [e for _, e in errors]
        print(f"  from other calls' job times: errors {', '.join(f'{100 * e:+.1f}%' for e in spread)}; "
              f"within 10%: {sum(abs(e) <= 0.10 for e in spread)} of {len(spread)}. The same job on the same "
              f"kind of host took different times in different calls (hdim64's cicc 190-295 s in the five "
              f"earlier runs): a prediction from other calls carries that spread; ratios are taken within one "
              f"call's or one table's times")
    # the six-files run (stopped): its ends replayed with the follower rule of its day
    for r in old:
        if r["cold"] is None and r["jobs"]:
            own = table_of(r)
            meas = {(m, ph, x): end for m, ph, x, end, _ in r["jobs"]}
            mods = [m for m in r["modules"]]
            for m in mods:
                own.setdefault(m, {})
                for x in r["archs"]:  # unfinished: long enough not to end before the stop
                    for ph in ("cicc", "ptxas"):
                        own[m].setdefault((ph, x), 10 * (r["stop"] or 420))
                own[m].setdefault("host", 10.0)
            span, jobs = simulate("archbuild", own, mods, r["archs"], r["workers"], follower_waits=True)
            errs = [abs(j.end - meas[(j.module, j.kind, int(j.name.split()[2]))])
                    for j in jobs if (j.module, j.kind, int(j.name.split()[2]) if j.kind in ("cicc", "ptxas") else 0) in meas]
            print(f"  {r['label']} (stopped at {r['stop']:.0f} s, the follower rule of its day): {len(errs)} job "
                  f"ends replayed from its own job times, largest difference {max(errs):.2f} s")
    # cudaforge's pattern against what was seen of it
    print("  cudaforge's pattern, seen before (earlier records) against the model from the 16-core job times:")
    tab = fill_archs(layered(t_old16, t_old64), (80, 90))[0]
    if "flash_fwd_hdim64_fp16_sm80" in tab:
        span, _ = simulate("cudaforge", tab, ["flash_fwd_hdim64_fp16_sm80"], (80, 90), 16)
        print(f"    hdim64 fp16, 8.0 9.0, alone on 16 cores (01a0b63): not finished in 530 s; predicted {span:.0f} s")
    six = next((r for r in old if r["label"].startswith("f8008f9")), None)
    if six:
        for m, end, secs in six["nvcc"]:
            t8089 = fill_archs(layered(t_old64, t_old16), (80, 89))[0]
            if m in t8089:
                span, _ = simulate("cudaforge", t8089, [m], (80, 89), 32)
                print(f"    {m}, 8.0 8.9 (f8008f9): measured {secs:.2f} s, predicted {span:.2f} s")
        print(f"    the other five files of that run (f8008f9): not finished at {six['stop']:.0f} s; predicted "
              + ", ".join(f"{simulate('cudaforge', t8089, [m], (80, 89), 32)[0]:.0f} s" for m in six["modules"]
                          if shape(m) and m in t8089))
    pattern = {}
    for name, (rows, log) in new_nvcc.items():
        modules = sorted({m for (m, _r) in rows})
        one_arch = all(run != "all" for (_m, run) in rows)
        own = table_from_nvcc(rows)
        if not log["stopped"] and log["wall"]:
            for src, table in ((f"{name} (own)", own), ("archbuild's job times", base)):
                tab = {m: own[m] for m in modules}
                if src != f"{name} (own)":
                    tab = {m: dict(table[m], **{k: v for k, v in own.get(m, {}).items() if not isinstance(k, tuple)})
                           for m in modules}
                archs = sorted({k[1] for e in own.values() for k in e if isinstance(k, tuple)})
                span, _ = simulate("cudaforge", tab, modules, archs, 16, one_arch=one_arch)
                print(f"  nvcc {name}: measured {log['wall']:7.2f}  predicted from {src} {span:7.2f} "
                      f"({pct(span, log['wall'])})")
            if not one_arch:
                pattern[name] = (log["wall"], log["wall"], {})
            continue
        # stopped by the deadline: what ended, and the rest predicted from archbuild's job times
        archs = sorted({k[1] for e in base.values() for k in e if isinstance(k, tuple) and k[1] in (80, 90)})
        finish = {}
        for m in modules:
            if m not in base:
                continue
            e = {**base[m], **own.get(m, {})}  # keys are tuples, so no **kwargs
            order = ["host_pre"] + [(ph, x) for x in archs for ph in ("cicc", "ptxas")] + ["fatbin", "host_post"]
            done_t, steps_done = 0.0, set()
            for phase, x, secs in rows.get((m, "all"), []):
                done_t += secs
                key = ({"cicc": ("cicc", x), "ptxas": ("ptxas", x), "fatbinary": "fatbin"}.get(phase)
                       or ("host_pre" if phase.startswith("cudafe++") else "host_post" if phase.startswith("gcc (compiling)") else None))
                if key:
                    steps_done.add(key)
            rest = [st for st in order if st not in steps_done]
            left = 0.0
            for k, st in enumerate(rest):
                d = e.get(st, 0.0) if st != "host_post" else e.get("host_post", max(e.get("host", 10.0) - e.get("host_pre", 6.0), 0.5))
                if k == 0:
                    d = max(d, log["wall"] - done_t)
                left += d
            finish[m] = done_t + left
        if finish:
            wall = max(finish.values())
            pattern[name] = (log["wall"], wall, finish)
            print(f"  nvcc {name}: cudaforge's pattern stopped after {log['wall']:.1f} s with {len(log['stopped'])} of "
                  f"{len(modules)} nvcc -c unfinished (a measured lower bound); predicted end {wall:.1f} s "
                  f"(each nvcc's phases that ended, then archbuild's job times)")
            ratios = [own[m][("cicc", 80)] / t_new[m][("cicc", 80)] for m in modules
                      if ("cicc", 80) in own.get(m, {}) and ("cicc", 80) in t_new.get(m, {})]
            if ratios:
                print(f"    cicc 80 in nvcc (8 processes at once) / archbuild's cicc 80 job (16 at once), same file: "
                      f"median {statistics.median(ratios):.3f}, range {min(ratios):.3f} .. {max(ratios):.3f}")

    # --- 2. both strategies
    print("\n== 2. both strategies, predicted (job times: this record's, else the earlier 16-core runs', else the "
          "64-core run's)")
    results = {}
    full, r90 = fill_archs(base, CRATE_ARCHS)
    sub_archs = tuple(sorted({x for r in new_arch for x in r["archs"]})) or (80, 90)
    measured_files = sorted({m for r in new_arch for m in r["modules"]}) or \
        sorted(m for m in base if ("cicc", 80) in base[m] or ("cicc", 89) in base[m])
    short = lambda m: m.replace("flash_fwd_", "").replace("_sm80", "")  # noqa: E731
    sub_table = {m: full[m] for m in measured_files}
    ab, ab_jobs = simulate("archbuild", sub_table, measured_files, sub_archs, 16)
    cf, cf_jobs = simulate("cudaforge", sub_table, measured_files, sub_archs, 16)
    print(f"  the files measured ({len(measured_files)}: {', '.join(map(short, measured_files))}), {list(sub_archs)}, "
          f"16 cores: archbuild {ab:7.1f} s, cudaforge's pattern {cf:7.1f} s, ratio {ab / cf:.3f} (goal <= {GOAL}; "
          f"where 9.0 was not measured, 8.0's times x the 9.0/8.0 ratio of the files measured for both: cicc "
          f"{r90['cicc']:.3f}, ptxas {r90['ptxas']:.3f})")
    if not new_arch:
        results[("measured-files", 16)] = (ab, cf, ab_jobs, cf_jobs)
        planned = planned_subset()
        ptab = crate_table(full, (80, 90))
        ptab = {m: ptab[m] for m in planned}
        ab, ab_jobs = simulate("archbuild", ptab, planned, (80, 90), 16)
        cf, cf_jobs = simulate("cudaforge", ptab, planned, (80, 90), 16)
        ch, _ = simulate("cudaforge", ptab, planned, (80, 90), 16, one_arch=True)
        one = {x: simulate("cudaforge", ptab, planned, (x,), 16)[0] for x in (80, 90)}
        results[("subset", 16)] = (ab, cf, ab_jobs, cf_jobs)
        la, ua = loaded("archbuild", ptab, planned, (80, 90), 16)
        lc, uc = loaded("cudaforge", ptab, planned, (80, 90), 16)
        print(f"  scripts/crate_scale16.py's subset ({len(planned)} files: {', '.join(map(short, planned))}; "
              f"{sum(1 for m in planned if m in base)} measured before, the rest from the table), 8.0 9.0, 16 cores, "
              f"for planning its calls: archbuild cold {ab:.0f} s (+ the edit and second home, about 30 s); "
              f"cudaforge's pattern {cf:.0f} s (more than one 600-s call); nvcc-chains {ch:.0f} s; cudaforge's "
              f"pattern for 8.0 alone {one[80]:.0f} s, for 9.0 alone {one[90]:.0f} s; predicted ratio {ab / cf:.3f}; with "
              f"job times growing with load (x (1 + 0.4 x share of cores busy)): {la:.0f} s against {lc:.0f} s, "
              f"ratio {la / lc:.3f}")
    else:
        results[("subset", 16)] = (ab, cf, ab_jobs, cf_jobs)
    for r in new_arch:
        if not r["cold"]:
            continue
        for pname, (cut, wall, finish) in pattern.items():
            if not finish:  # the pattern ran to its end
                print(f"  measured: archbuild cold ({r['label']}) {r['cold']:.1f} s against cudaforge's pattern ({pname}) "
                      f"{wall:.1f} s -> ratio {r['cold'] / wall:.3f} (goal <= {GOAL})")
                continue
            print(f"  measured: archbuild cold ({r['label']}) {r['cold']:.1f} s against cudaforge's pattern ({pname}): "
                  f"stopped unfinished at {cut:.1f} s -> ratio < {r['cold'] / cut:.3f}; predicted to end at {wall:.1f} s "
                  f"-> ratio {r['cold'] / wall:.3f} (goal <= {GOAL})")
    for label, median in (("interpolated by kind and head dim", False), ("every kernel file at the median", True)):
        crate = crate_table(full, CRATE_ARCHS, median=median)
        print(f"  whole crate, 53 files, {list(CRATE_ARCHS)}, job times {label}:")
        for cores in (16, 64, 128):
            ab, ab_jobs = simulate("archbuild", crate, CRATE, CRATE_ARCHS, cores)
            cf, cf_jobs = simulate("cudaforge", crate, CRATE, CRATE_ARCHS, cores)
            la, _ = loaded("archbuild", crate, CRATE, CRATE_ARCHS, cores)
            lc, _ = loaded("cudaforge", crate, CRATE, CRATE_ARCHS, cores)
            if not median:
                results[("crate", cores)] = (ab, cf, ab_jobs, cf_jobs)
            print(f"    {cores:>3} cores: archbuild {ab:7.1f} s, cudaforge's pattern {cf:7.1f} s, ratio {ab / cf:.3f} "
                  f"({'met' if ab / cf <= GOAL else 'MISSED'}); with load-dependent job times {la / lc:.3f} "
                  f"({'met' if la / lc <= GOAL else 'MISSED'})")
    crate = crate_table(full, CRATE_ARCHS)
    heavy = [m for m in CRATE if shape(m)]
    print("  the crate table's cicc 8.0 (s) by kind and head dim: "
          + ", ".join(f"{shape(m)[0][:2]}{shape(m)[1]} {crate[m][('cicc', 80)]:.0f}" for m in heavy
                      if "_bf16_causal" in m))

    # --- 3. where the time goes, what closes it
    print("\n== 3. where archbuild's time goes (whole crate, 8.0 8.6 8.9 9.0) and what closes the gap")
    for cores in (16, 64, 128):
        ab, cf, ab_jobs, cf_jobs = results[("crate", cores)]
        work = sum(j.dur for j in ab_jobs)
        last_dev = max(j.end for j in ab_jobs if j.kind in ("cicc", "ptxas"))
        cf_work = sum(j.dur for j in cf_jobs)
        print(f"  {cores:>3} cores: archbuild {ab:7.1f} s: device jobs end at {last_dev:7.1f} s, then the host stage "
              f"{ab - last_dev:5.1f} s; cores busy {work / (cores * ab):.0%}; work / cores {work / cores:7.1f} s; longest "
              f"chain {longest_chain(ab_jobs):6.1f} s. cudaforge's pattern {cf:7.1f} s, cores busy {cf_work / (cores * cf):.0%}, "
              f"its longest nvcc {max(sum(j.dur for j in cf_jobs if j.module == m) for m in CRATE):6.1f} s")
        for label, kw in (("host objects as soon as their file's device code is done", {"host_early": True}),
                          ("sharing off (no follower preprocessing; 9.0's cicc first)", {"share": False}),
                          ("each file's cicc and ptxas work split in 2 (+5% each)", {"split": 2}),
                          ("split in 4 (+5% each)", {"split": 4}),
                          ("split in 4, host objects early", {"split": 4, "host_early": True})):
            span, _ = simulate("archbuild", crate, CRATE, CRATE_ARCHS, cores, **kw)
            print(f"        {label:<58} {span:7.1f} s, ratio {span / cf:.3f}")
        la, ua = loaded("archbuild", crate, CRATE, CRATE_ARCHS, cores)
        lc, uc = loaded("cudaforge", crate, CRATE, CRATE_ARCHS, cores)
        print(f"        {'job times x (1 + 0.4 x each side' + chr(39) + 's share of cores busy)':<58} {la:7.1f} s against {lc:7.1f} s "
              f"(busy {ua:.0%} and {uc:.0%}), ratio {la / lc:.3f}")

    # --- 4. the whole-crate model against earlier runs
    print("\n== 4. the whole-crate model against earlier runs (none of its job times came from them)")
    c90 = crate_table(full, (90,))
    span, jobs = simulate("archbuild", c90, CRATE, (90,), 16)
    dev = max(j.end for j in jobs if j.kind in ("cicc", "ptxas"))
    print(f"  2026-11-25 (3473319): 53 files, 9.0, 16 jobs, H100 host: device side measured 899.5 s, predicted "
          f"{dev:.1f} s ({pct(dev, 899.5)})")
    c8089 = crate_table(full, (80, 89))
    seen = {360: (52, 12), 420: (40, 24), 480: (26, 38)}
    for scale in (1.0, 1.4):
        sc = {m: {k: (v * scale if isinstance(k, tuple) else v) for k, v in e.items()} for m, e in c8089.items()}
        span, jobs = simulate("archbuild", sc, CRATE, (80, 89), 64)
        got = "; ".join(f"{t} s: {counts_at(jobs, t)['cicc']} cicc, {counts_at(jobs, t)['ptxas']} ptxas (seen {c}, {p})"
                        for t, (c, p) in seen.items())
        first = min(j.end for j in jobs if j.kind == "cicc" and shape(j.module))
        print(f"  2026-11-27 (3ac094a): 53 files, 8.0 8.9, 64 jobs (an H200x4 host), job times x{scale}: first "
              f"kernel cicc ends at {first:.0f} s; {got}; cold predicted {span:.0f} s (seen: > 520 s)")

    if a.svg:
        draw(a.svg, loads, new_arch, old, results, base)
        print(f"\nwrote {os.path.relpath(a.svg, REPO) if a.svg.startswith(REPO) else a.svg}")
    return 0


# ---------------------------------------------------------------- the plot

COLORS = (("cicc", "#4e79a7"), ("ptxas", "#f28e2b"), ("host", "#59a14f"))


def esc(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def series_from_jobs(jobs, step):
    """Counts of running jobs by kind every `step` s, as a step function: only the samples where
    a count changes (and the one before each change) are kept."""
    end = max(j.end for j in jobs)
    full = []
    for i in range(int(end / step) + 2):
        t = i * step
        c = counts_at(jobs, t + step / 2)
        full.append((t, float(c["cicc"] + c["ptxas"] + c["host"]), c["cicc"], c["ptxas"], c["host"]))
    return [r for k, r in enumerate(full)
            if k in (0, len(full) - 1) or r[1:] != full[k - 1][1:] or r[1:] != full[k + 1][1:]]


def series_from_load(rows, start, end):
    return [(t - start, busy, c, p, h) for t, busy, c, p, h in rows if start - 1 <= t <= end + 1]


def panel(svg, x, y, w, h, series, tmax, cores, title, note, overlay=None):
    def X(t):
        return x + w * min(max(t, 0), tmax) / tmax

    def Y(v):
        return y + h - h * min(v, cores) / cores
    svg.append(f'<text x="{x}" y="{y - 5}" font-size="11" font-weight="bold">{esc(title)}</text>')
    svg.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="none" stroke="#999"/>')
    for layer, (_name, colour) in enumerate(COLORS):
        top = [(X(t), Y(sum(c[:layer + 1]))) for t, _b, *c in series]
        bottom = [(X(t), Y(sum(c[:layer]))) for t, _b, *c in series]
        pts = top + bottom[::-1]
        if pts:
            svg.append(f'<polygon fill="{colour}" fill-opacity="0.8" stroke="none" points="'
                       + " ".join(f"{px:.1f},{py:.1f}" for px, py in pts) + '"/>')
    svg.append('<polyline fill="none" stroke="#222" stroke-width="1" points="'
               + " ".join(f"{X(t):.1f},{Y(b):.1f}" for t, b, *_ in series) + '"/>')
    if overlay:
        for k, colour in ((2, "#1b3b6f"), (3, "#b35806")):  # predicted cicc, ptxas counts
            svg.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" stroke-dasharray="5,3" points="'
                       + " ".join(f"{X(r[0]):.1f},{Y(r[k]):.1f}" for r in overlay if r[0] <= tmax) + '"/>')
    for v in range(0, cores + 1, max(cores // 4, 1)):
        svg.append(f'<text x="{x - 4}" y="{Y(v) + 3:.1f}" font-size="9" text-anchor="end">{v}</text>')
    tick = next(s for s in (30, 60, 120, 300, 600, 1200) if tmax / s <= 10)
    for t in range(0, int(tmax) + 1, tick):
        svg.append(f'<line x1="{X(t):.1f}" y1="{y + h}" x2="{X(t):.1f}" y2="{y + h + 3}" stroke="#999"/>'
                   f'<text x="{X(t):.1f}" y="{y + h + 13}" font-size="9" text-anchor="middle">{t}</text>')
    svg.append(f'<text x="{x + w - 4}" y="{y + 13}" font-size="10" text-anchor="end">{esc(note)}</text>')


def six_files_row(base):
    """2026-11-26's six files (both sides at once, 32 cores each, stopped at 421 s): the load
    sampler's counts, and this model's replay of both sides dashed over them."""
    archive = os.path.join(LOGS, "2026-11-26-f8008f9-crate-scale.tar.xz")
    if not os.path.exists(archive):
        return None
    files = read_archive(archive).get("2026-11-26-f8008f9-crate-scale", {})
    if "six-files-bench.log" not in files or "six-files-load.csv" not in files:
        return None
    r = parse_bench_log(files["six-files-bench.log"], "six", "")[0]
    own = table_of(r)
    tab, _ = fill_archs({m: {**base.get(m, {}), **own.get(m, {})} for m in r["modules"]}, (80, 89))
    start = r["marks"]["archbuild-cold"]["start"]
    stop = r["stop"] or 420.0
    panels = []
    for side, kind, label in (("archbuild", "archbuild", "archbuild cold (32 jobs)"),
                              ("nvcc", "cudaforge", "cudaforge's pattern (nvcc per file)")):
        load = series_from_load(read_load(files["six-files-load.csv"], side), start, start + stop)
        kw = {"follower_waits": True} if kind == "archbuild" else {}
        span, jobs = simulate(kind, tab, r["modules"], (80, 89), 32, **kw)
        panels.append((label + ", measured", load, f"stopped at {stop:.0f} s; replay ends {span:.0f} s",
                       series_from_jobs(jobs, 1.0)))
    return ("measured 2026-11-26 (f8008f9): six files, 8.0 8.9, both sides at once on 32 of 64 cores each, "
            "stopped at 421 s; dashed: this model's cicc and ptxas counts", 32, stop, panels)


def draw(path, loads, new_arch, old, results, base=None):
    rows = []
    six = six_files_row(base or {})
    if six:
        rows.append(six[:1] + (16,) + six[2:])  # at most 9 processes ran: drawn on a 16-core scale
    meas = []
    for name, files in loads.items():
        load = read_load(files["load.csv"])
        if "bench.log" in files:
            r = parse_bench_log(files["bench.log"], name, "")[0]
            mk = r["marks"].get("archbuild-cold", {})
            if "start" in mk:
                end = mk.get("end", mk["start"] + (r["stop"] or 0))
                note = f"cold {r['cold']:.0f} s" if r["cold"] else f"stopped at {end - mk['start']:.0f} s"
                meas.append((f"archbuild cold ({name}), measured", series_from_load(load, mk["start"], end), end - mk["start"], note))
        else:
            mk = {}
            for row in files.get(f"{name}.log", "").splitlines():
                m = MARK.match(row)
                if m and m.group(1) == "nvcc":
                    mk[m.group(2)] = float(m.group(3))
            if "start" in mk and "end" in mk:
                meas.append((f"nvcc ({name}), measured", series_from_load(load, mk["start"], mk["end"]),
                             mk["end"] - mk["start"], f"{mk['end'] - mk['start']:.0f} s"))
    # one archbuild run and one nvcc run, cudaforge's pattern first where there is one
    meas = sorted(meas, key=lambda m: (not m[0].startswith("archbuild"), "pattern" not in m[0]))
    meas = [m for i, m in enumerate(meas) if i == 0 or m[0].split()[0] != meas[0][0].split()[0]][:2]
    if meas:
        tmax = max(m[2] for m in meas)
        rows.append(("measured, 16-core host, this record's files, 8.0 9.0", 16, tmax,
                     [(t, s, n, None) for t, s, _w, n in meas[:2]]))
    for key, title in ((("subset", 16), "predicted: scripts/crate_scale16.py's subset (8 files), 8.0 9.0, 16 cores"
                        if not new_arch else "predicted: the measured files, 8.0 9.0, 16 cores"),
                       (("crate", 16), "predicted: the whole crate, 53 files, 8.0 8.6 8.9 9.0, 16 cores"),
                       (("crate", 64), "predicted: the whole crate, 64 cores"),
                       (("crate", 128), "predicted: the whole crate, 128 cores")):
        if key not in results:
            continue
        ab, cf, ab_jobs, cf_jobs = results[key]
        tmax = max(ab, cf)
        step = max(tmax / 500, 0.5)
        rows.append((title, key[1], tmax, [("archbuild cold", series_from_jobs(ab_jobs, step), f"{ab:.0f} s, {ab / cf:.2f}x", None),
                                            ("cudaforge's pattern", series_from_jobs(cf_jobs, step), f"{cf:.0f} s", None)]))
    width, row_h = 1000, 150
    height = 64 + row_h * len(rows)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif">',
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="18" font-size="14" font-weight="bold">candle-flash-attn: cores in use over time, '
           'measured and predicted (benches/crate_sim.py)</text>']
    lx = 10
    for name, colour in COLORS:
        label = {"cicc": "cicc", "ptxas": "ptxas", "host": "host compiles (cudafe++, cc1plus)"}[name]
        svg.append(f'<rect x="{lx}" y="28" width="12" height="10" fill="{colour}"/>'
                   f'<text x="{lx + 16}" y="37" font-size="11">{esc(label)}</text>')
        lx += 30 + 6 * len(label)
    svg.append(f'<line x1="{lx}" y1="33" x2="{lx + 14}" y2="33" stroke="#222"/><text x="{lx + 18}" y="37" '
               'font-size="11">busy cores (measured: /proc/stat; predicted: jobs running); x: seconds</text>')
    for i, (title, cores, tmax, panels) in enumerate(rows):
        y = 60 + row_h * i
        svg.append(f'<text x="10" y="{y + 6}" font-size="12" fill="#444">{esc(title)}</text>')
        for c, (name, series, note, overlay) in enumerate(panels):
            panel(svg, 40 + c * 490, y + 26, 440, 96, series, tmax, cores, name, note, overlay)
    svg.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    sys.exit(main())
