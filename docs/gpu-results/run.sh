#!/bin/bash
# One GPU session: every real-GPU acceptance item of issues 3, 5 and 6. Outputs go to $OUT.
cd "$(dirname "$0")"
G=$PWD
step() { echo; echo "=================== $*"; }
python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('runtime/libnvJitLink.so.13.xz'),open('/tmp/libnvJitLink.so.13','wb'))"
export ARCHBUILD_JIT_CACHE=/tmp/abjit ARCHBUILD_HOME=/tmp/abhome
{
step "machine"; nvidia-smi -L; nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv
step "doctor (no file)"; ARCHBUILD_NVJITLINK=/tmp/libnvJitLink.so.13 bin/cargo-archbuild doctor; echo "rc=$?"
step "doctor vector_add.fatbin"; bin/cargo-archbuild doctor bin/vector_add.fatbin; echo "rc=$?"
step "doctor host_cuda executable"; bin/cargo-archbuild doctor bin/host_cuda; echo "rc=$?"
step "doctor isa95.fatbin, nvJitLink 13.5 carried"; ARCHBUILD_NVJITLINK=/tmp/libnvJitLink.so.13 bin/cargo-archbuild doctor runtime/fixtures/isa95.fatbin; echo "rc=$?"
step "doctor isa95.fatbin, only the system nvJitLink 13.0"; bin/cargo-archbuild doctor runtime/fixtures/isa95.fatbin; echo "rc=$?"
step "doctor --message-format json vector_add.fatbin"; bin/cargo-archbuild doctor --message-format json bin/vector_add.fatbin; echo "rc=$?"
step "vector_add"; timeout 60 bin/vector_add --require-gpu; echo "rc=$?"
step "mixed_rig"; timeout 60 bin/mixed_rig --require-gpu; echo "rc=$?"
step "mixed_rig, one GPU"; CUDA_VISIBLE_DEVICES=0 timeout 60 bin/mixed_rig --require-gpu; echo "rc=$?"
step "host_cuda"; timeout 60 bin/host_cuda --require-gpu; echo "rc=$?"
step "runtime gpu tests"; timeout 120 bin/runtime_gpu_tests gpu:: --test-threads=1 --nocapture; echo "rc=$?"
} 2>&1 | tee $OUT/examples.log
step "gpu_acceptance" | tee $OUT/acceptance.log
(cd runtime && ARCHBUILD_NVJITLINK=/tmp/libnvJitLink.so.13 timeout 200 ./gpu_acceptance fixtures; echo "rc=$?") 2>&1 | tee -a $OUT/acceptance.log
# SKIP_BENCH=1: acceptance only (the benchmark takes ~4 of the session's device minutes).
[ "${SKIP_BENCH:-0}" = 1 ] && exit 0
step "load_bench (GPU 0)" | tee $OUT/bench.log
(cd runtime && CUDA_VISIBLE_DEVICES=0 ARCHBUILD_NVJITLINK=/tmp/libnvJitLink.so.13 timeout 240 ./load_bench fixtures; echo "rc=$?") 2>&1 | tee -a $OUT/bench.log
