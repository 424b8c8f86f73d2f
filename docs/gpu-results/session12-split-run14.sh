#!/bin/bash
# Session 12 GPU batch 14 (issue 23): the split cicc job (preprocessing, then cicc on its
# output with input and -o last, through a launcher named sccache that passes every command
# through) against nvcc -ptx, with the GPU host's CUDA 13.0.88, on every CUDA source of the
# repository that compiles, for `7.5 8.0 8.6 8.9 9.0+PTX 9.0a`: dist_bench prints each fat
# binary's hash; the two builds of a file must print the same one.
cd "$(dirname "$0")"
B=$PWD; xz -dc dist.tar.xz | tar xf - dist_bench; chmod +x dist_bench
L=$OUT/split13.log; : > $L
export PATH=/usr/local/cuda/bin:$PATH
nvcc --version | tail -1 | tee -a $L
printf '#!/bin/sh\ncase "$1" in --dist-status) echo "\\"Disabled\\""; exit 0 ;; esac\nexec "$@"\n' > $B/sccache-passthrough
chmod +x $B/sccache-passthrough
ARCHS="7.5 8.0 8.6 8.9 9.0+PTX 9.0a"
same=0; differ=0
FILES="benches/inputs/bench_kernels.cu benches/inputs/matmul_variants.cu crates/archbuild-runtime/tests/fixtures/kernel.cu
crates/cargo-archbuild/templates/kernel-crate/kernels/ops.cu crates/cargo-archbuild/tests/fixtures/kernels.cu
crates/cargo-archbuild/tests/fixtures/scale.cu crates/cargo-archbuild/tests/fixtures/warn.cu
crates/cargo-archbuild/tests/fixtures/host_main.cu examples/host_cuda/src/vector_add.cu examples/mixed_rig/kernels/rig.cu
examples/variants/kernels/gemm.cu examples/vector_add/kernels/vector_add.cu tests/fixtures/arch_list/cub_reduce.cu
tests/fixtures/cicc_sharing/by_arch.cu tests/fixtures/compiler_output/warn.cu tests/fixtures/downstream/kernels/add.cu
tests/fixtures/downstream/kernels/scale.cu"
for f in $FILES; do
  a=$(unset ARCHBUILD_COMPILER_LAUNCHER; ./dist_bench ../$f --archs "$ARCHS" --label "nvcc  $f" 2>&1); echo "$a" | tee -a $L
  b=$(ARCHBUILD_COMPILER_LAUNCHER=$B/sccache-passthrough ./dist_bench ../$f --archs "$ARCHS" --label "split $f" 2>&1); echo "$b" | tee -a $L
  ha=$(echo "$a" | grep -o 'fat binary [0-9a-f]*'); hb=$(echo "$b" | grep -o 'fat binary [0-9a-f]*')
  if [ -n "$ha" ] && [ "$ha" = "$hb" ]; then same=$((same+1)); else
    c=$(unset ARCHBUILD_COMPILER_LAUNCHER; ./dist_bench ../$f --archs "$ARCHS" --label "nvcc again $f" 2>&1); echo "$c" | tee -a $L
    hc=$(echo "$c" | grep -o 'fat binary [0-9a-f]*')
    differ=$((differ+1)); echo "DIFFERS: $f (nvcc against itself: $([ "$ha" = "$hc" ] && echo same || echo differs))" | tee -a $L; fi
done
echo "== $same identical, $differ differing (CUDA 13.0.88, $ARCHS)" | tee -a $L
