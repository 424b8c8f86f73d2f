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
# 4384 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.h"
struct __nv_bfloat16_raw;
# 4444 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.h"
struct __nv_bfloat16;
# 126 "kernels/signatures.cu"
struct Pair;
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
# 4384 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.h"
struct __nv_bfloat16_raw {
# 4388 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.h"
unsigned short x;} __attribute__((__aligned__(2)));
# 4389 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.h"
typedef struct __nv_bfloat16_raw __nv_bfloat16_raw;
# 4444 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.h"
struct __nv_bfloat16 {
# 4449 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.h"
unsigned short __x;} __attribute__((__aligned__(2)));
# 126 "kernels/signatures.cu"
struct Pair {
# 127 "kernels/signatures.cu"
int a;
# 128 "kernels/signatures.cu"
float b;};
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
#if !defined(__CUDABE__)
# 65 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/device_atomic_functions.hpp"
 __device_builtin__ ___device__(extern  __no_sc__) unsigned __uAtomicAdd(unsigned *, unsigned);
#endif
# 110 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/device_atomic_functions.hpp"
___device__(static  __no_sc__) __inline__ unsigned _ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f329atomicAddEPjj(unsigned *, unsigned);
# 526 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
___device__(static  __no_sc__) __inline__ struct __half _ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3212__float2halfEf(const float);
# 685 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
___device__(static  __no_sc__) __inline__ float _ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3212__half2floatE6__half(const struct __half);
# 453 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
___device__(static  __no_sc__) __inline__ struct __nv_bfloat16 _ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3216__float2bfloat16Ef(const float);
# 564 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
___device__(static  __no_sc__) __inline__ float _ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3232__internal_device_bfloat162floatEt(const unsigned short);
# 576 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
___device__(static  __no_sc__) __inline__ float _ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3225__internal_bfloat162floatEt(const unsigned short);
# 588 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
___device__(static  __no_sc__) __inline__ float _ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3216__bfloat162floatE13__nv_bfloat16(const struct __nv_bfloat16);
# 11 "kernels/signatures.cu"
__global__ __var_used__ extern void axpy_f32(float, const float *, float *, unsigned);
# 16 "kernels/signatures.cu"
__global__ __var_used__ extern void axpy_f64(double, const double *, double *, size_t);
# 27 "kernels/signatures.cu"
__global__ __var_used__ extern void add_i8(const signed char *, signed char, signed char *, int);
# 28 "kernels/signatures.cu"
__global__ __var_used__ extern void add_u8(const unsigned char *, unsigned char, unsigned char *, int);
# 29 "kernels/signatures.cu"
__global__ __var_used__ extern void add_char(const char *, char, char *, int);
# 30 "kernels/signatures.cu"
__global__ __var_used__ extern void add_i16(const short *, short, short *, int);
# 31 "kernels/signatures.cu"
__global__ __var_used__ extern void add_u16(const unsigned short *, unsigned short, unsigned short *, int);
# 32 "kernels/signatures.cu"
__global__ __var_used__ extern void add_i32(const int *, int, int *, int);
# 33 "kernels/signatures.cu"
__global__ __var_used__ extern void add_u32(const unsigned *, unsigned, unsigned *, unsigned);
# 34 "kernels/signatures.cu"
__global__ __var_used__ extern void add_i64(const long long *, long long, long long *, long long);
# 35 "kernels/signatures.cu"
__global__ __var_used__ extern void add_u64(const unsigned long long *, unsigned long long, unsigned long long *, unsigned long long);
# 36 "kernels/signatures.cu"
__global__ __var_used__ extern void add_long(const long *, long, long *, long);
# 37 "kernels/signatures.cu"
__global__ __var_used__ extern void add_size(const size_t *, size_t, size_t *, size_t);
# 39 "kernels/signatures.cu"
__global__ __var_used__ extern void select_bool(const __nv_bool *, __nv_bool, const float *, float *, int);
# 45 "kernels/signatures.cu"
__global__ __var_used__ extern void count_true(const __nv_bool *, unsigned *, int);
# 50 "kernels/signatures.cu"
__global__ __var_used__ extern void half_axpy(struct __half, const struct __half *, struct __half *, int);
# 55 "kernels/signatures.cu"
__global__ __var_used__ extern void bf16_scale(struct __nv_bfloat16, const struct __nv_bfloat16 *, struct __nv_bfloat16 *, int);
# 61 "kernels/signatures.cu"
__global__ __var_used__ extern void half_to_float(const struct __half *, float *, int);
# 66 "kernels/signatures.cu"
__global__ __var_used__ extern void float_to_bf16(const float *, struct __nv_bfloat16 *, int);
# 71 "kernels/signatures.cu"
__global__ __var_used__ extern void negate_in_place(float *, int);
# 76 "kernels/signatures.cu"
__global__ __var_used__ extern void fill_u16(unsigned short *, unsigned short, unsigned long);
# 82 "kernels/signatures.cu"
__global__ __var_used__ extern void mixed(const signed char *, const short *, const int *, const long long *, double *, float, unsigned char, double, int);
# 89 "kernels/signatures.cu"
__global__ __var_used__ extern void restrict_copy(const float *__restrict__, float *__restrict__, int);
# 97 "kernels/signatures.cu"
__global__ __var_used__ extern void _Z4fillIfEvPT_S0_m(float *, float, size_t);
# 97 "kernels/signatures.cu"
__global__ __var_used__ extern void _Z4fillIiEvPT_S0_m(int *, int, size_t);
# 104 "kernels/signatures.cu"
__global__ __var_used__ extern void _Z7cpp_subPKfS0_Pfi(const float *, const float *, float *, int);
# 116 "kernels/signatures.cu"
__global__ __var_used__ extern void _Z5twicePfi(float *, int);
# 120 "kernels/signatures.cu"
__global__ __var_used__ extern void _Z5twicePii(int *, int);
# 130 "kernels/signatures.cu"
__global__ __var_used__ extern void pair_sum(struct Pair, float *);
# 110 "kernels/signatures.cu"
__global__ __var_used__ extern void _ZN3ops3mulEPKdS1_Pdi(const double *, const double *, double *, int);
# 108 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
___device__(static  __no_sc__) __inline__ __nv_bfloat16_raw _ZNK13__nv_bfloat16cv17__nv_bfloat16_rawEv(const struct __nv_bfloat16 *const);
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
#if !defined(__CUDABE__)
#endif
# 110 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/device_atomic_functions.hpp"
___device__(static  __no_sc__) __inline__ unsigned _ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f329atomicAddEPjj(
# 110 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/device_atomic_functions.hpp"
unsigned *address, 
# 110 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/device_atomic_functions.hpp"
unsigned val){
# 111 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/device_atomic_functions.hpp"
{  unsigned *__T0;
 unsigned __T1;
# 112 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/device_atomic_functions.hpp"
return ((__T0 = address) , (void)(__T1 = val)) , (__uAtomicAdd(__T0, __T1));
# 113 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/device_atomic_functions.hpp"
}}
# 526 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
___device__(static  __no_sc__) __inline__ struct __half _ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3212__float2halfEf(
# 526 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
const float a){
# 527 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
{  struct __half __T2;
# 528 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
 struct __half __cuda_local_var_38424_12_non_const_val;
# 529 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp" 3
{
# 529 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
__asm("{  cvt.rn.f16.f32 %0, %1;}\n" : "=h" (*((unsigned short *)(&__cuda_local_var_38424_12_non_const_val))) : "f" (a));
# 529 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp" 3
}
# 541 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
{
# 541 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
__T2 = ((*(struct __half *)&__cuda_local_var_38424_12_non_const_val));
# 541 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
return __T2; }
# 542 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
}}
# 685 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
___device__(static  __no_sc__) __inline__ float _ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3212__half2floatE6__half(
# 685 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
const struct __half a){
# 686 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
{
# 687 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
 float __cuda_local_var_38593_11_non_const_val;
# 688 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp" 3
{
# 688 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
__asm("{  cvt.f32.f16 %0, %1;}\n" : "=f" (__cuda_local_var_38593_11_non_const_val) : "h" (*((const unsigned short *)(&a))));
# 688 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp" 3
}
# 693 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
return __cuda_local_var_38593_11_non_const_val;
# 694 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
}}
# 453 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
___device__(static  __no_sc__) __inline__ struct __nv_bfloat16 _ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3216__float2bfloat16Ef(
# 453 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
const float a){
# 454 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
{  struct __nv_bfloat16 __T3;
# 455 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
 struct __nv_bfloat16 __cuda_local_var_43330_19_non_const_val;
# 456 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp" 3
{
# 456 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
__asm("{  cvt.rn.bf16.f32 %0, %1;}\n" : "=h" (*((unsigned short *)(&__cuda_local_var_43330_19_non_const_val))) : "f" (a));
# 456 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp" 3
}
# 468 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
{
# 468 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
__T3 = ((*(struct __nv_bfloat16 *)&__cuda_local_var_43330_19_non_const_val));
# 468 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
return __T3; }
# 469 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
}}
# 564 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
___device__(static  __no_sc__) __inline__ float _ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3232__internal_device_bfloat162floatEt(
# 564 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
const unsigned short h){
# 565 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
{
# 566 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
 float __cuda_local_var_43442_11_non_const_f;
# 567 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp" 3
{
# 567 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
__asm("{ mov.b32 %0, {0,%1};}\n" : "=f" (__cuda_local_var_43442_11_non_const_f) : "h" (h));
# 567 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp" 3
}
# 572 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
return __cuda_local_var_43442_11_non_const_f;
# 573 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
}}
# 576 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
___device__(static  __no_sc__) __inline__ float _ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3225__internal_bfloat162floatEt(
# 576 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
const unsigned short h){
# 577 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
{
# 578 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
 float __cuda_local_var_43462_11_non_const_f;
# 579 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp" 3
{
# 579 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
__cuda_local_var_43462_11_non_const_f = (_ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3232__internal_device_bfloat162floatEt(h));
# 579 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp" 3
}
# 585 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
return __cuda_local_var_43462_11_non_const_f;
# 586 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
}}
# 588 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
___device__(static  __no_sc__) __inline__ float _ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3216__bfloat162floatE13__nv_bfloat16(
# 588 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
const struct __nv_bfloat16 a){
# 589 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
{__nv_bfloat16_raw __T4;
# 590 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
return _ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3225__internal_bfloat162floatEt(((__T4 = (_ZNK13__nv_bfloat16cv17__nv_bfloat16_rawEv((&a))), __T4.x)));
# 591 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
}}
# 11 "kernels/signatures.cu"
__global__ __var_used__ void axpy_f32(
# 11 "kernels/signatures.cu"
float a, 
# 11 "kernels/signatures.cu"
const float *x, 
# 11 "kernels/signatures.cu"
float *y, 
# 11 "kernels/signatures.cu"
unsigned n){
# 11 "kernels/signatures.cu"
{
# 12 "kernels/signatures.cu"
 unsigned __cuda_local_var_47440_18_non_const_i;
# 12 "kernels/signatures.cu"
__cuda_local_var_47440_18_non_const_i = (((blockIdx.x) * (blockDim.x)) + (threadIdx.x));
# 13 "kernels/signatures.cu"
if (__cuda_local_var_47440_18_non_const_i < n) {
# 13 "kernels/signatures.cu"
(y[__cuda_local_var_47440_18_non_const_i]) = ((a * (x[__cuda_local_var_47440_18_non_const_i])) + (y[__cuda_local_var_47440_18_non_const_i])); } 
# 14 "kernels/signatures.cu"
}}
# 16 "kernels/signatures.cu"
__global__ __var_used__ void axpy_f64(
# 16 "kernels/signatures.cu"
double a, 
# 16 "kernels/signatures.cu"
const double *x, 
# 16 "kernels/signatures.cu"
double *y, 
# 16 "kernels/signatures.cu"
size_t n){
# 16 "kernels/signatures.cu"
{
# 17 "kernels/signatures.cu"
 size_t __cuda_local_var_47445_12_non_const_i;
# 17 "kernels/signatures.cu"
__cuda_local_var_47445_12_non_const_i = ((size_t)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 18 "kernels/signatures.cu"
if (__cuda_local_var_47445_12_non_const_i < n) {
# 18 "kernels/signatures.cu"
(y[__cuda_local_var_47445_12_non_const_i]) = ((a * (x[__cuda_local_var_47445_12_non_const_i])) + (y[__cuda_local_var_47445_12_non_const_i])); } 
# 19 "kernels/signatures.cu"
}}
# 27 "kernels/signatures.cu"
__global__ __var_used__ void add_i8(
# 27 "kernels/signatures.cu"
const signed char *x, 
# 27 "kernels/signatures.cu"
signed char v, 
# 27 "kernels/signatures.cu"
signed char *y, 
# 27 "kernels/signatures.cu"
int n){
# 27 "kernels/signatures.cu"
{
# 27 "kernels/signatures.cu"
 int __cuda_local_var_47455_114_non_const_i;
# 27 "kernels/signatures.cu"
__cuda_local_var_47455_114_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 27 "kernels/signatures.cu"
if (__cuda_local_var_47455_114_non_const_i < n) {
# 27 "kernels/signatures.cu"
(y[__cuda_local_var_47455_114_non_const_i]) = ((signed char)(((int)(x[__cuda_local_var_47455_114_non_const_i])) + ((int)v))); } 
# 27 "kernels/signatures.cu"
}}
# 28 "kernels/signatures.cu"
__global__ __var_used__ void add_u8(
# 28 "kernels/signatures.cu"
const unsigned char *x, 
# 28 "kernels/signatures.cu"
unsigned char v, 
# 28 "kernels/signatures.cu"
unsigned char *y, 
# 28 "kernels/signatures.cu"
int n){
# 28 "kernels/signatures.cu"
{
# 28 "kernels/signatures.cu"
 int __cuda_local_var_47456_120_non_const_i;
# 28 "kernels/signatures.cu"
__cuda_local_var_47456_120_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 28 "kernels/signatures.cu"
if (__cuda_local_var_47456_120_non_const_i < n) {
# 28 "kernels/signatures.cu"
(y[__cuda_local_var_47456_120_non_const_i]) = ((unsigned char)(((int)(x[__cuda_local_var_47456_120_non_const_i])) + ((int)v))); } 
# 28 "kernels/signatures.cu"
}}
# 29 "kernels/signatures.cu"
__global__ __var_used__ void add_char(
# 29 "kernels/signatures.cu"
const char *x, 
# 29 "kernels/signatures.cu"
char v, 
# 29 "kernels/signatures.cu"
char *y, 
# 29 "kernels/signatures.cu"
int n){
# 29 "kernels/signatures.cu"
{
# 29 "kernels/signatures.cu"
 int __cuda_local_var_47457_95_non_const_i;
# 29 "kernels/signatures.cu"
__cuda_local_var_47457_95_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 29 "kernels/signatures.cu"
if (__cuda_local_var_47457_95_non_const_i < n) {
# 29 "kernels/signatures.cu"
(y[__cuda_local_var_47457_95_non_const_i]) = ((char)(((int)(x[__cuda_local_var_47457_95_non_const_i])) + ((int)v))); } 
# 29 "kernels/signatures.cu"
}}
# 30 "kernels/signatures.cu"
__global__ __var_used__ void add_i16(
# 30 "kernels/signatures.cu"
const short *x, 
# 30 "kernels/signatures.cu"
short v, 
# 30 "kernels/signatures.cu"
short *y, 
# 30 "kernels/signatures.cu"
int n){
# 30 "kernels/signatures.cu"
{
# 30 "kernels/signatures.cu"
 int __cuda_local_var_47458_97_non_const_i;
# 30 "kernels/signatures.cu"
__cuda_local_var_47458_97_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 30 "kernels/signatures.cu"
if (__cuda_local_var_47458_97_non_const_i < n) {
# 30 "kernels/signatures.cu"
(y[__cuda_local_var_47458_97_non_const_i]) = ((short)(((int)(x[__cuda_local_var_47458_97_non_const_i])) + ((int)v))); } 
# 30 "kernels/signatures.cu"
}}
# 31 "kernels/signatures.cu"
__global__ __var_used__ void add_u16(
# 31 "kernels/signatures.cu"
const unsigned short *x, 
# 31 "kernels/signatures.cu"
unsigned short v, 
# 31 "kernels/signatures.cu"
unsigned short *y, 
# 31 "kernels/signatures.cu"
int n){
# 31 "kernels/signatures.cu"
{
# 31 "kernels/signatures.cu"
 int __cuda_local_var_47459_124_non_const_i;
# 31 "kernels/signatures.cu"
__cuda_local_var_47459_124_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 31 "kernels/signatures.cu"
if (__cuda_local_var_47459_124_non_const_i < n) {
# 31 "kernels/signatures.cu"
(y[__cuda_local_var_47459_124_non_const_i]) = ((unsigned short)(((int)(x[__cuda_local_var_47459_124_non_const_i])) + ((int)v))); } 
# 31 "kernels/signatures.cu"
}}
# 32 "kernels/signatures.cu"
__global__ __var_used__ void add_i32(
# 32 "kernels/signatures.cu"
const int *x, 
# 32 "kernels/signatures.cu"
int v, 
# 32 "kernels/signatures.cu"
int *y, 
# 32 "kernels/signatures.cu"
int n){
# 32 "kernels/signatures.cu"
{
# 32 "kernels/signatures.cu"
 int __cuda_local_var_47460_91_non_const_i;
# 32 "kernels/signatures.cu"
__cuda_local_var_47460_91_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 32 "kernels/signatures.cu"
if (__cuda_local_var_47460_91_non_const_i < n) {
# 32 "kernels/signatures.cu"
(y[__cuda_local_var_47460_91_non_const_i]) = ((int)((x[__cuda_local_var_47460_91_non_const_i]) + v)); } 
# 32 "kernels/signatures.cu"
}}
# 33 "kernels/signatures.cu"
__global__ __var_used__ void add_u32(
# 33 "kernels/signatures.cu"
const unsigned *x, 
# 33 "kernels/signatures.cu"
unsigned v, 
# 33 "kernels/signatures.cu"
unsigned *y, 
# 33 "kernels/signatures.cu"
unsigned n){
# 33 "kernels/signatures.cu"
{
# 33 "kernels/signatures.cu"
 unsigned __cuda_local_var_47461_136_non_const_i;
# 33 "kernels/signatures.cu"
__cuda_local_var_47461_136_non_const_i = (((blockIdx.x) * (blockDim.x)) + (threadIdx.x));
# 33 "kernels/signatures.cu"
if (__cuda_local_var_47461_136_non_const_i < n) {
# 33 "kernels/signatures.cu"
(y[__cuda_local_var_47461_136_non_const_i]) = ((unsigned)((x[__cuda_local_var_47461_136_non_const_i]) + v)); } 
# 33 "kernels/signatures.cu"
}}
# 34 "kernels/signatures.cu"
__global__ __var_used__ void add_i64(
# 34 "kernels/signatures.cu"
const long long *x, 
# 34 "kernels/signatures.cu"
long long v, 
# 34 "kernels/signatures.cu"
long long *y, 
# 34 "kernels/signatures.cu"
long long n){
# 34 "kernels/signatures.cu"
{
# 34 "kernels/signatures.cu"
 long long __cuda_local_var_47462_121_non_const_i;
# 34 "kernels/signatures.cu"
__cuda_local_var_47462_121_non_const_i = ((long long)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 34 "kernels/signatures.cu"
if (__cuda_local_var_47462_121_non_const_i < n) {
# 34 "kernels/signatures.cu"
(y[__cuda_local_var_47462_121_non_const_i]) = ((long long)((x[__cuda_local_var_47462_121_non_const_i]) + v)); } 
# 34 "kernels/signatures.cu"
}}
# 35 "kernels/signatures.cu"
__global__ __var_used__ void add_u64(
# 35 "kernels/signatures.cu"
const unsigned long long *x, 
# 35 "kernels/signatures.cu"
unsigned long long v, 
# 35 "kernels/signatures.cu"
unsigned long long *y, 
# 35 "kernels/signatures.cu"
unsigned long long n){
# 35 "kernels/signatures.cu"
{
# 35 "kernels/signatures.cu"
 unsigned long long __cuda_local_var_47463_166_non_const_i;
# 35 "kernels/signatures.cu"
__cuda_local_var_47463_166_non_const_i = ((unsigned long long)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 35 "kernels/signatures.cu"
if (__cuda_local_var_47463_166_non_const_i < n) {
# 35 "kernels/signatures.cu"
(y[__cuda_local_var_47463_166_non_const_i]) = ((unsigned long long)((x[__cuda_local_var_47463_166_non_const_i]) + v)); } 
# 35 "kernels/signatures.cu"
}}
# 36 "kernels/signatures.cu"
__global__ __var_used__ void add_long(
# 36 "kernels/signatures.cu"
const long *x, 
# 36 "kernels/signatures.cu"
long v, 
# 36 "kernels/signatures.cu"
long *y, 
# 36 "kernels/signatures.cu"
long n){
# 36 "kernels/signatures.cu"
{
# 36 "kernels/signatures.cu"
 long __cuda_local_var_47464_97_non_const_i;
# 36 "kernels/signatures.cu"
__cuda_local_var_47464_97_non_const_i = ((long)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 36 "kernels/signatures.cu"
if (__cuda_local_var_47464_97_non_const_i < n) {
# 36 "kernels/signatures.cu"
(y[__cuda_local_var_47464_97_non_const_i]) = ((long)((x[__cuda_local_var_47464_97_non_const_i]) + v)); } 
# 36 "kernels/signatures.cu"
}}
# 37 "kernels/signatures.cu"
__global__ __var_used__ void add_size(
# 37 "kernels/signatures.cu"
const size_t *x, 
# 37 "kernels/signatures.cu"
size_t v, 
# 37 "kernels/signatures.cu"
size_t *y, 
# 37 "kernels/signatures.cu"
size_t n){
# 37 "kernels/signatures.cu"
{
# 37 "kernels/signatures.cu"
 size_t __cuda_local_var_47465_107_non_const_i;
# 37 "kernels/signatures.cu"
__cuda_local_var_47465_107_non_const_i = ((size_t)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 37 "kernels/signatures.cu"
if (__cuda_local_var_47465_107_non_const_i < n) {
# 37 "kernels/signatures.cu"
(y[__cuda_local_var_47465_107_non_const_i]) = ((size_t)((x[__cuda_local_var_47465_107_non_const_i]) + v)); } 
# 37 "kernels/signatures.cu"
}}
# 39 "kernels/signatures.cu"
__global__ __var_used__ void select_bool(
# 39 "kernels/signatures.cu"
const __nv_bool *flags, 
# 39 "kernels/signatures.cu"
__nv_bool invert, 
# 39 "kernels/signatures.cu"
const float *a, 
# 39 "kernels/signatures.cu"
float *y, 
# 40 "kernels/signatures.cu"
int n){
# 40 "kernels/signatures.cu"
{
# 41 "kernels/signatures.cu"
 int __cuda_local_var_47469_9_non_const_i;
# 41 "kernels/signatures.cu"
__cuda_local_var_47469_9_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 42 "kernels/signatures.cu"
if (__cuda_local_var_47469_9_non_const_i < n) {
# 42 "kernels/signatures.cu"
(y[__cuda_local_var_47469_9_non_const_i]) = ((((int)(flags[__cuda_local_var_47469_9_non_const_i])) != ((int)invert)) ? (a[__cuda_local_var_47469_9_non_const_i]) : (0.0F)); } 
# 43 "kernels/signatures.cu"
}}
# 45 "kernels/signatures.cu"
__global__ __var_used__ void count_true(
# 45 "kernels/signatures.cu"
const __nv_bool *flags, 
# 45 "kernels/signatures.cu"
unsigned *count, 
# 45 "kernels/signatures.cu"
int n){
# 45 "kernels/signatures.cu"
{
# 46 "kernels/signatures.cu"
 int __cuda_local_var_47474_9_non_const_i;
# 46 "kernels/signatures.cu"
__cuda_local_var_47474_9_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 47 "kernels/signatures.cu"
if ((__cuda_local_var_47474_9_non_const_i < n) && (flags[__cuda_local_var_47474_9_non_const_i])) {
# 47 "kernels/signatures.cu"
_ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f329atomicAddEPjj(count, 1U); } 
# 48 "kernels/signatures.cu"
}}
# 50 "kernels/signatures.cu"
__global__ __var_used__ void half_axpy(
# 50 "kernels/signatures.cu"
struct __half a, 
# 50 "kernels/signatures.cu"
const struct __half *x, 
# 50 "kernels/signatures.cu"
struct __half *y, 
# 50 "kernels/signatures.cu"
int n){
# 50 "kernels/signatures.cu"
{
# 51 "kernels/signatures.cu"
 int __cuda_local_var_47479_9_non_const_i;
# 51 "kernels/signatures.cu"
__cuda_local_var_47479_9_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 52 "kernels/signatures.cu"
if (__cuda_local_var_47479_9_non_const_i < n) {  struct __half __T7;
# 52 "kernels/signatures.cu"
(__T7 = (_ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3212__float2halfEf((((_ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3212__half2floatE6__half(a)) * (_ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3212__half2floatE6__half(((*(struct __half *)&(x[__cuda_local_var_47479_9_non_const_i])))))) + (_ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3212__half2floatE6__half((y[__cuda_local_var_47479_9_non_const_i]))))))) , (void)((y[__cuda_local_var_47479_9_non_const_i]) = __T7); } 
# 53 "kernels/signatures.cu"
}}
# 55 "kernels/signatures.cu"
__global__ __var_used__ void bf16_scale(
# 55 "kernels/signatures.cu"
struct __nv_bfloat16 a, 
# 55 "kernels/signatures.cu"
const struct __nv_bfloat16 *x, 
# 55 "kernels/signatures.cu"
struct __nv_bfloat16 *y, 
# 56 "kernels/signatures.cu"
int n){
# 56 "kernels/signatures.cu"
{
# 57 "kernels/signatures.cu"
 int __cuda_local_var_47485_9_non_const_i;
# 57 "kernels/signatures.cu"
__cuda_local_var_47485_9_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 58 "kernels/signatures.cu"
if (__cuda_local_var_47485_9_non_const_i < n) {  struct __nv_bfloat16 __T8;
# 58 "kernels/signatures.cu"
(__T8 = (_ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3216__float2bfloat16Ef(((_ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3216__bfloat162floatE13__nv_bfloat16(a)) * (_ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3216__bfloat162floatE13__nv_bfloat16(((*(struct __nv_bfloat16 *)&(x[__cuda_local_var_47485_9_non_const_i]))))))))) , (void)((y[__cuda_local_var_47485_9_non_const_i]) = __T8); } 
# 59 "kernels/signatures.cu"
}}
# 61 "kernels/signatures.cu"
__global__ __var_used__ void half_to_float(
# 61 "kernels/signatures.cu"
const struct __half *x, 
# 61 "kernels/signatures.cu"
float *y, 
# 61 "kernels/signatures.cu"
int n){
# 61 "kernels/signatures.cu"
{
# 62 "kernels/signatures.cu"
 int __cuda_local_var_47490_9_non_const_i;
# 62 "kernels/signatures.cu"
__cuda_local_var_47490_9_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 63 "kernels/signatures.cu"
if (__cuda_local_var_47490_9_non_const_i < n) {
# 63 "kernels/signatures.cu"
(y[__cuda_local_var_47490_9_non_const_i]) = (_ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3212__half2floatE6__half(((*(struct __half *)&(x[__cuda_local_var_47490_9_non_const_i]))))); } 
# 64 "kernels/signatures.cu"
}}
# 66 "kernels/signatures.cu"
__global__ __var_used__ void float_to_bf16(
# 66 "kernels/signatures.cu"
const float *x, 
# 66 "kernels/signatures.cu"
struct __nv_bfloat16 *y, 
# 66 "kernels/signatures.cu"
int n){
# 66 "kernels/signatures.cu"
{
# 67 "kernels/signatures.cu"
 int __cuda_local_var_47495_9_non_const_i;
# 67 "kernels/signatures.cu"
__cuda_local_var_47495_9_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 68 "kernels/signatures.cu"
if (__cuda_local_var_47495_9_non_const_i < n) {  struct __nv_bfloat16 __T9;
# 68 "kernels/signatures.cu"
(__T9 = (_ZN44_INTERNAL_f4a26b0f_13_signatures_cu_axpy_f3216__float2bfloat16Ef((x[__cuda_local_var_47495_9_non_const_i])))) , (void)((y[__cuda_local_var_47495_9_non_const_i]) = __T9); } 
# 69 "kernels/signatures.cu"
}}
# 71 "kernels/signatures.cu"
__global__ __var_used__ void negate_in_place(
# 71 "kernels/signatures.cu"
float *y, 
# 71 "kernels/signatures.cu"
int n){
# 71 "kernels/signatures.cu"
{
# 72 "kernels/signatures.cu"
 int __cuda_local_var_47500_9_non_const_i;
# 72 "kernels/signatures.cu"
__cuda_local_var_47500_9_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 73 "kernels/signatures.cu"
if (__cuda_local_var_47500_9_non_const_i < n) {
# 73 "kernels/signatures.cu"
(y[__cuda_local_var_47500_9_non_const_i]) = (-(y[__cuda_local_var_47500_9_non_const_i])); } 
# 74 "kernels/signatures.cu"
}}
# 76 "kernels/signatures.cu"
__global__ __var_used__ void fill_u16(
# 76 "kernels/signatures.cu"
unsigned short *y, 
# 76 "kernels/signatures.cu"
unsigned short v, 
# 76 "kernels/signatures.cu"
unsigned long n){
# 76 "kernels/signatures.cu"
{
# 77 "kernels/signatures.cu"
 unsigned long __cuda_local_var_47505_19_non_const_i;
# 77 "kernels/signatures.cu"
__cuda_local_var_47505_19_non_const_i = ((unsigned long)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 78 "kernels/signatures.cu"
if (__cuda_local_var_47505_19_non_const_i < n) {
# 78 "kernels/signatures.cu"
(y[__cuda_local_var_47505_19_non_const_i]) = v; } 
# 79 "kernels/signatures.cu"
}}
# 82 "kernels/signatures.cu"
__global__ __var_used__ void mixed(
# 82 "kernels/signatures.cu"
const signed char *a, 
# 82 "kernels/signatures.cu"
const short *b, 
# 82 "kernels/signatures.cu"
const int *c, 
# 83 "kernels/signatures.cu"
const long long *d, 
# 83 "kernels/signatures.cu"
double *out, 
# 83 "kernels/signatures.cu"
float f, 
# 83 "kernels/signatures.cu"
unsigned char h, 
# 84 "kernels/signatures.cu"
double g, 
# 84 "kernels/signatures.cu"
int n){
# 84 "kernels/signatures.cu"
{
# 85 "kernels/signatures.cu"
 int __cuda_local_var_47513_9_non_const_i;
# 85 "kernels/signatures.cu"
__cuda_local_var_47513_9_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 86 "kernels/signatures.cu"
if (__cuda_local_var_47513_9_non_const_i < n) {
# 86 "kernels/signatures.cu"
(out[__cuda_local_var_47513_9_non_const_i]) = (((((double)((((int)(a[__cuda_local_var_47513_9_non_const_i])) + ((int)(b[__cuda_local_var_47513_9_non_const_i]))) + (c[__cuda_local_var_47513_9_non_const_i]))) + ((double)(d[__cuda_local_var_47513_9_non_const_i]))) + ((double)(f * ((float)h)))) + g); } 
# 87 "kernels/signatures.cu"
}}
# 89 "kernels/signatures.cu"
__global__ __var_used__ void restrict_copy(
# 89 "kernels/signatures.cu"
const float *__restrict__ x, 
# 89 "kernels/signatures.cu"
float *__restrict__ y, 
# 90 "kernels/signatures.cu"
int n){
# 90 "kernels/signatures.cu"
{
# 91 "kernels/signatures.cu"
 int __cuda_local_var_47519_9_non_const_i;
# 91 "kernels/signatures.cu"
__cuda_local_var_47519_9_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 92 "kernels/signatures.cu"
if (__cuda_local_var_47519_9_non_const_i < n) {
# 92 "kernels/signatures.cu"
(y[__cuda_local_var_47519_9_non_const_i]) = (x[__cuda_local_var_47519_9_non_const_i]); } 
# 93 "kernels/signatures.cu"
}}
# 97 "kernels/signatures.cu"
__global__ __var_used__ void _Z4fillIfEvPT_S0_m(
# 97 "kernels/signatures.cu"
float *y, 
# 97 "kernels/signatures.cu"
float v, 
# 97 "kernels/signatures.cu"
size_t n){
# 97 "kernels/signatures.cu"
{
# 98 "kernels/signatures.cu"
 size_t __cuda_local_var_47526_12_non_const_i;
# 98 "kernels/signatures.cu"
__cuda_local_var_47526_12_non_const_i = ((size_t)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 99 "kernels/signatures.cu"
if (__cuda_local_var_47526_12_non_const_i < n) {
# 99 "kernels/signatures.cu"
(y[__cuda_local_var_47526_12_non_const_i]) = v; } 
# 100 "kernels/signatures.cu"
}}
# 97 "kernels/signatures.cu"
__global__ __var_used__ void _Z4fillIiEvPT_S0_m(
# 97 "kernels/signatures.cu"
int *y, 
# 97 "kernels/signatures.cu"
int v, 
# 97 "kernels/signatures.cu"
size_t n){
# 97 "kernels/signatures.cu"
{
# 98 "kernels/signatures.cu"
 size_t __cuda_local_var_47526_12_non_const_i;
# 98 "kernels/signatures.cu"
__cuda_local_var_47526_12_non_const_i = ((size_t)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 99 "kernels/signatures.cu"
if (__cuda_local_var_47526_12_non_const_i < n) {
# 99 "kernels/signatures.cu"
(y[__cuda_local_var_47526_12_non_const_i]) = v; } 
# 100 "kernels/signatures.cu"
}}
# 104 "kernels/signatures.cu"
__global__ __var_used__ void _Z7cpp_subPKfS0_Pfi(
# 104 "kernels/signatures.cu"
const float *a, 
# 104 "kernels/signatures.cu"
const float *b, 
# 104 "kernels/signatures.cu"
float *c, 
# 104 "kernels/signatures.cu"
int n){
# 104 "kernels/signatures.cu"
{
# 105 "kernels/signatures.cu"
 int __cuda_local_var_47533_9_non_const_i;
# 105 "kernels/signatures.cu"
__cuda_local_var_47533_9_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 106 "kernels/signatures.cu"
if (__cuda_local_var_47533_9_non_const_i < n) {
# 106 "kernels/signatures.cu"
(c[__cuda_local_var_47533_9_non_const_i]) = ((a[__cuda_local_var_47533_9_non_const_i]) - (b[__cuda_local_var_47533_9_non_const_i])); } 
# 107 "kernels/signatures.cu"
}}
# 116 "kernels/signatures.cu"
__global__ __var_used__ void _Z5twicePfi(
# 116 "kernels/signatures.cu"
float *y, 
# 116 "kernels/signatures.cu"
int n){
# 116 "kernels/signatures.cu"
{
# 117 "kernels/signatures.cu"
 int __cuda_local_var_47545_9_non_const_i;
# 117 "kernels/signatures.cu"
__cuda_local_var_47545_9_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 118 "kernels/signatures.cu"
if (__cuda_local_var_47545_9_non_const_i < n) {
# 118 "kernels/signatures.cu"
(y[__cuda_local_var_47545_9_non_const_i]) *= (2.0F); } 
# 119 "kernels/signatures.cu"
}}
# 120 "kernels/signatures.cu"
__global__ __var_used__ void _Z5twicePii(
# 120 "kernels/signatures.cu"
int *y, 
# 120 "kernels/signatures.cu"
int n){
# 120 "kernels/signatures.cu"
{
# 121 "kernels/signatures.cu"
 int __cuda_local_var_47549_9_non_const_i;
# 121 "kernels/signatures.cu"
__cuda_local_var_47549_9_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 122 "kernels/signatures.cu"
if (__cuda_local_var_47549_9_non_const_i < n) {
# 122 "kernels/signatures.cu"
(y[__cuda_local_var_47549_9_non_const_i]) *= 2; } 
# 123 "kernels/signatures.cu"
}}
# 130 "kernels/signatures.cu"
__global__ __var_used__ void pair_sum(
# 130 "kernels/signatures.cu"
struct Pair p, 
# 130 "kernels/signatures.cu"
float *y){
# 130 "kernels/signatures.cu"
{
# 131 "kernels/signatures.cu"
if ((((blockIdx.x) * (blockDim.x)) + (threadIdx.x)) == 0U) {
# 131 "kernels/signatures.cu"
(y[0]) = (((float)(p.a)) + (p.b)); } 
# 132 "kernels/signatures.cu"
}}
# 110 "kernels/signatures.cu"
__global__ __var_used__ void _ZN3ops3mulEPKdS1_Pdi(
# 110 "kernels/signatures.cu"
const double *a, 
# 110 "kernels/signatures.cu"
const double *b, 
# 110 "kernels/signatures.cu"
double *c, 
# 110 "kernels/signatures.cu"
int n){
# 110 "kernels/signatures.cu"
{
# 111 "kernels/signatures.cu"
 int __cuda_local_var_47539_9_non_const_i;
# 111 "kernels/signatures.cu"
__cuda_local_var_47539_9_non_const_i = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 112 "kernels/signatures.cu"
if (__cuda_local_var_47539_9_non_const_i < n) {
# 112 "kernels/signatures.cu"
(c[__cuda_local_var_47539_9_non_const_i]) = ((a[__cuda_local_var_47539_9_non_const_i]) * (b[__cuda_local_var_47539_9_non_const_i])); } 
# 113 "kernels/signatures.cu"
}}
__asm__(".align 2");
# 108 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
___device__(static  __no_sc__) __inline__ __nv_bfloat16_raw _ZNK13__nv_bfloat16cv17__nv_bfloat16_rawEv( const struct __nv_bfloat16 *const this){
# 108 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
{  struct __nv_bfloat16_raw __T10;
# 108 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
 __nv_bfloat16_raw __cuda_local_var_42941_128_non_const_ret;
# 108 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
(__cuda_local_var_42941_128_non_const_ret.x) = (this->__x);
# 108 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
{
# 108 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
__T10 = __cuda_local_var_42941_128_non_const_ret;
# 108 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
return __T10; }
# 108 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_bf16.hpp"
}}
