#!/usr/bin/env python3
"""The evidence for sharing one cicc run within a family (docs/build.md, "One cicc run for a
family"): for every source and virtual arch, the device preprocessing (`nvcc -E`) and the PTX
(`nvcc -ptx`, as archbuild runs it); then, for every pair of archs of one major family, whether
the preprocessed texts are byte-identical and whether the PTX is identical apart from its
`.target` line. The rule holds when no pair has identical text but different PTX.

usage: cicc_sharing_study.py NVCC OUT_DIR SOURCE.cu...   (ARCHS="80 86 ..." J=jobs)
"""
import collections, concurrent.futures as cf, hashlib, itertools, os, re, subprocess, sys

nvcc, out, srcs = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3:]
archs = os.environ.get("ARCHS", "75 80 86 87 88 89 90 100 103 110 120 121").split()
os.makedirs(out, exist_ok=True)


def run(src, arch):
    """(text digest, PTX digest without .target), or None when this arch cannot build it."""
    base = os.path.join(out, f"{abs(hash(src))}-{os.path.basename(src)}.{arch}")
    cwd = os.path.dirname(os.path.abspath(src))
    name = os.path.basename(src)
    common = [f"-arch=compute_{arch}", "-I", cwd]
    try:
        subprocess.run([nvcc, "-E", *common, "-o", base + ".ii", name],
                       check=True, cwd=cwd, capture_output=True)
        subprocess.run([nvcc, "-ptx", *common, "-Xcicc", "--orig_src_path_name", "-Xcicc",
                        name, "-o", base + ".ptx", name], check=True, cwd=cwd,
                       capture_output=True)
    except subprocess.CalledProcessError:
        return None
    ii = open(base + ".ii", "rb").read()
    ptx = re.sub(rb"(?m)^\.target\s+sm_\w+", b".target X", open(base + ".ptx", "rb").read())
    os.remove(base + ".ii")
    return hashlib.sha256(ii).hexdigest(), hashlib.sha256(ptx).hexdigest()


jobs = list(itertools.product(srcs, archs))
with cf.ThreadPoolExecutor(int(os.environ.get("J", os.cpu_count() or 2))) as ex:
    res = dict(zip(jobs, ex.map(lambda t: run(*t), jobs)))

family = lambda a: a[:-1]
totals = collections.defaultdict(collections.Counter)
for src in srcs:
    cells = []
    for a, b in itertools.combinations(archs, 2):
        if family(a) != family(b):
            continue
        ra, rb = res[(src, a)], res[(src, b)]
        if ra is None or rb is None:
            verdict = "n/a"
        elif ra[0] == rb[0]:
            verdict = "same-text-same-ptx" if ra[1] == rb[1] else "SAME-TEXT-OTHER-PTX"
        else:
            verdict = "other-text"
        totals[family(a)][verdict] += 1
        cells.append(f"{a}/{b}:{verdict}")
    print(f"{os.path.basename(src)}: {' '.join(cells)}")
print()
print(f"{len(srcs)} sources; pairs per family (major):")
for fam, c in sorted(totals.items(), key=lambda kv: int(kv[0])):
    print(f"  {fam}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
broken = sum(c["SAME-TEXT-OTHER-PTX"] for c in totals.values())
print("rule holds on this corpus" if broken == 0 else f"RULE BROKEN by {broken} pair(s)")
