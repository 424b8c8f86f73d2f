#!/bin/bash
# Session 4, kernel variants (issue 14): the `variants` example on the GPU machine, built with
# its Cargo.toml list (`7.5 8.6+PTX 9.0a`: the Hopper variant is in the sm_90a cubin) and with
# the Hopper target left out (`ARCHBUILD_ARCHS="7.5 8.6+PTX"`: a 9.0 GPU JIT-compiles the
# compute_86 PTX, which holds the MMA and SIMT variants). Outputs go to $OUT.
# Needs in .gpu2/: bin/variants, bin/variants_no_hopper, libnvJitLink.so.13.xz (CUDA 13.5's, for
# the ISA 9.5 PTX on a CUDA 13.0 driver).
cd "$(dirname "$0")"
step() { echo; echo "=================== $*"; }
python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('libnvJitLink.so.13.xz'),open('/tmp/libnvJitLink.so.13','wb'))"
export ARCHBUILD_NVJITLINK=/tmp/libnvJitLink.so.13 ARCHBUILD_JIT_CACHE=/tmp/abjit-variants
rm -rf /tmp/abjit-variants
{
step "machine"; nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv
step "variants (7.5 8.6+PTX 9.0a)"; timeout 60 bin/variants --require-gpu; echo "rc=$?"
step "variants without the Hopper image (7.5 8.6+PTX): JIT"; timeout 60 bin/variants_no_hopper --require-gpu; echo "rc=$?"
step "again: cached JIT"; timeout 60 bin/variants_no_hopper --require-gpu; echo "rc=$?"
} 2>&1 | tee $OUT/session4-variants.log
