#!/bin/bash
# Session 10 GPU batch: host_cuda (archbuild::Library) on the H100, doctor on it, and the
# library benchmark on one candle-flash-attn kernel file with CUTLASS 4.2 (PyPI) headers.
set -x
cd "$(dirname "$0")"
xz -d cargo-archbuild.xz library_bench.xz
chmod +x host_cuda cargo-archbuild library_bench
mkdir -p fa && tar xJf fa.tar.xz -C fa
export PATH=/usr/local/cuda/bin:$PATH
which nvcc; nvcc --version | tail -2; nvidia-smi --query-gpu=name,driver_version --format=csv
nproc
./host_cuda --require-gpu > $OUT/host_cuda.log 2>&1; echo "host_cuda rc=$?" >> $OUT/host_cuda.log
./cargo-archbuild archbuild doctor ./host_cuda > $OUT/doctor.log 2>&1; echo "doctor rc=$?" >> $OUT/doctor.log
cd fa/kernels
timeout 530 ../../library_bench flash_fwd_hdim64_fp16_sm80.cu --archs "8.0 9.0" \
  -I "$PWD/../cutlass/include" -I "$PWD" \
  --flag -std=c++17 --flag -O3 --flag -U__CUDA_NO_HALF_OPERATORS__ --flag -U__CUDA_NO_HALF_CONVERSIONS__ \
  --flag -U__CUDA_NO_HALF2_OPERATORS__ --flag -U__CUDA_NO_BFLOAT16_CONVERSIONS__ \
  --flag --expt-relaxed-constexpr --flag --expt-extended-lambda --flag --use_fast_math \
  --flag -Xcompiler --flag -fPIC --jobs 16 > $OUT/flash_bench.log 2>&1
echo "bench rc=$?" >> $OUT/flash_bench.log
cat $OUT/*.log
