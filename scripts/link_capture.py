#!/usr/bin/env python3
"""A linker for rustc that links everything as usual except the programs it is told to record.

    cargo test --no-run --config 'target.<triple>.linker="scripts/link_capture.py"'
    with ARCHBUILD_CAPTURE_DIR=DIR, ARCHBUILD_CAPTURE_MATCH=<program name prefixes, comma-separated>
    and ARCHBUILD_CAPTURE_SKIP=<prefixes of programs not needed there>

Used by `candle_flash_attn.py --bundle`: the GPU host has a C compiler and the CUDA toolkit but
no Rust, so the test program's Rust half is compiled here and linked there, against the kernel
library archbuild builds there. The link's objects (which rustc deletes after it) and rlibs
become one relocatable object, DIR/files/<program>/rust.o (`cc -r`: an rlib's member joins only
when something needs it, as in the real link, so what travels is about the program's size);
static libraries named by `-l` and found in this machine's search path are copied beside it;
DIR/<program>.link.json holds the other arguments. Rust's own `rust-lld` is not carried:
`-fuse-ld=lld` and its `-B` directory are dropped, so the other machine's default linker links.
A skipped program gets a stand-in that says where it was not linked. Anything else is handed to
`cc` unchanged (build scripts, proc macros, other programs).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path


def expand(args):
    """rustc passes long argument lists in `@file`s, one argument per line."""
    out = []
    for a in args:
        if a.startswith("@") and Path(a[1:]).is_file():
            out.extend(l for l in Path(a[1:]).read_text().splitlines() if l)
        else:
            out.append(a)
    return out


def output_of(args):
    for i, a in enumerate(args):
        if a == "-o" and i + 1 < len(args):
            return args[i + 1]
    return ""


def capture(args, dest: Path, name: str) -> None:
    files = dest / "files" / name
    shutil.rmtree(files, ignore_errors=True)
    files.mkdir(parents=True, exist_ok=True)
    search, static_libs, kept, inputs = [], [], [], []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-o":
            kept += ["-o", name]
            i += 2
            continue
        if a.startswith("-fuse-ld=") or (a.startswith("-B") and "gcc-ld" in a):
            i += 1
            continue
        if a == "-B" and i + 1 < len(args) and "gcc-ld" in args[i + 1]:
            i += 2
            continue
        if a.startswith("-L"):
            d = a[2:] if a != "-L" else (args[i + 1] if i + 1 < len(args) else "")
            if d.startswith("@"):  # a placeholder the other machine fills in
                kept.append(f"-L{d}")
            else:
                search.append(d)
            i += 1 if a != "-L" else 2
            continue
        if a.startswith("-l"):
            static_libs.append(a[2:].split(":")[-1])
            kept.append(a)
            i += 1
            continue
        p = Path(a)
        if not a.startswith("-") and p.is_file():
            if not inputs:
                kept.append(f"files/{name}/rust.o")
            inputs.append(a)
        else:
            kept.append(a)
        i += 1
    # The objects and rlibs become one relocatable object: an archive member joins it only when
    # something needs it, as in the real link, so what travels is about the program's size.
    cmd = ["cc", "-r", "-nostdlib", "-o", str(files / "rust.o"), *inputs]
    if subprocess.run(cmd).returncode != 0:
        sys.exit(f"link_capture: `{' '.join(cmd[:5])} …` failed")
    # The link drops debug information anyway (`-Wl,--strip-debug`); not carrying it halves rust.o.
    subprocess.run(["strip", "--strip-debug", str(files / "rust.o")], check=True)
    # Static libraries named by `-l` and found in this machine's search path travel too; the rest
    # (the C library, the CUDA runtime, the placeholder's library) are the other machine's.
    libdir = files / "lib"
    libdir.mkdir(exist_ok=True)
    for lib in static_libs:
        for d in search:
            cand = Path(d) / f"lib{lib}.a"
            if cand.is_file():
                shutil.copy2(cand, libdir / cand.name)
                subprocess.run(["strip", "--strip-debug", str(libdir / cand.name)], check=True)
                break
    kept.insert(0, f"-Lfiles/{name}/lib")
    tmp = dest / f"{name}.link.json.tmp"
    tmp.write_text(json.dumps({"args": kept}, indent=1))
    os.replace(tmp, dest / f"{name}.link.json")


def main() -> None:
    args = expand(sys.argv[1:])
    dest = os.environ.get("ARCHBUILD_CAPTURE_DIR")
    match = [m for m in os.environ.get("ARCHBUILD_CAPTURE_MATCH", "").split(",") if m]
    skip = [m for m in os.environ.get("ARCHBUILD_CAPTURE_SKIP", "").split(",") if m]
    out = output_of(args)
    base = Path(out).name
    if dest and any(base.startswith(m) for m in match + skip):
        if any(base.startswith(m) for m in match):
            capture(args, Path(dest), base.split("-")[0])
        Path(out).write_text("#!/bin/sh\necho 'not linked here: see link_capture.py' >&2\nexit 1\n")
        os.chmod(out, 0o755)
        return
    os.execvp("cc", ["cc", *sys.argv[1:]])


if __name__ == "__main__":
    main()
