#!/bin/bash
# Session 8 GPU run 3 (issue 15 item 3): entry_bench on the GPU host's CPU (what a local hit's
# read and verify cost there, XXH3-128 against BLAKE3), then load_bench twice with the warm hit
# measured against raw loads in one process after warm-up. Needs .gpu/runtime (gpu_bundle.sh)
# with entry_bench (`cargo build --release -p archbuild-store --example entry_bench`, stripped).
# Run from the repository root; the log goes to $OUT.
R=$PWD/.gpu
python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$R/runtime/libnvJitLink.so.13.xz'),open('/tmp/libnvJitLink.so.13','wb'))"
export ARCHBUILD_NVJITLINK=/tmp/libnvJitLink.so.13
{
nvidia-smi -L; lscpu | grep -E "Model name|^CPU\(s\)"
echo "== entry_bench"; $R/runtime/entry_bench
for i in 1 2; do
  echo "== load_bench, run $i"
  (cd $R/runtime && CUDA_VISIBLE_DEVICES=0 timeout 200 ./load_bench fixtures --samples 1; echo "rc=$?")
done
} 2>&1 | tee $OUT/session8-load.log
