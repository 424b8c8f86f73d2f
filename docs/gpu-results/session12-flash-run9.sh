#!/bin/bash
# Session 12 GPU batch 9: run 8 showed the edit misses in preprocessor mode on the GPU host
# ("changed since the last build: src/bench_common.h; the preprocessed source is new"). Compare,
# with the host's gcc, nvcc -E's text against the .cpp1.ii nvcc -ptx --keep leaves, and nvcc -E
# before and after a comment-only header edit (line markers and blank lines dropped, as the key).
cd "$(dirname "$0")"
W=${W:-/tmp/d}; rm -rf $W; mkdir -p $W/k1
if [ -f fa.tar.xz ]; then mkdir -p fa && tar xJf fa.tar.xz -C fa; fi
export PATH=${CUDA_BIN:-/usr/local/cuda/bin}:$PATH
K=${KDIR:-$PWD/fa/kernels}; C=${CUTLASS:-$K/../cutlass/include}
cp -r $K $W/src
cd $W/src
FL=(-std=c++17 -O3 -U__CUDA_NO_HALF_OPERATORS__ -U__CUDA_NO_HALF_CONVERSIONS__ -U__CUDA_NO_HALF2_OPERATORS__
  -U__CUDA_NO_BFLOAT16_CONVERSIONS__ --expt-relaxed-constexpr --expt-extended-lambda --use_fast_math
  -Xcompiler -fPIC -I$C -I$PWD)
{ gcc --version | head -1; nvcc --version | tail -2; } 
nvcc -E -arch=compute_90 "${FL[@]}" flash_api.cu -o $W/e1.ii
nvcc -ptx -arch=compute_90 "${FL[@]}" --keep --keep-dir $W/k1 flash_api.cu -o $W/a.ptx
{ echo "// a comment-only edit"; cat flash.h; } > $W/x && mv $W/x flash.h
nvcc -E -arch=compute_90 "${FL[@]}" flash_api.cu -o $W/e2.ii
red() { grep -v '^#' "$1" | grep -v '^[[:space:]]*$' > "$1.red"; }
kept=$(ls $W/k1/*.cpp1.ii); red $W/e1.ii; red $W/e2.ii; red $kept
wc -l $W/e1.ii.red $W/e2.ii.red $kept.red
echo "== -E vs kept .cpp1.ii"; diff $W/e1.ii.red $kept.red | head -30
echo "== -E before vs after the edit"; diff $W/e1.ii.red $W/e2.ii.red | head -30
echo "== raw -E before vs after (first lines)"; diff $W/e1.ii $W/e2.ii | head -20
