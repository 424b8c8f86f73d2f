#!/bin/bash
# Session 4 GPU run: the shared cache's GPU item (issue 11) and a regression run of the runtime's
# acceptance checks after the JIT cache gained its remote tier. Outputs go to $OUT.
# Needs in .gpu/: runtime/ (crates/archbuild-runtime/scripts/gpu_bundle.sh) and
# bin/vector_add_ptx (vector_add built with ARCHBUILD_ARCHS=compute_80, PTX only, and the
# runtime's `remote` feature).
cd "$(dirname "$0")"
step() { echo; echo "=================== $*"; }
python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('runtime/libnvJitLink.so.13.xz'),open('/tmp/libnvJitLink.so.13','wb'))"
export ARCHBUILD_NVJITLINK=/tmp/libnvJitLink.so.13
{
step "machine"; nvidia-smi -L; nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv
rm -rf /tmp/shared-remote /tmp/homeA /tmp/homeB
export ARCHBUILD_REMOTE_CACHE=file:///tmp/shared-remote
step "machine A: empty home, PTX-only fat binary (ISA 9.5 from CUDA 13.5), shared remote"
ARCHBUILD_HOME=/tmp/homeA ARCHBUILD_JIT_CACHE=/tmp/homeA/jit timeout 60 bin/vector_add_ptx --require-gpu; echo "rc=$?"
step "the remote now holds"; find /tmp/shared-remote -type f -printf '%P %s bytes\n'
step "machine B: another empty home, the same remote"
ARCHBUILD_HOME=/tmp/homeB ARCHBUILD_JIT_CACHE=/tmp/homeB/jit timeout 60 bin/vector_add_ptx --require-gpu; echo "rc=$?"
step "machine B's local JIT cache now holds"; find /tmp/homeB/jit -type f -printf '%P %s bytes\n'
step "machine B again, remote down (a path that is not a directory): local hit, no warning needed"
ARCHBUILD_REMOTE_CACHE=file:///dev/null/x ARCHBUILD_HOME=/tmp/homeB ARCHBUILD_JIT_CACHE=/tmp/homeB/jit timeout 60 bin/vector_add_ptx --require-gpu; echo "rc=$?"
unset ARCHBUILD_REMOTE_CACHE
} 2>&1 | tee $OUT/session4-shared-jit.log
step "gpu_acceptance" | tee $OUT/session4-acceptance.log
(cd runtime && timeout 200 ./gpu_acceptance fixtures; echo "rc=$?") 2>&1 | tee -a $OUT/session4-acceptance.log
