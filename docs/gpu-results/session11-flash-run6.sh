#!/bin/bash
# Session 10 GPU batch 6 (session 11: the edit and second-home steps run 5 did not reach): archbuild's steps alone (--skip-nvcc) on the flash-attention file,
# `8.0 9.0`, with every job and host object printed as it finishes (--verbose).
cd "$(dirname "$0")"
xz -d library_bench.xz && chmod +x library_bench
mkdir -p fa && tar xJf fa.tar.xz -C fa
export PATH=/usr/local/cuda/bin:$PATH
cd fa/kernels
timeout 585 ../../library_bench flash_fwd_hdim64_fp16_sm80.cu --archs "8.0 9.0" \
  -I "$PWD/../cutlass/include" -I "$PWD" \
  --flag -std=c++17 --flag -O3 --flag -U__CUDA_NO_HALF_OPERATORS__ --flag -U__CUDA_NO_HALF_CONVERSIONS__ \
  --flag -U__CUDA_NO_HALF2_OPERATORS__ --flag -U__CUDA_NO_BFLOAT16_CONVERSIONS__ \
  --flag --expt-relaxed-constexpr --flag --expt-extended-lambda --flag --use_fast_math \
  --flag -Xcompiler --flag -fPIC --jobs 16 --skip-nvcc --verbose 2>&1 | tee $OUT/flash_bench6.log
echo "bench rc=${PIPESTATUS[0]}" | tee -a $OUT/flash_bench6.log
