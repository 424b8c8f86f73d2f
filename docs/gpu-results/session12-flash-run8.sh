#!/bin/bash
# Session 12 GPU batch 8: why does the comment-only edit of the flash-attention file rerun cicc on
# the GPU host (served here)? library_bench --verbose now prints each job's miss reason and any
# cache note. flash_api.cu includes the same headers as the kernel files at a fraction of the
# cicc time; then the hdim64 kernel file for `9.0` as far as the time allows.
cd "$(dirname "$0")"
xz -d library_bench.xz && chmod +x library_bench
mkdir -p fa && tar xJf fa.tar.xz -C fa
L=$OUT/flash_bench8.log
{ echo "gcc: $(gcc --version | head -1)"; df -h /tmp . | cat; mount | grep -E ' /tmp | / ' ; nproc; } 2>&1 | tee $L
export PATH=/usr/local/cuda/bin:$PATH
cd fa/kernels
F=(-I "$PWD/../cutlass/include" -I "$PWD" \
  --flag -std=c++17 --flag -O3 --flag -U__CUDA_NO_HALF_OPERATORS__ --flag -U__CUDA_NO_HALF_CONVERSIONS__ \
  --flag -U__CUDA_NO_HALF2_OPERATORS__ --flag -U__CUDA_NO_BFLOAT16_CONVERSIONS__ \
  --flag --expt-relaxed-constexpr --flag --expt-extended-lambda --flag --use_fast_math \
  --flag -Xcompiler --flag -fPIC --jobs 16 --skip-nvcc --verbose)
timeout 200 ../../library_bench flash_api.cu --archs "8.0 9.0" "${F[@]}" 2>&1 | tee -a $L
echo "bench rc=${PIPESTATUS[0]}" | tee -a $L
timeout 330 ../../library_bench flash_fwd_hdim64_fp16_sm80.cu --archs "9.0" "${F[@]}" 2>&1 | tee -a $L
echo "bench rc=${PIPESTATUS[0]}" | tee -a $L
