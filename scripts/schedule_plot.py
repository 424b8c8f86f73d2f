#!/usr/bin/env python3
"""Draws how busy a machine's cores were over each side of a `library_bench` run, as an SVG.

    python3 scripts/schedule_plot.py BENCH_LOG LOAD_CSV OUT.svg [--title TEXT]

BENCH_LOG is `library_bench`'s output (its `mark: NAME start|end EPOCH` lines, and with
`--verbose` each job as it finished); LOAD_CSV is the load sampler's file (`gpu_run.py crate`:
`epoch,busy_cores,mem_gib,cicc,ptxas,cudafe++,cc1plus,...`, one row a second). One panel per side
(`archbuild-cold`, `nvcc` = cudaforge's pattern), on one time axis from each side's start (for a
run of both sides at once, `--nvcc-cpus`, each side's own cores and processes): the
busy cores (from /proc/stat) as a line, and the running cicc, ptxas and host-compiler processes
(cudafe++ and cc1plus) stacked under it. It also prints, per side, the wall time, the core-seconds
used against the cores × wall time available, and when the last cicc and ptxas ended: where
the time went. Standard library only.
"""

import argparse
import csv
import re
import sys

SIDES = (("archbuild-cold", "archbuild cold"), ("nvcc", "cudaforge's pattern (nvcc -c per file, every -gencode)"))
LAYERS = (("cicc", "#4e79a7"), ("ptxas", "#f28e2b"), ("host", "#59a14f"))
BUSY = "#222222"


def read_marks(path):
    marks = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for row in f:
            m = re.match(r"mark: (\S+) (start|end) ([0-9.]+)", row)
            if m:
                marks.setdefault(m.group(1), {})[m.group(2)] = float(m.group(3))
    return marks


def read_load(path, side=None):
    """The sampler's rows; `side` ("nvcc" or "archbuild") picks one side's cores and processes
    from a file of a run with both sides at once (columns busy_nvcc, busy_archbuild, nvcc_NAME)."""
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            pre = "nvcc_" if side == "nvcc" else ""
            rows.append({
                "t": float(r["epoch"]),
                "busy": float(r[f"busy_{side}"] if side else r["busy_cores"]),
                "cicc": int(r[pre + "cicc"]),
                "ptxas": int(r[pre + "ptxas"]),
                "host": int(r[pre + "cudafe++"]) + int(r[pre + "cc1plus"]),
            })
    return rows


def split_run(path):
    with open(path, newline="") as f:
        return "busy_nvcc" in (next(csv.reader(f), None) or [])


def side_rows(rows, start, end):
    return [dict(r, t=r["t"] - start) for r in rows if start <= r["t"] <= end + 1]


def summary(name, rows, wall, cores):
    used = sum(r["busy"] for r in rows)  # one row a second
    last = {k: max((r["t"] for r in rows if r[k]), default=0.0) for k in ("cicc", "ptxas", "host")}
    peak = {k: max((r[k] for r in rows), default=0) for k in ("cicc", "ptxas", "host")}
    under = sum(1 for r in rows if r["busy"] < cores / 2)
    return (f"{name}: wall {wall:.1f} s; {used / 3600:.2f} core-hours used of {cores * wall / 3600:.2f} "
            f"available ({100 * used / max(cores * wall, 1):.0f}%); at most {peak['cicc']} cicc, "
            f"{peak['ptxas']} ptxas, {peak['host']} host-compiler processes at once; last cicc "
            f"running at {last['cicc']:.0f} s, last ptxas at {last['ptxas']:.0f} s, last host compiler at "
            f"{last['host']:.0f} s; {under} s with fewer than {cores // 2} cores busy")


def svg(panels, cores, width_s, title):
    w, ph, left, top, gap = 900, 230, 60, 50, 60
    pw = w - left - 30
    h = top + len(panels) * (ph + gap) + 20
    x = lambda t: left + pw * t / width_s
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" '
           f'font-size="12">', f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{left}" y="22" font-size="15">{esc(title)}</text>']
    for i, (label, rows, wall) in enumerate(panels):
        y0 = top + i * (ph + gap) + ph
        y = lambda v: y0 - ph * v / cores
        out.append(f'<text x="{left}" y="{y0 - ph - 8}" font-size="13">{esc(label)}: {wall:.0f} s</text>')
        out.append(f'<rect x="{left}" y="{y0 - ph}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>')
        for v in range(0, cores + 1, max(cores // 4, 1)):
            out.append(f'<line x1="{left - 4}" x2="{left + pw}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#eee"/>')
            out.append(f'<text x="{left - 8}" y="{y(v) + 4:.1f}" text-anchor="end">{v}</text>')
        step = 60 if width_s > 300 else 30
        for t in range(0, int(width_s) + 1, step):
            out.append(f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{y0}" y2="{y0 + 4}" stroke="#999"/>')
            out.append(f'<text x="{x(t):.1f}" y="{y0 + 17}" text-anchor="middle">{t}</text>')
        base = [0] * len(rows)
        for name, colour in LAYERS:  # stacked process counts, one polygon a layer
            top_ = [b + r[name] for b, r in zip(base, rows)]
            if rows and any(r[name] for r in rows):
                pts = [f"{x(r['t']):.1f},{y(v):.1f}" for r, v in zip(rows, top_)]
                pts += [f"{x(r['t']):.1f},{y(v):.1f}" for r, v in reversed(list(zip(rows, base)))]
                out.append(f'<polygon points="{" ".join(pts)}" fill="{colour}" fill-opacity="0.75" stroke="none"/>')
            base = top_
        if rows:
            pts = " ".join(f"{x(r['t']):.1f},{y(min(r['busy'], cores)):.1f}" for r in rows)
            out.append(f'<polyline points="{pts}" fill="none" stroke="{BUSY}" stroke-width="1.5"/>')
        out.append(f'<line x1="{x(wall):.1f}" x2="{x(wall):.1f}" y1="{y0 - ph}" y2="{y0}" stroke="red" '
                   f'stroke-dasharray="4,3"/>')
    ly = h - 12
    items = [("busy cores (/proc/stat)", BUSY)] + [(f"{n} processes" if n != "host" else
                                                    "host compiler (cudafe++, cc1plus)", c) for n, c in LAYERS]
    lx = left
    for name, colour in items:
        out.append(f'<rect x="{lx}" y="{ly - 10}" width="12" height="12" fill="{colour}"/>')
        out.append(f'<text x="{lx + 16}" y="{ly}">{esc(name)}</text>')
        lx += 30 + 7 * len(name)
    out.append(f'<text x="{w - 30}" y="{ly}" text-anchor="end">seconds; red: the side ends</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def esc(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("bench_log")
    p.add_argument("load_csv")
    p.add_argument("svg")
    p.add_argument("--cores", type=int, default=64, help="the machine's cores (default: 64)")
    p.add_argument("--title", default="candle-flash-attn, 53 files, 8.0 8.9: cores busy over time")
    a = p.parse_args(argv)
    marks, split = read_marks(a.bench_log), split_run(a.load_csv)
    cores = a.cores // 2 if split else a.cores  # both sides at once: each on half the cores
    panels = []
    for key, label in SIDES:
        rows = read_load(a.load_csv, ("nvcc" if key == "nvcc" else "archbuild") if split else None)
        m = marks.get(key, {})
        if "start" not in m:
            print(f"{key}: no start mark", file=sys.stderr)
            continue
        end = m.get("end", rows[-1]["t"] if rows else m["start"])
        wall = end - m["start"]
        part = side_rows(rows, m["start"], end)
        label += f" on {cores} cores" + ("" if "end" in m else f", unfinished when stopped at {wall:.0f} s")
        panels.append((label, part, wall))
        print(summary(label, part, wall, cores))
    if not panels:
        sys.exit("no side to draw")
    width = max(w for _, _, w in panels) * 1.03
    with open(a.svg, "w", encoding="utf-8") as f:
        f.write(svg(panels, cores, width, a.title))
    print(f"wrote {a.svg}")


if __name__ == "__main__":
    main()
