#!/bin/bash
# Observing the preprocessor on a CUTLASS file (results/benchmarks.md, "What observing costs"):
# observe_bench on candle-flash-attn's flash_fwd_hdim32_fp16_sm80.cu for `8.0` with the crate's
# flags, the observer off and on, without nvcc.
#
#   benches/cutlass_observe.sh [FA_DIR] [-- MORE observe_bench OPTIONS]
#
# FA_DIR (default: $FA_DIR, else `fa` in the current directory) holds `kernels/` (candle-flash-attn
# 0.11.1's kernels/) and `cutlass/include` (CUTLASS 4.2's headers: `cutlass_library/source/include`
# of PyPI's nvidia-cutlass 4.2.0), the layout of the `fa.tar.xz` that the crate-scale GPU runs carry
# (results/gpu.md). OBSERVE_BENCH names the benchmark's binary (default: this repository's
# target/release/examples/observe_bench, from `cargo build --release -p archbuild --example
# observe_bench`).
set -euo pipefail

fa=${FA_DIR:-fa}
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  fa=$1
  shift
fi
[ "${1:-}" = "--" ] && shift
fa=$(cd "$fa" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
bench=${OBSERVE_BENCH:-$repo/target/release/examples/observe_bench}

cd "$repo"
exec "$bench" "$fa/kernels/flash_fwd_hdim32_fp16_sm80.cu" --archs "8.0" \
  --include "$fa/cutlass/include" --include "$fa/kernels" \
  --flag -std=c++17 --flag -O3 --flag -U__CUDA_NO_HALF_OPERATORS__ --flag -U__CUDA_NO_HALF_CONVERSIONS__ \
  --flag -U__CUDA_NO_HALF2_OPERATORS__ --flag -U__CUDA_NO_BFLOAT16_CONVERSIONS__ \
  --flag --expt-relaxed-constexpr --flag --expt-extended-lambda --flag --use_fast_math --no-nvcc "$@"
