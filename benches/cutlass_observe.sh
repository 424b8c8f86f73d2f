#!/bin/bash
cd /work/main
exec ./target/release/examples/observe_bench /tmp/i37/fa/kernels/flash_fwd_hdim32_fp16_sm80.cu --archs "8.0" \
  --include /tmp/i37/fa/cutlass/include --include /tmp/i37/fa/kernels \
  --flag -std=c++17 --flag -O3 --flag -U__CUDA_NO_HALF_OPERATORS__ --flag -U__CUDA_NO_HALF_CONVERSIONS__ \
  --flag -U__CUDA_NO_HALF2_OPERATORS__ --flag -U__CUDA_NO_BFLOAT16_CONVERSIONS__ \
  --flag --expt-relaxed-constexpr --flag --expt-extended-lambda --flag --use_fast_math --no-nvcc
