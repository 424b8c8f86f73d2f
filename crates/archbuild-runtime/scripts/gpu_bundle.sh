#!/bin/sh
# Builds the folder the GPU machine needs for gpu_acceptance and load_bench (it has no Rust
# toolchain and no CUDA 13.5): the two programs, the fixtures (real cubins and PTX made by the
# CUDA 13.5 toolkit here, packed by archbuild-fatbin) and nvJitLink 13.5 (xz, 31.5 MB).
# Run from the repository root:  sh crates/archbuild-runtime/scripts/gpu_bundle.sh [OUT]
# (default OUT: .gpu/runtime, inside the git-ignored .gpu folder; carry it to the GPU machine).
set -eu
OUT=${1:-.gpu/runtime}
# nvJitLink 13.5 from the toolkit archbuild provisions (`cargo archbuild toolkit install`).
NVJITLINK=${NVJITLINK:-${ARCHBUILD_HOME:-$HOME/.cache/archbuild}/toolkits/cuda-13.5.37/nvidia/cu13/lib/libnvJitLink.so.13}
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
cargo build --release -p archbuild-runtime --examples
rm -rf "$OUT"
mkdir -p "$OUT/fixtures"
"$CARGO_TARGET_DIR/release/examples/gpu_fixtures" "$OUT/fixtures" --bench
# The benchmark's sources are megabytes; the programs read only the .fatbin files and the small
# per-image files of src/ (gpu_acceptance check 6).
rm -f "$OUT"/fixtures/src/bench_*
cp "$CARGO_TARGET_DIR/release/examples/gpu_acceptance" "$CARGO_TARGET_DIR/release/examples/load_bench" "$OUT/"
strip "$OUT/gpu_acceptance" "$OUT/load_bench"
xz -T2 -9 -c "$NVJITLINK" > "$OUT/libnvJitLink.so.13.xz"
du -sh "$OUT"
