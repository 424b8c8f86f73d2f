// C = A * B for M x K and K x N half-precision matrices (row-major), accumulated in float.
// Three variants of one product, each compiled only where it can run:
//   gemm_hopper: mma.sync tensor-core PTX, built only for sm_90a (the arch-specific Hopper target)
//   gemm_mma:    WMMA tensor cores, compute capability 8.0 and newer
//   gemm_simt:   one thread per element, every arch
// Whole kernels are inside the #if, so an image compiled without them does not contain them:
// the loader picks the first variant the GPU's image has (Loaded::variant).
#include <cuda_fp16.h>
#include <mma.h>

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
static __device__ unsigned pack(__half lo, __half hi) {
    return (unsigned)__half_as_ushort(lo) | ((unsigned)__half_as_ushort(hi) << 16);
}

// One warp per 16x8 tile of C; grid (N/8, M/16), 32 threads. Fragment layouts of
// mma.m16n8k16 (PTX ISA): g = lane / 4, t = lane % 4.
extern "C" __global__ void gemm_hopper(const __half *a, const __half *b, float *c, int m, int n, int k) {
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
    for (int k0 = 0; k0 < k; k0 += 16) {
        const __half *ap = a + (size_t)row0 * k + k0;
        unsigned a0 = pack(ap[g * k + t * 2], ap[g * k + t * 2 + 1]);
        unsigned a1 = pack(ap[(g + 8) * k + t * 2], ap[(g + 8) * k + t * 2 + 1]);
        unsigned a2 = pack(ap[g * k + t * 2 + 8], ap[g * k + t * 2 + 9]);
        unsigned a3 = pack(ap[(g + 8) * k + t * 2 + 8], ap[(g + 8) * k + t * 2 + 9]);
        const __half *bp = b + (size_t)k0 * n + col0;
        unsigned b0 = pack(bp[(t * 2) * n + g], bp[(t * 2 + 1) * n + g]);
        unsigned b1 = pack(bp[(t * 2 + 8) * n + g], bp[(t * 2 + 9) * n + g]);
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
            : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
    float *cp = c + (size_t)row0 * n + col0;
    cp[g * n + t * 2] = d0;
    cp[g * n + t * 2 + 1] = d1;
    cp[(g + 8) * n + t * 2] = d2;
    cp[(g + 8) * n + t * 2 + 1] = d3;
}
#endif

#if __CUDA_ARCH__ >= 800
// One warp per 16x16 tile of C; grid (N/16, M/16), 32 threads.
extern "C" __global__ void gemm_mma(const __half *a, const __half *b, float *c, int m, int n, int k) {
    using namespace nvcuda;
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < k; k0 += 16) {
        wmma::load_matrix_sync(fa, a + (size_t)row0 * k + k0, k);
        wmma::load_matrix_sync(fb, b + (size_t)k0 * n + col0, n);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(c + (size_t)row0 * n + col0, acc, n, wmma::mem_row_major);
}
#endif

// One thread per element of C; grid (N/16, M/16), 16x16 threads.
extern "C" __global__ void gemm_simt(const __half *a, const __half *b, float *c, int m, int n, int k) {
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m || col >= n) return;
    float acc = 0.f;
    for (int i = 0; i < k; ++i) acc += __half2float(a[(size_t)row * k + i]) * __half2float(b[(size_t)i * n + col]);
    c[(size_t)row * n + col] = acc;
}
