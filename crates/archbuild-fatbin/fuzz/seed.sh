#!/usr/bin/env bash
# Seeds the fuzz corpora with real files from NVIDIA's tools: fat binaries in every compression
# mode, cubins of several generations, PTX, and host objects (plain, -rdc, -dlto).
# Usage: fuzz/seed.sh [NVCC]   (default: $CUDA_HOME/bin/nvcc, else nvcc on PATH)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${1:-${CUDA_HOME:+$CUDA_HOME/bin/nvcc}}
nvcc=${nvcc:-nvcc}
bin=$(dirname "$(command -v "$nvcc")")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/k.cu" <<'CU'
extern "C" __global__ void add(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += 1.0f;
}
template <typename T> __global__ void scale(T* a, T s) { a[threadIdx.x] *= s; }
template __global__ void scale<float>(float*, float);
template __global__ void scale<double>(double*, double);
CU
mkdir -p "$here"/corpus/{container,cubin,ptx,host_elf}
cd "$work"
for sm in 75 86 90 90a 100 120; do
  "$nvcc" -cubin -arch=sm_$sm k.cu -o "$here/corpus/cubin/k_sm_$sm.cubin"
done
"$nvcc" -cubin -arch=sm_86 -lineinfo k.cu -o "$here/corpus/cubin/k_sm_86_lineinfo.cubin"
for cp in 75 90; do
  "$nvcc" -ptx -arch=compute_$cp k.cu -o "$here/corpus/ptx/k_compute_$cp.ptx"
done
for mode in "" "-compress-mode=size" "-compress-mode=speed" "-no-compress"; do
  name=fat${mode//[^a-z]/_}
  "$nvcc" -fatbin -gencode arch=compute_75,code=sm_75 -gencode arch=compute_90,code=[sm_90,compute_90] \
    $mode k.cu -o "$here/corpus/container/$name.fatbin"
done
"$nvcc" -c k.cu -arch=sm_86 -o "$here/corpus/host_elf/k.o"
"$nvcc" -c -rdc=true k.cu -arch=sm_86 -o "$here/corpus/host_elf/k_rdc.o"
"$nvcc" -c -dlto k.cu -arch=sm_90 -o "$here/corpus/host_elf/k_dlto.o"
cp "$here"/corpus/container/*.fatbin "$here/corpus/host_elf/"
cp "$here"/corpus/cubin/k_sm_90.cubin "$here/corpus/container/"
echo "seeded $(find "$here/corpus" -type f | wc -l) files with $("$bin/nvcc" --version | tail -1)"
