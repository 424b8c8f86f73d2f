#!/bin/bash
# Session 7 GPU run 1 (issue 15): no-op `compile` of bench_kernels.cu with and without GPUs
# visible (release CLI), then the cicc-sharing corpus study with the host's CUDA 13.0
# (benches/cicc_sharing_study.py over the two bench files, the repository's 14 kernel sources and
# candle-kernels @2a13b0f3ff62, carried in .gpu/s7/candle). Logs go to $OUT.
# Needs .gpu/s7/bin/cargo-archbuild (release, stripped). Run from the repository root.
B=$PWD/.gpu/s7/bin/cargo-archbuild
R=$PWD
NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc)
export NVCC
step() { echo; echo "=================== $*"; }
ms() { local s=$(date +%s%N); "$@" > /dev/null 2>&1; echo $(( ($(date +%s%N) - s) / 1000000 )); }
{
step "machine"; nvidia-smi -L; nproc; $NVCC --version | tail -1; python3 --version
step "no-op compile of bench_kernels.cu (--archs 9.0), ARCHBUILD_HOME empty at start"
export ARCHBUILD_HOME=/tmp/ab-home; rm -rf $ARCHBUILD_HOME /tmp/nb; mkdir -p /tmp/nb
cp benches/inputs/bench_kernels.cu /tmp/nb/
cd /tmp/nb
s=$(date +%s%N); $B archbuild compile bench_kernels.cu --archs 9.0 -o bk.fatbin -q > /dev/null; echo "cold build rc=$? $(( ($(date +%s%N) - s) / 1000000 )) ms"
t=(); for i in 1 2 3 4 5 6 7 8; do t+=($(ms $B archbuild compile bench_kernels.cu --archs 9.0 -o bk.fatbin -q)); done
echo "GPUs visible (the first run asks the driver and remembers the device list): ${t[*]}"
t=(); for i in 1 2 3 4 5 6 7 8; do t+=($(CUDA_VISIBLE_DEVICES= ms $B archbuild compile bench_kernels.cu --archs 9.0 -o bk.fatbin -q)); done
echo "CUDA_VISIBLE_DEVICES= (same): ${t[*]}"
t=(); for i in 1 2 3 4 5; do t+=($(ARCHBUILD_SIMULATED_GPUS=9.0 ms $B archbuild compile bench_kernels.cu --archs 9.0 -o bk.fatbin -q)); done
echo "ARCHBUILD_SIMULATED_GPUS=9.0 (no driver at all): ${t[*]}"
echo "summary of a remembered no-op:"
$B archbuild compile bench_kernels.cu --archs 9.0 -o bk.fatbin 2>&1 | grep -E "Fresh|GPU" | head -3
echo "libcuda loads in a remembered no-op: $(LD_DEBUG=libs $B archbuild compile bench_kernels.cu --archs 9.0 -o bk.fatbin -q 2>&1 | grep -c 'calling init:.*libcuda')"
cd $R
step "cicc-sharing study, CUDA 13.0 ($NVCC), families 8, 10 and 12"
C=$R/.gpu/s7/candle/candle-kernels/src
SRCS="$(ls $C/*.cu $C/mmq_gguf/*.cu $C/moe/*.cu) $R/benches/inputs/bench_kernels.cu $R/benches/inputs/matmul_variants.cu
 $(git ls-files '*.cu' | grep -v -e '^benches/inputs' -e broken.cu -e host_main.cu -e bad-archs | sed "s|^|$R/|")"
echo "$(echo $SRCS | wc -w) sources"
s=$(date +%s)
ARCHS="80 86 87 88 89 100 103 120 121" J=16 python3 benches/cicc_sharing_study.py $NVCC /tmp/study $SRCS
echo "study took $(( $(date +%s) - s )) s"
} 2>&1 | tee $OUT/session7-run1.log
