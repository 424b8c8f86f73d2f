#!/bin/bash
# Session 10 GPU batch 2: the library benchmark on one candle-flash-attn kernel file
# (CUTLASS 4.2 headers from PyPI), `8.0 9.0`: nvcc (cudaforge's pattern) on cores 0-7 and
# archbuild on cores 8-15 at the same time, one run.
cd "$(dirname "$0")"
xz -d library_bench.xz && chmod +x library_bench
mkdir -p fa && tar xJf fa.tar.xz -C fa
export PATH=/usr/local/cuda/bin:$PATH
cd fa/kernels
timeout 585 taskset -c 8-15 ../../library_bench flash_fwd_hdim64_fp16_sm80.cu --archs "8.0 9.0" \
  -I "$PWD/../cutlass/include" -I "$PWD" \
  --flag -std=c++17 --flag -O3 --flag -U__CUDA_NO_HALF_OPERATORS__ --flag -U__CUDA_NO_HALF_CONVERSIONS__ \
  --flag -U__CUDA_NO_HALF2_OPERATORS__ --flag -U__CUDA_NO_BFLOAT16_CONVERSIONS__ \
  --flag --expt-relaxed-constexpr --flag --expt-extended-lambda --flag --use_fast_math \
  --flag -Xcompiler --flag -fPIC --jobs 8 --nvcc-cpus 0-7 2>&1 | tee $OUT/flash_bench2.log
echo "bench rc=${PIPESTATUS[0]}" | tee -a $OUT/flash_bench2.log
