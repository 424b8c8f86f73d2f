#!/bin/bash
# Session 7 GPU run 3 (issue 15: "the default arch list no slower than today"): the default list
# (`all-major`: 7.5 8.0 9.0 10.0 11.0 12.0+PTX) for bench_kernels.cu on 2 pinned cores with the
# host's CUDA 13.0, alternating `nvcc --fatbin --threads 2`, archbuild with cicc sharing on and
# off (fresh cache each), twice. Needs .gpu/s7/bin/cargo-archbuild. Run from the repository root.
B=$PWD/.gpu/s7/bin/cargo-archbuild
export PATH=/usr/local/cuda/bin:$PATH
W=/tmp/default-bench; rm -rf $W; mkdir -p $W; cp benches/inputs/bench_kernels.cu $W/; cd $W
GC="-gencode=arch=compute_75,code=sm_75 -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_100,code=sm_100 -gencode=arch=compute_110,code=sm_110 -gencode=arch=compute_120,code=[sm_120,compute_120]"
ms() { local s=$(date +%s%N); "$@" > $W/last.log 2>&1 || { echo "FAILED: $*"; tail -5 $W/last.log; }; echo $(( ($(date +%s%N) - s) / 1000000 )); }
{
echo "== machine"; nvidia-smi -L; nproc; nvcc --version | tail -1
for rep in 1 2; do
  t=$(ms taskset -c 0,1 nvcc --fatbin --threads 2 $GC -o t2.fatbin bench_kernels.cu)
  echo "rep $rep: nvcc --fatbin --threads 2: $t ms"
  for share in on off; do
    export ARCHBUILD_HOME=$W/home-$rep-$share
    a=$(ARCHBUILD_SHARE_CICC=$share ms taskset -c 0,1 $B archbuild compile bench_kernels.cu --archs all-major -o ab-$share.fatbin -q)
    echo "rep $rep: archbuild all-major, sharing $share: $a ms ($(python3 -c "print(f'{$a/$t:.2f}')") of nvcc --threads 2)"
  done
done
ARCHBUILD_HOME=$W/home-1-on $B archbuild compile bench_kernels.cu --archs all-major -o ab-on.fatbin -v 2>&1 | grep -iE "shar|Fresh" | head -3
cmp ab-on.fatbin ab-off.fatbin && echo "fat binaries with and without sharing: identical"
} 2>&1 | tee $OUT/session7-default.log
