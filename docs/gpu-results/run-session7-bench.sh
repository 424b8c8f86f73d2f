#!/bin/bash
# Session 7 GPU run 2 (issue 15 item 4): build_bench on 2 pinned cores of the H100 host with its
# CUDA 13.0 (cicc sharing by class, proven for 13.0 by run 1's study): nvcc --fatbin serial and
# --threads 2, archbuild cold with sharing and with every target compiled on its own (fat
# binaries compared byte for byte), no-op, +sm_120, all-major with and without sharing.
# Needs .gpu/s7/bin/build_bench (release, stripped). Run from the repository root.
{
echo "== machine"; nvidia-smi -L; nproc; $(command -v nvcc || echo /usr/local/cuda/bin/nvcc) --version | tail -1
export PATH=/usr/local/cuda/bin:$PATH ARCHBUILD_HOME=/tmp/ab-bench-home
echo "== taskset -c 0,1 build_bench benches/inputs/bench_kernels.cu"
taskset -c 0,1 .gpu/s7/bin/build_bench "$PWD/benches/inputs/bench_kernels.cu"
echo "rc=$?"
} 2>&1 | tee $OUT/session7-build-bench.log
