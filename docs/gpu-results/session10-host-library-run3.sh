#!/bin/bash
# Session 10 GPU batch 3: library_bench --verbose on host_cuda's vector_add.cu with nvcc 13.0
# (what each step ran), then on 13.0 the flash-attention file's edit step alone is not rerun.
cd "$(dirname "$0")"
xz -d library_bench.xz && chmod +x library_bench
export PATH=/usr/local/cuda/bin:$PATH
./library_bench src/vector_add.cu --verbose --jobs 16 2>&1 | tee $OUT/vadd_bench.log
