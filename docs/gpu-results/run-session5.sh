#!/bin/bash
# Session 5 GPU run (issue 15): `inspect --format cuobjdump` vs `cuobjdump --list-elf --list-ptx`
# on the large CUDA libraries of the host's PyTorch install (median of 3, tools alternated,
# outputs compared), and no-op `compile` of bench_kernels.cu with and without GPUs visible
# (first run fills the remembered device list, later runs use it).
# Needs .gpu/s5/bin/cargo-archbuild (release, stripped). Run from the repository root.
B=$PWD/.gpu/s5/bin/cargo-archbuild
step() { echo; echo "=================== $*"; }
CUOBJDUMP=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump)
NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc)
export NVCC
step "machine"; nvidia-smi -L; nproc; $CUOBJDUMP --version | tail -1; $NVCC --version | tail -1
SITE=$(python3 -c "import torch,os;print(os.path.dirname(os.path.dirname(torch.__file__)))" 2>/dev/null)
LIBS=$(for n in libcublasLt.so libcublas.so libcusparse.so libcusolver.so libcusolverMg.so libtorch_cuda.so; do
  find "$SITE" -name "$n*" -type f 2>/dev/null | head -1; done)
ms() { local s=$(date +%s%N); "$@" > /tmp/out.$$ 2>/dev/null; echo $(( ($(date +%s%N) - s) / 1000000 )); }
med() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
step "inspect --format cuobjdump vs cuobjdump --list-elf --list-ptx (ms, median of 3)"
for lib in $LIBS; do
  cat "$lib" > /dev/null  # page cache warm for both
  a=(); c=()
  for i in 1 2 3; do
    c+=($(ms $CUOBJDUMP --list-elf --list-ptx "$lib")); cp /tmp/out.$$ /tmp/theirs
    a+=($(ms $B archbuild inspect --format cuobjdump "$lib")); cp /tmp/out.$$ /tmp/ours
  done
  same=$(cmp -s /tmp/ours /tmp/theirs && echo identical || echo DIFFERENT)
  ma=$(med "${a[@]}"); mc=$(med "${c[@]}")
  echo "$(basename $lib) $(du -m $lib | cut -f1) MB $(wc -l < /tmp/ours) images: archbuild ${ma} ms (${a[*]}), cuobjdump ${mc} ms (${c[*]}), ratio $(python3 -c "print(f'{$ma/max($mc,1):.2f}')"), output $same"
  [ "$same" = DIFFERENT ] && diff /tmp/ours /tmp/theirs | head -5
done
step "no-op compile of bench_kernels.cu (--archs 9.0), ARCHBUILD_HOME empty at start"
export ARCHBUILD_HOME=/tmp/ab-home; rm -rf $ARCHBUILD_HOME /tmp/nb; mkdir -p /tmp/nb
cp benches/inputs/bench_kernels.cu /tmp/nb/
cd /tmp/nb
s=$(date +%s%N); $B archbuild compile bench_kernels.cu --archs 9.0 -o bk.fatbin -q > /dev/null; echo "cold build rc=$? $(( ($(date +%s%N) - s) / 1000000 )) ms"
for vis in "GPUs visible" "CUDA_VISIBLE_DEVICES="; do
  t=()
  for i in 1 2 3 4 5 6; do
    if [ "$vis" = "GPUs visible" ]; then t+=($(ms $B archbuild compile bench_kernels.cu --archs 9.0 -o bk.fatbin -q));
    else t+=($(CUDA_VISIBLE_DEVICES= ms $B archbuild compile bench_kernels.cu --archs 9.0 -o bk.fatbin -q)); fi
  done
  echo "$vis: no-op runs (ms; the first asks the driver and remembers the device list): ${t[*]}"
done
echo "the summary of a no-op with GPUs visible:"
$B archbuild compile bench_kernels.cu --archs 9.0 -o bk.fatbin 2>&1 | grep -E "Fresh|GPU" | head -3
