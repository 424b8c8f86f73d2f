// C = A * B for M x K and K x N half-precision matrices (row-major), accumulated in float.
// Three variants of one product, each compiled only where it can run:
//   gemm_hopper: WGMMA (warpgroup wgmma.mma_async, operands in shared memory), built only for
//                sm_90a: the arch-specific Hopper target, the only one with wgmma
//   gemm_mma:    WMMA tensor cores, compute capability 8.0 and newer
//   gemm_simt:   one thread per element, every arch
// Whole kernels are inside the #if, so an image compiled without them does not contain them:
// the loader picks the first variant the GPU's image has (Loaded::variant).
#include <cuda_fp16.h>
#include <mma.h>

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// WGMMA reads both operands from shared memory through 64-bit matrix descriptors. The layout is
// the PTX ISA's no-swizzle ("interleave") K-major one: a tile of R rows (of A: M; of B: N) by 16
// k is cut into 8x8 core matrices of 128 contiguous bytes (core row r at byte 16 r); the two core
// matrices along K are LBO = 128 bytes apart and consecutive 8-row groups SBO = 256 bytes apart.
#define WG_LBO 128u
#define WG_SBO 256u

static __device__ unsigned core_offset(int row, int kk) {
    return (row >> 3) * WG_SBO + (kk >> 3) * WG_LBO + (row & 7) * 16 + (kk & 7) * 2;
}

// Descriptor fields (in 16-byte units): start address bits 0-13, LBO bits 16-29, SBO bits 32-45;
// base offset 0 and layout type 0 (no swizzle) in bits 49-51 and 62-63.
static __device__ unsigned long long descriptor(const void *smem) {
    unsigned long long addr = (unsigned long long)__cvta_generic_to_shared(smem);
    return ((addr & 0x3FFFF) >> 4) | ((unsigned long long)(WG_LBO >> 4) << 16) |
           ((unsigned long long)(WG_SBO >> 4) << 32);
}

// Keeps the compiler from moving accumulator reads across the asynchronous MMA's wait.
static __device__ void fence_operand(float &r) { asm volatile("" : "+f"(r)::"memory"); }

// One warpgroup (128 threads) per 64x16 tile of C; grid (N/16, M/64). Per 16-wide step of K the
// block stages A's 64x16 slice and B's 16x16 slice (transposed, so both are K-major) in shared
// memory and issues one wgmma.mma_async.m64n16k16 with f32 accumulators. Accumulator layout
// (PTX ISA, m64nNk16 D fragments): warp w holds rows 16w..16w+15; register i of lane l is
// row l/4 + 8 ((i/2) % 2), column 2 (l % 4) + i % 2 + 8 (i/4).
extern "C" __global__ void __launch_bounds__(128)
    gemm_hopper(const __half *a, const __half *b, float *c, int m, int n, int k) {
    __shared__ __align__(128) unsigned char sa[64 * 16 * 2];
    __shared__ __align__(128) unsigned char sb[16 * 16 * 2];
    int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 16;
    float d[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    unsigned long long da = descriptor(sa), db = descriptor(sb);
    for (int k0 = 0; k0 < k; k0 += 16) {
        for (int i = tid; i < 64 * 16; i += 128) {
            int r = i >> 4, kk = i & 15;
            *(__half *)(sa + core_offset(r, kk)) = a[(size_t)(row0 + r) * k + k0 + kk];
        }
        for (int i = tid; i < 16 * 16; i += 128) {
            int kk = i >> 4, col = i & 15;
            *(__half *)(sb + core_offset(col, kk)) = b[(size_t)(k0 + kk) * n + col0 + col];
        }
        // The stores above are generic-proxy writes; wgmma reads through the async proxy.
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        for (int i = 0; i < 8; ++i) fence_operand(d[i]);
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        asm volatile(
            "{\n"
            ".reg .pred p;\n"
            "setp.ne.b32 p, 1, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 "
            "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1, 0, 0;\n"
            "}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
              "+f"(d[7])
            : "l"(da), "l"(db)
            : "memory");
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        for (int i = 0; i < 8; ++i) fence_operand(d[i]);
        __syncthreads(); // the next step overwrites the tiles this one read
    }
    int row = row0 + warp * 16 + (lane >> 2), col = col0 + (lane & 3) * 2;
    for (int i = 0; i < 8; ++i)
        c[(size_t)(row + 8 * ((i >> 1) & 1)) * n + col + (i & 1) + 8 * (i >> 2)] = d[i];
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
