#!/bin/bash
# Session 8 GPU run 1 (issue 15 item 3): the entry checksum moved to XXH3-128 and a hit reads
# header then payload — gpu_acceptance, the runtime's GPU tests (cache format changed),
# vector_add on the GPU, and load_bench with the in-place breakdown. Outputs go to $OUT.
# Needs .gpu/runtime (crates/archbuild-runtime/scripts/gpu_bundle.sh) and .gpu/s8/ with
# runtime_it (`cargo test --release -p archbuild-runtime --test it --no-run`, stripped) and
# vector_add (`cargo build --release -p vector_add`, stripped). Run from the repository root.
R=$PWD/.gpu
step() { echo; echo "=================== $*"; }
python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$R/runtime/libnvJitLink.so.13.xz'),open('/tmp/libnvJitLink.so.13','wb'))"
export ARCHBUILD_NVJITLINK=/tmp/libnvJitLink.so.13
{
step "machine"; nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv
step "gpu_acceptance"
(cd $R/runtime && timeout 200 ./gpu_acceptance fixtures; echo "rc=$?")
step "runtime GPU tests (gpu::)"
timeout 200 $R/s8/runtime_it gpu:: --test-threads 1; echo "rc=$?"
step "vector_add on the GPU"
ARCHBUILD_HOME=/tmp/va-home timeout 60 $R/s8/vector_add --require-gpu; echo "rc=$?"
for i in 1 2; do
step "load_bench, run $i"
(cd $R/runtime && CUDA_VISIBLE_DEVICES=0 timeout 200 ./load_bench fixtures --samples 1; echo "rc=$?")
done
} 2>&1 | tee $OUT/session8-runtime.log
