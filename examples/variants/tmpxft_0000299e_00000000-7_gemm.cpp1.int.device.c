typedef char __nv_bool;
# 1713 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/driver_types.h"
enum cudaSharedMemoryMode {
# 1714 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/driver_types.h"
cudaSharedMemoryModeDefault,
# 1716 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/driver_types.h"
cudaSharedMemoryModeRequirePortable,
# 1717 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/driver_types.h"
cudaSharedMemoryModeAllowNonPortable,
# 1718 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/driver_types.h"
cudaSharedMemoryModeAllowOversizedSharedMemory,
# 1719 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/driver_types.h"
cudaSharedMemoryModePreferOversizedSharedMemory};
# 4636 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.h"
struct __half;
# 89 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
enum _ZN2nv6target6detail11sm_selectorE {
# 91 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector5sm_35E = 35ULL,
# 92 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector5sm_37E = 37ULL,
# 93 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector5sm_50E = 50ULL,
# 94 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector5sm_52E = 52ULL,
# 95 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector5sm_53E,
# 96 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector5sm_60E = 60ULL,
# 97 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector5sm_61E,
# 98 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector5sm_62E,
# 99 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector5sm_70E = 70ULL,
# 100 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector5sm_72E = 72ULL,
# 101 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector5sm_75E = 75ULL,
# 102 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector5sm_80E = 80ULL,
# 103 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector5sm_86E = 86ULL,
# 104 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector5sm_87E,
# 105 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector5sm_88E,
# 106 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector5sm_89E,
# 107 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector5sm_90E,
# 108 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector6sm_100E = 100ULL,
# 109 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector6sm_103E = 103ULL,
# 110 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector6sm_107E = 107ULL,
# 111 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector6sm_110E = 110ULL,
# 112 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector6sm_120E = 120ULL,
# 113 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/nv/target"
_ZN2nv6target6detail11sm_selector6sm_121E};
# 214 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3
typedef unsigned long size_t;
#include "crt/device_runtime.h"
# 4636 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.h"
struct __half {
# 4641 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.h"
unsigned short __x;} __attribute__((__aligned__(2)));
# 298 "/usr/include/x86_64-linux-gnu/c++/12/bits/c++config.h" 3
typedef unsigned long _ZSt6size_t;
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
# 685 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
___device__(static  __no_sc__) __inline__ float _ZN37_INTERNAL_b9268094_7_gemm_cu_1bff60b512__half2floatE6__half(const struct __half);
# 103 "kernels/gemm.cu"
__global__ __var_used__ extern void gemm_simt(const struct __half *, const struct __half *, float *, int, int, int);
#include "common_functions.h"
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
# 685 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
___device__(static  __no_sc__) __inline__ float _ZN37_INTERNAL_b9268094_7_gemm_cu_1bff60b512__half2floatE6__half(
# 685 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
const struct __half a){
# 686 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
{
# 687 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
 float __cuda_local_var_38476_11_non_const_val;
# 688 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp" 3
{
# 688 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
__asm("{  cvt.f32.f16 %0, %1;}\n" : "=f" (__cuda_local_var_38476_11_non_const_val) : "h" (*((const unsigned short *)(&a))));
# 688 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp" 3
}
# 693 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
return __cuda_local_var_38476_11_non_const_val;
# 694 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
}}
# 103 "kernels/gemm.cu"
__global__ __var_used__ void gemm_simt(
# 103 "kernels/gemm.cu"
const struct __half *a, 
# 103 "kernels/gemm.cu"
const struct __half *b, 
# 103 "kernels/gemm.cu"
float *c, 
# 103 "kernels/gemm.cu"
int m, 
# 103 "kernels/gemm.cu"
int n, 
# 103 "kernels/gemm.cu"
int k){
# 103 "kernels/gemm.cu"
{
# 104 "kernels/gemm.cu"
 int __cuda_local_var_48222_9_non_const_row;
# 104 "kernels/gemm.cu"
 int __cuda_local_var_48222_54_non_const_col;
# 106 "kernels/gemm.cu"
 float __cuda_local_var_48224_11_non_const_acc;
# 104 "kernels/gemm.cu"
__cuda_local_var_48222_9_non_const_row = ((int)(((blockIdx.y) * (blockDim.y)) + (threadIdx.y)));
# 104 "kernels/gemm.cu"
__cuda_local_var_48222_54_non_const_col = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 105 "kernels/gemm.cu"
if ((__cuda_local_var_48222_9_non_const_row >= m) || (__cuda_local_var_48222_54_non_const_col >= n)) {
# 105 "kernels/gemm.cu"
return; }
# 106 "kernels/gemm.cu"
__cuda_local_var_48224_11_non_const_acc = (0.0F);
# 107 "kernels/gemm.cu"
{
# 107 "kernels/gemm.cu"
 int i;
# 107 "kernels/gemm.cu"
i = 0;
# 107 "kernels/gemm.cu"
for (; i < k; ++i) {
# 107 "kernels/gemm.cu"
__cuda_local_var_48224_11_non_const_acc += ((_ZN37_INTERNAL_b9268094_7_gemm_cu_1bff60b512__half2floatE6__half(((*(struct __half *)&(a[((((size_t)__cuda_local_var_48222_9_non_const_row) * ((unsigned long)k)) + ((unsigned long)i))]))))) * (_ZN37_INTERNAL_b9268094_7_gemm_cu_1bff60b512__half2floatE6__half(((*(struct __half *)&(b[((((size_t)i) * ((unsigned long)n)) + ((unsigned long)__cuda_local_var_48222_54_non_const_col))])))))); } }
# 108 "kernels/gemm.cu"
(c[((((size_t)__cuda_local_var_48222_9_non_const_row) * ((unsigned long)n)) + ((unsigned long)__cuda_local_var_48222_54_non_const_col))]) = __cuda_local_var_48224_11_non_const_acc; 
# 109 "kernels/gemm.cu"
}}
