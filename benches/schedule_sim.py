#!/usr/bin/env python3
"""List-scheduling simulation of the cold `7.5 8.0 8.6 8.9 9.0+PTX` build of bench_kernels.cu
on 2 workers (results/benchmarks.md, "With one cicc run for several archs").

It replays archbuild's start order (plan::priorities: a class lead first, then cicc jobs newest arch first, then
ptxas jobs newest first) with the job times measured on the GPU host (build-bench.log in
results/logs/2026-11-23-af0d7ce-noop-study-build-bench-runtime.tar.xz) and on the 2-core dev
machine (strace of one cold `cargo archbuild compile`), then searches every start order for the best one, with the real
times and with estimated ones (cicc 1.7x ptxas), and replays the latter with the real times.
Takes about two minutes:  python3 benches/schedule_sim.py
"""
import heapq
import itertools

DEPS = {"p75": "c75", "p80": "c80", "p86": "c86", "p89": "c89", "p90": "c90", "c89": "c80"}
TIMES = {
    "GPU host, CUDA 13.0": {
        "c75": 12.64, "c80": 10.24, "c86": 9.62, "c89": 0.33, "c90": 10.24,
        "p75": 7.17, "p80": 6.76, "p86": 8.07, "p89": 7.59, "p90": 8.37,
    },
    "dev machine, CUDA 13.5": {
        "c75": 10.08, "c80": 10.65, "c86": 9.93, "c89": 0.35, "c90": 11.97,
        "p75": 5.67, "p80": 5.17, "p86": 5.38, "p89": 5.86, "p90": 7.79,
    },
}
ARCHBUILD_ORDER = ["c80", "c90", "c89", "c86", "c75", "p90", "p89", "p86", "p80", "p75"]


def makespan(order, dur, workers=2):
    """When a worker is free, the first job of `order` whose input is done starts."""
    time, idle, pending, running, finished = 0.0, workers, list(order), [], {}
    while len(finished) < len(order):
        for j in [j for j in pending if DEPS.get(j) is None or DEPS[j] in finished]:
            if idle == 0:
                break
            pending.remove(j)
            idle -= 1
            heapq.heappush(running, (time + dur[j], j))
        time, j = heapq.heappop(running)
        finished[j] = time
        idle += 1
    return time


def best(dur):
    return min((makespan(list(p), dur), p) for p in itertools.permutations(dur))


for host, dur in TIMES.items():
    est = {j: 0.05 if j == "c89" else 1.7 if j[0] == "c" else 1.0 for j in dur}
    _, by_estimate = best(est)
    optimum, order = best(dur)
    print(f"{host}: process time / 2 = {sum(dur.values()) / 2:.2f} s")
    print(f"  archbuild's order          {makespan(ARCHBUILD_ORDER, dur):.2f} s")
    print(f"  best order by estimates    {makespan(list(by_estimate), dur):.2f} s  {' '.join(by_estimate)}")
    print(f"  best order by real times   {optimum:.2f} s  {' '.join(order)}")
