#!/bin/bash
# Session 7 GPU run 5 (issue 15 item 3): load_bench with the cached-JIT hit also loaded in place
# (`load_raw`) and compared with a raw load of the cubin. Needs .gpu/runtime (gpu_bundle.sh, with
# this load_bench). Run from the repository root; the log goes to $OUT.
R=$PWD/.gpu
python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$R/runtime/libnvJitLink.so.13.xz'),open('/tmp/libnvJitLink.so.13','wb'))"
export ARCHBUILD_NVJITLINK=/tmp/libnvJitLink.so.13
(cd $R/runtime && nvidia-smi -L && CUDA_VISIBLE_DEVICES=0 timeout 240 ./load_bench fixtures --samples 1; echo "rc=$?") 2>&1 | tee $OUT/session7-load.log
