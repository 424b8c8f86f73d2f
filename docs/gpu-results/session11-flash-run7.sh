#!/bin/bash
# Session 11 GPU batch 7: run 6 missed preprocessor mode on the comment-only edit (both cicc ran
# again). Are the unpacked files stamped in the future here? Print the clocks, then run the same
# steps with every unpacked file's mtime set to an hour ago.
cd "$(dirname "$0")"
xz -d library_bench.xz && chmod +x library_bench
mkdir -p fa && tar xJf fa.tar.xz -C fa
echo "device clock: $(date -u +%FT%TZ)" | tee $OUT/flash_bench7.log
echo "a header's mtime: $(stat -c %y fa/kernels/flash.h)" | tee -a $OUT/flash_bench7.log
echo "files stamped in the future: $(find fa -newermt now | wc -l) of $(find fa -type f | wc -l)" | tee -a $OUT/flash_bench7.log
find fa -exec touch -h -d '1 hour ago' {} +
echo "after touch: $(find fa -newermt now | wc -l) in the future" | tee -a $OUT/flash_bench7.log
export PATH=/usr/local/cuda/bin:$PATH
cd fa/kernels
timeout 560 ../../library_bench flash_fwd_hdim64_fp16_sm80.cu --archs "8.0 9.0" \
  -I "$PWD/../cutlass/include" -I "$PWD" \
  --flag -std=c++17 --flag -O3 --flag -U__CUDA_NO_HALF_OPERATORS__ --flag -U__CUDA_NO_HALF_CONVERSIONS__ \
  --flag -U__CUDA_NO_HALF2_OPERATORS__ --flag -U__CUDA_NO_BFLOAT16_CONVERSIONS__ \
  --flag --expt-relaxed-constexpr --flag --expt-extended-lambda --flag --use_fast_math \
  --flag -Xcompiler --flag -fPIC --jobs 16 --skip-nvcc --verbose 2>&1 | tee -a $OUT/flash_bench7.log
echo "bench rc=${PIPESTATUS[0]}" | tee -a $OUT/flash_bench7.log
