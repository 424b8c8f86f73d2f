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
# 109 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma9row_majorE;
# 111 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma8matrix_aE;
# 112 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma8matrix_bE;
# 113 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma11accumulatorE;
# 139 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
enum _ZN6nvcuda4wmma8layout_tE {
# 140 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
_ZN6nvcuda4wmma13mem_row_majorE,
# 140 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
_ZN6nvcuda4wmma13mem_col_majorE};
# 144 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma13helper_traitsI6__halfEE;
# 200 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
enum _ZN6nvcuda4wmma11__frag_baseI6__halfLi16ELi16EEUt0_E {
# 200 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
_ZN6nvcuda4wmma11__frag_baseI6__halfLi16ELi16EE20num_storage_elementsE = 16};
# 187 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma11__frag_baseI6__halfLi16ELi16EEE;
# 287 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma8fragmentINS0_8matrix_aELi16ELi16ELi16E6__halfNS0_9row_majorEEE;
# 289 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma8fragmentINS0_8matrix_bELi16ELi16ELi16E6__halfNS0_9row_majorEEE;
# 144 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma13helper_traitsIfEE;
# 200 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
enum _ZN6nvcuda4wmma11__frag_baseIfLi8ELi8EEUt0_E {
# 200 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
_ZN6nvcuda4wmma11__frag_baseIfLi8ELi8EE20num_storage_elementsE = 8};
# 187 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma11__frag_baseIfLi8ELi8EEE;
# 292 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma8fragmentINS0_11accumulatorELi16ELi16ELi16EfvEE;
# 214 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3
typedef unsigned long size_t;
#include "crt/device_runtime.h"
# 4636 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.h"
struct __half {
# 4641 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.h"
unsigned short __x;} __attribute__((__aligned__(2)));
# 146 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
typedef float _ZN6nvcuda4wmma13helper_traitsIfE20storage_element_typeE;
# 272 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
typedef _ZN6nvcuda4wmma13helper_traitsIfE20storage_element_typeE _ZZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma13fill_fragmentIfLi8ELi8EEEvRNS1_11__frag_baseIT_XT0_EXT1_EEERKNS1_13helper_traitsIS4_E18fill_argument_typeEE12storage_type;
# 298 "/usr/include/x86_64-linux-gnu/c++/12/bits/c++config.h" 3
typedef unsigned long _ZSt6size_t;
# 146 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
typedef struct __half _ZN6nvcuda4wmma13helper_traitsI6__halfE20storage_element_typeE;
# 144 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma13helper_traitsI6__halfEE {};
# 214 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
typedef _ZN6nvcuda4wmma13helper_traitsI6__halfE20storage_element_typeE _ZN6nvcuda4wmma11__frag_baseI6__halfLi16ELi16EE20storage_element_typeE;
# 187 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma11__frag_baseI6__halfLi16ELi16EEE {
# 217 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
_ZN6nvcuda4wmma11__frag_baseI6__halfLi16ELi16EE20storage_element_typeE x[16];} __attribute__((__aligned__(8)));
# 287 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma8fragmentINS0_8matrix_aELi16ELi16ELi16E6__halfNS0_9row_majorEEE { struct _ZN6nvcuda4wmma11__frag_baseI6__halfLi16ELi16EEE __b_N6nvcuda4wmma11__frag_baseI6__halfLi16ELi16EEE;};
# 289 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma8fragmentINS0_8matrix_bELi16ELi16ELi16E6__halfNS0_9row_majorEEE { struct _ZN6nvcuda4wmma11__frag_baseI6__halfLi16ELi16EEE __b_N6nvcuda4wmma11__frag_baseI6__halfLi16ELi16EEE;};
# 147 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
typedef float _ZN6nvcuda4wmma13helper_traitsIfE18fill_argument_typeE;
# 144 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma13helper_traitsIfEE {};
# 214 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
typedef _ZN6nvcuda4wmma13helper_traitsIfE20storage_element_typeE _ZN6nvcuda4wmma11__frag_baseIfLi8ELi8EE20storage_element_typeE;
# 187 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma11__frag_baseIfLi8ELi8EEE {
# 217 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
_ZN6nvcuda4wmma11__frag_baseIfLi8ELi8EE20storage_element_typeE x[8];} __attribute__((__aligned__(8)));
# 292 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma8fragmentINS0_11accumulatorELi16ELi16ELi16EfvEE { struct _ZN6nvcuda4wmma11__frag_baseIfLi8ELi8EEE __b_N6nvcuda4wmma11__frag_baseIfLi8ELi8EEE;};
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
#endif
#if !defined(__CUDABE__)
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
___device__(static  __no_sc__) __inline__ float _ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma12__half2floatE6__half(const struct __half);
# 86 "kernels/gemm.cu"
__global__ __var_used__ extern void gemm_mma(const struct __half *, const struct __half *, float *, int, int, int);
# 103 "kernels/gemm.cu"
__global__ __var_used__ extern void gemm_simt(const struct __half *, const struct __half *, float *, int, int, int);
# 90 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
___device__(static  __no_sc__) __inline__ void _ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma16load_matrix_syncERNS1_8fragmentINS1_8matrix_aELi16ELi16ELi16E6__halfNS1_9row_majorEEEPKS4_j(struct _ZN6nvcuda4wmma8fragmentINS0_8matrix_aELi16ELi16ELi16E6__halfNS0_9row_majorEEE *, const struct __half *, unsigned);
# 98 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
___device__(static  __no_sc__) __inline__ void _ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma16load_matrix_syncERNS1_8fragmentINS1_8matrix_bELi16ELi16ELi16E6__halfNS1_9row_majorEEEPKS4_j(struct _ZN6nvcuda4wmma8fragmentINS0_8matrix_bELi16ELi16ELi16E6__halfNS0_9row_majorEEE *, const struct __half *, unsigned);
# 472 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
___device__(static  __no_sc__) __inline__ void _ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma17store_matrix_syncEPfRKNS1_8fragmentINS1_11accumulatorELi16ELi16ELi16EfvEEjNS1_8layout_tE(float *, const struct _ZN6nvcuda4wmma8fragmentINS0_11accumulatorELi16ELi16ELi16EfvEE *, unsigned, enum _ZN6nvcuda4wmma8layout_tE);
# 633 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
___device__(static  __no_sc__) __inline__ void _ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma8mma_syncERNS1_8fragmentINS1_11accumulatorELi16ELi16ELi16EfvEERKNS2_INS1_8matrix_aELi16ELi16ELi16E6__halfNS1_9row_majorEEERKNS2_INS1_8matrix_bELi16ELi16ELi16ES7_S8_EERKS4_(struct _ZN6nvcuda4wmma8fragmentINS0_11accumulatorELi16ELi16ELi16EfvEE *, const struct _ZN6nvcuda4wmma8fragmentINS0_8matrix_aELi16ELi16ELi16E6__halfNS0_9row_majorEEE *, const struct _ZN6nvcuda4wmma8fragmentINS0_8matrix_bELi16ELi16ELi16E6__halfNS0_9row_majorEEE *, const struct _ZN6nvcuda4wmma8fragmentINS0_11accumulatorELi16ELi16ELi16EfvEE *);
# 260 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
___device__(static  __no_sc__) __inline__ void _ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma13fill_fragmentIfLi8ELi8EEEvRNS1_11__frag_baseIT_XT0_EXT1_EEERKNS1_13helper_traitsIS4_E18fill_argument_typeE(struct _ZN6nvcuda4wmma11__frag_baseIfLi8ELi8EEE *, const _ZN6nvcuda4wmma13helper_traitsIfE18fill_argument_typeE *);
# 224 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
___device__(static  __no_sc__) __inline__ _ZN6nvcuda4wmma13helper_traitsIfE20storage_element_typeE _ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma19__get_storage_valueIfffEET0_T1_(_ZN6nvcuda4wmma13helper_traitsIfE18fill_argument_typeE);
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
___device__(static  __no_sc__) __inline__ float _ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma12__half2floatE6__half(
# 685 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
const struct __half a){
# 686 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
{
# 687 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
 float __cuda_local_var_38588_11_non_const_val;
# 688 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp" 3
{
# 688 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
__asm("{  cvt.f32.f16 %0, %1;}\n" : "=f" (__cuda_local_var_38588_11_non_const_val) : "h" (*((const unsigned short *)(&a))));
# 688 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp" 3
}
# 693 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
return __cuda_local_var_38588_11_non_const_val;
# 694 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/cuda_fp16.hpp"
}}
# 86 "kernels/gemm.cu"
__global__ __var_used__ void gemm_mma(
# 86 "kernels/gemm.cu"
const struct __half *a, 
# 86 "kernels/gemm.cu"
const struct __half *b, 
# 86 "kernels/gemm.cu"
float *c, 
# 86 "kernels/gemm.cu"
int m, 
# 86 "kernels/gemm.cu"
int n, 
# 86 "kernels/gemm.cu"
int k){
# 86 "kernels/gemm.cu"
{  _ZN6nvcuda4wmma13helper_traitsIfE18fill_argument_typeE __T0;
 const _ZN6nvcuda4wmma13helper_traitsIfE18fill_argument_typeE *__T1;
 float *__T2;
 const struct _ZN6nvcuda4wmma8fragmentINS0_11accumulatorELi16ELi16ELi16EfvEE *__T3;
 unsigned __T4;
# 88 "kernels/gemm.cu"
 int __cuda_local_var_49075_9_non_const_row0;
# 88 "kernels/gemm.cu"
 int __cuda_local_var_49075_33_non_const_col0;
# 89 "kernels/gemm.cu"
 struct _ZN6nvcuda4wmma8fragmentINS0_8matrix_aELi16ELi16ELi16E6__halfNS0_9row_majorEEE __cuda_local_var_49076_73_non_const_fa;
# 90 "kernels/gemm.cu"
 struct _ZN6nvcuda4wmma8fragmentINS0_8matrix_bELi16ELi16ELi16E6__halfNS0_9row_majorEEE __cuda_local_var_49077_73_non_const_fb;
# 91 "kernels/gemm.cu"
 struct _ZN6nvcuda4wmma8fragmentINS0_11accumulatorELi16ELi16ELi16EfvEE __cuda_local_var_49078_58_non_const_acc;
# 88 "kernels/gemm.cu"
__cuda_local_var_49075_9_non_const_row0 = ((int)((blockIdx.y) * 16U));
# 88 "kernels/gemm.cu"
__cuda_local_var_49075_33_non_const_col0 = ((int)((blockIdx.x) * 16U));
# 92 "kernels/gemm.cu"
(__T1 = ((((*(_ZN6nvcuda4wmma13helper_traitsIfE18fill_argument_typeE *)&__T0)) = (0.0F)) , (&__T0))) , (void)(_ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma13fill_fragmentIfLi8ELi8EEEvRNS1_11__frag_baseIT_XT0_EXT1_EEERKNS1_13helper_traitsIS4_E18fill_argument_typeE((&(__cuda_local_var_49078_58_non_const_acc.__b_N6nvcuda4wmma11__frag_baseIfLi8ELi8EEE)), __T1));
# 93 "kernels/gemm.cu"
{
# 93 "kernels/gemm.cu"
 int k0;
# 93 "kernels/gemm.cu"
k0 = 0;
# 93 "kernels/gemm.cu"
for (; k0 < k; k0 += 16)
# 93 "kernels/gemm.cu"
{  const struct __half *__T5;
 unsigned __T6;
 const struct __half *__T7;
 unsigned __T8;
 const struct _ZN6nvcuda4wmma8fragmentINS0_8matrix_aELi16ELi16ELi16E6__halfNS0_9row_majorEEE *__T9;
 const struct _ZN6nvcuda4wmma8fragmentINS0_8matrix_bELi16ELi16ELi16E6__halfNS0_9row_majorEEE *__T10;
 const struct _ZN6nvcuda4wmma8fragmentINS0_11accumulatorELi16ELi16ELi16EfvEE *__T11;
# 94 "kernels/gemm.cu"
((__T5 = ((a + (((size_t)__cuda_local_var_49075_9_non_const_row0) * ((unsigned long)k))) + k0)) , (void)(__T6 = ((unsigned)k))) , (void)(_ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma16load_matrix_syncERNS1_8fragmentINS1_8matrix_aELi16ELi16ELi16E6__halfNS1_9row_majorEEEPKS4_j((&__cuda_local_var_49076_73_non_const_fa), __T5, __T6));
# 95 "kernels/gemm.cu"
((__T7 = ((b + (((size_t)k0) * ((unsigned long)n))) + __cuda_local_var_49075_33_non_const_col0)) , (void)(__T8 = ((unsigned)n))) , (void)(_ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma16load_matrix_syncERNS1_8fragmentINS1_8matrix_bELi16ELi16ELi16E6__halfNS1_9row_majorEEEPKS4_j((&__cuda_local_var_49077_73_non_const_fb), __T7, __T8));
# 96 "kernels/gemm.cu"
(((__T9 = (((const struct _ZN6nvcuda4wmma8fragmentINS0_8matrix_aELi16ELi16ELi16E6__halfNS0_9row_majorEEE *)&__cuda_local_var_49076_73_non_const_fa))) , (void)(__T10 = (((const struct _ZN6nvcuda4wmma8fragmentINS0_8matrix_bELi16ELi16ELi16E6__halfNS0_9row_majorEEE *)&__cuda_local_var_49077_73_non_const_fb)))) , (void)(__T11 = (((const struct _ZN6nvcuda4wmma8fragmentINS0_11accumulatorELi16ELi16ELi16EfvEE *)&__cuda_local_var_49078_58_non_const_acc)))) , (void)(_ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma8mma_syncERNS1_8fragmentINS1_11accumulatorELi16ELi16ELi16EfvEERKNS2_INS1_8matrix_aELi16ELi16ELi16E6__halfNS1_9row_majorEEERKNS2_INS1_8matrix_bELi16ELi16ELi16ES7_S8_EERKS4_((&__cuda_local_var_49078_58_non_const_acc), __T9, __T10, __T11));
# 97 "kernels/gemm.cu"
} }
# 98 "kernels/gemm.cu"
(((__T2 = ((c + (((size_t)__cuda_local_var_49075_9_non_const_row0) * ((unsigned long)n))) + __cuda_local_var_49075_33_non_const_col0)) , (void)(__T3 = (((const struct _ZN6nvcuda4wmma8fragmentINS0_11accumulatorELi16ELi16ELi16EfvEE *)&__cuda_local_var_49078_58_non_const_acc)))) , (void)(__T4 = ((unsigned)n))) , (void)(_ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma17store_matrix_syncEPfRKNS1_8fragmentINS1_11accumulatorELi16ELi16ELi16EfvEEjNS1_8layout_tE(__T2, __T3, __T4, _ZN6nvcuda4wmma13mem_row_majorE)); 
# 99 "kernels/gemm.cu"
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
 int __cuda_local_var_49091_9_non_const_row;
# 104 "kernels/gemm.cu"
 int __cuda_local_var_49091_54_non_const_col;
# 106 "kernels/gemm.cu"
 float __cuda_local_var_49093_11_non_const_acc;
# 104 "kernels/gemm.cu"
__cuda_local_var_49091_9_non_const_row = ((int)(((blockIdx.y) * (blockDim.y)) + (threadIdx.y)));
# 104 "kernels/gemm.cu"
__cuda_local_var_49091_54_non_const_col = ((int)(((blockIdx.x) * (blockDim.x)) + (threadIdx.x)));
# 105 "kernels/gemm.cu"
if ((__cuda_local_var_49091_9_non_const_row >= m) || (__cuda_local_var_49091_54_non_const_col >= n)) {
# 105 "kernels/gemm.cu"
return; }
# 106 "kernels/gemm.cu"
__cuda_local_var_49093_11_non_const_acc = (0.0F);
# 107 "kernels/gemm.cu"
{
# 107 "kernels/gemm.cu"
 int i;
# 107 "kernels/gemm.cu"
i = 0;
# 107 "kernels/gemm.cu"
for (; i < k; ++i) {
# 107 "kernels/gemm.cu"
__cuda_local_var_49093_11_non_const_acc += ((_ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma12__half2floatE6__half(((*(struct __half *)&(a[((((size_t)__cuda_local_var_49091_9_non_const_row) * ((unsigned long)k)) + ((unsigned long)i))]))))) * (_ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma12__half2floatE6__half(((*(struct __half *)&(b[((((size_t)i) * ((unsigned long)n)) + ((unsigned long)__cuda_local_var_49091_54_non_const_col))])))))); } }
# 108 "kernels/gemm.cu"
(c[((((size_t)__cuda_local_var_49091_9_non_const_row) * ((unsigned long)n)) + ((unsigned long)__cuda_local_var_49091_54_non_const_col))]) = __cuda_local_var_49093_11_non_const_acc; 
# 109 "kernels/gemm.cu"
}}
# 90 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
___device__(static  __no_sc__) __inline__ void _ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma16load_matrix_syncERNS1_8fragmentINS1_8matrix_aELi16ELi16ELi16E6__halfNS1_9row_majorEEEPKS4_j(
# 90 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
struct _ZN6nvcuda4wmma8fragmentINS0_8matrix_aELi16ELi16ELi16E6__halfNS0_9row_majorEEE *a, 
# 90 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
const struct __half *p, 
# 90 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
unsigned ldm){
# 90 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
{  int *__T12;
 const int *__T13;
 unsigned __T14;
# 91 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
(((__T12 = ((int *)a)) , (void)(__T13 = ((const int *)p))) , (void)(__T14 = ldm)) , (void)(__hmma_m16n16k16_ld_a(__T12, __T13, __T14, 0)); 
# 92 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
}}
# 98 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
___device__(static  __no_sc__) __inline__ void _ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma16load_matrix_syncERNS1_8fragmentINS1_8matrix_bELi16ELi16ELi16E6__halfNS1_9row_majorEEEPKS4_j(
# 98 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
struct _ZN6nvcuda4wmma8fragmentINS0_8matrix_bELi16ELi16ELi16E6__halfNS0_9row_majorEEE *a, 
# 98 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
const struct __half *p, 
# 98 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
unsigned ldm){
# 98 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
{  int *__T15;
 const int *__T16;
 unsigned __T17;
# 99 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
(((__T15 = ((int *)a)) , (void)(__T16 = ((const int *)p))) , (void)(__T17 = ldm)) , (void)(__hmma_m16n16k16_ld_b(__T15, __T16, __T17, 0)); 
# 100 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
}}
# 472 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
___device__(static  __no_sc__) __inline__ void _ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma17store_matrix_syncEPfRKNS1_8fragmentINS1_11accumulatorELi16ELi16ELi16EfvEEjNS1_8layout_tE(
# 472 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
float *p, 
# 472 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
const struct _ZN6nvcuda4wmma8fragmentINS0_11accumulatorELi16ELi16ELi16EfvEE *a, 
# 472 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
unsigned ldm, 
# 472 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
enum _ZN6nvcuda4wmma8layout_tE layout){
# 472 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
{  float *__T18;
 const float *__T19;
 unsigned __T20;
 float *__T21;
 const float *__T22;
 unsigned __T23;
# 473 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
if (((int)layout) == 0) {
# 474 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
(((__T18 = ((float *)p)) , (void)(__T19 = ((const float *)((float *)a)))) , (void)(__T20 = ldm)) , (void)(__hmma_m16n16k16_st_c_f32(__T18, __T19, __T20, 0)); } else  {
# 476 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
(((__T21 = ((float *)p)) , (void)(__T22 = ((const float *)((float *)a)))) , (void)(__T23 = ldm)) , (void)(__hmma_m16n16k16_st_c_f32(__T21, __T22, __T23, 1)); } 
# 477 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
}}
# 633 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
___device__(static  __no_sc__) __inline__ void _ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma8mma_syncERNS1_8fragmentINS1_11accumulatorELi16ELi16ELi16EfvEERKNS2_INS1_8matrix_aELi16ELi16ELi16E6__halfNS1_9row_majorEEERKNS2_INS1_8matrix_bELi16ELi16ELi16ES7_S8_EERKS4_(
# 633 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
struct _ZN6nvcuda4wmma8fragmentINS0_11accumulatorELi16ELi16ELi16EfvEE *d, 
# 633 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
const struct _ZN6nvcuda4wmma8fragmentINS0_8matrix_aELi16ELi16ELi16E6__halfNS0_9row_majorEEE *a, 
# 633 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
const struct _ZN6nvcuda4wmma8fragmentINS0_8matrix_bELi16ELi16ELi16E6__halfNS0_9row_majorEEE *b, 
# 633 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
const struct _ZN6nvcuda4wmma8fragmentINS0_11accumulatorELi16ELi16ELi16EfvEE *c){
# 633 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
{  float *__T24;
 const int *__T25;
 const int *__T26;
 const float *__T27;
# 634 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
((((__T24 = ((float *)d)) , (void)(__T25 = ((const int *)a))) , (void)(__T26 = ((const int *)b))) , (void)(__T27 = ((const float *)c))) , (void)(__hmma_m16n16k16_mma_f32f32(__T24, __T25, __T26, __T27, 0, 0)); 
# 635 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.hpp"
}}
# 260 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
___device__(static  __no_sc__) __inline__ void _ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma13fill_fragmentIfLi8ELi8EEEvRNS1_11__frag_baseIT_XT0_EXT1_EEERKNS1_13helper_traitsIS4_E18fill_argument_typeE(
# 260 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
struct _ZN6nvcuda4wmma11__frag_baseIfLi8ELi8EEE *f, 
# 268 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
const _ZN6nvcuda4wmma13helper_traitsIfE18fill_argument_typeE *in){
# 268 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
{
# 273 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
 _ZZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma13fill_fragmentIfLi8ELi8EEEvRNS1_11__frag_baseIT_XT0_EXT1_EEERKNS1_13helper_traitsIS4_E18fill_argument_typeEE12storage_type __cuda_local_var_47592_17_non_const_v;
# 273 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
__cuda_local_var_47592_17_non_const_v = (_ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma19__get_storage_valueIfffEET0_T1_((*in)));
# 275 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
{
# 275 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
 int i;
# 275 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
i = 0;
# 275 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"

#pragma unroll 2147483647
for (; i < ((int)_ZN6nvcuda4wmma11__frag_baseIfLi8ELi8EE20num_storage_elementsE); i++) {
# 276 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
(((f->x))[i]) = __cuda_local_var_47592_17_non_const_v; } } 
# 277 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
}}
# 224 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
___device__(static  __no_sc__) __inline__ _ZN6nvcuda4wmma13helper_traitsIfE20storage_element_typeE _ZN37_INTERNAL_b9268094_7_gemm_cu_gemm_mma6nvcuda4wmma19__get_storage_valueIfffEET0_T1_(
# 224 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
_ZN6nvcuda4wmma13helper_traitsIfE18fill_argument_typeE in){
# 224 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
{
# 224 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
return in;
# 224 "/root/.cache/archbuild/toolkits/cuda-13.5.37/nvidia/cu13/bin/../include/crt/mma.h"
}}
