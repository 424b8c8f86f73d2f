#!/bin/bash
# Session 8 GPU run 2 (issue 15 item 3, diagnostics): each way of loading the bench_kernels
# sm_90 code ten times in a row, every time printed: a cached-JIT hit through `load` (cudarc
# module) and `load_raw` (in place), and raw cuModuleLoadData of the cached cubin and of the fat
# binary's cubin. Needs .gpu/runtime (gpu_bundle.sh). Run from the repository root; log in $OUT.
R=$PWD/.gpu
python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$R/runtime/libnvJitLink.so.13.xz'),open('/tmp/libnvJitLink.so.13','wb'))"
export ARCHBUILD_NVJITLINK=/tmp/libnvJitLink.so.13 CUDA_VISIBLE_DEVICES=0
{
for f in kernels matmul; do
  for jit in auto driver; do
    export ARCHBUILD_JIT=$jit ARCHBUILD_JIT_CACHE=/tmp/series-$f-$jit CUDA_CACHE_PATH=/tmp/series-nv
    mkdir -p $CUDA_CACHE_PATH
    echo "== bench_$f ARCHBUILD_JIT=$jit"
    $R/runtime/load_bench --child ours-ptx $R/runtime/fixtures/bench_$f.fatbin 1 > /dev/null
    for i in 1 2; do timeout 60 $R/runtime/load_bench --child series $R/runtime/fixtures/bench_$f.fatbin 10 | tr ';' '\n'; done
  done
done
} 2>&1 | tee $OUT/session8-series.log
