// Kernels of many signatures, for the typed launchers archbuild generates: every scalar width,
// const and non-const pointers, `size_t`, `bool`, `__half`, `__nv_bfloat16`, `extern "C"` and
// C++ names (a namespace, an overload, a template with two instances) and a struct by value
// (which gets no launcher). `src/main.rs` runs each one and checks its result on the CPU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stddef.h>

#define ID (blockIdx.x * blockDim.x + threadIdx.x)

extern "C" __global__ void axpy_f32(float a, const float* x, float* y, unsigned int n) {
    unsigned int i = ID;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void axpy_f64(double a, const double* x, double* y, size_t n) {
    size_t i = ID;
    if (i < n) y[i] = a * x[i] + y[i];
}

// y = x + v for every integer width and sign.
#define ADD(NAME, T, N)                                                     \
    extern "C" __global__ void NAME(const T* x, T v, T* y, N n) {           \
        N i = ID;                                                           \
        if (i < n) y[i] = (T)(x[i] + v);                                    \
    }
ADD(add_i8, signed char, int)
ADD(add_u8, unsigned char, int)
ADD(add_char, char, int)
ADD(add_i16, short, int)
ADD(add_u16, unsigned short, int)
ADD(add_i32, int, int)
ADD(add_u32, unsigned int, unsigned int)
ADD(add_i64, long long, long long)
ADD(add_u64, unsigned long long, unsigned long long)
ADD(add_long, long, long)
ADD(add_size, size_t, size_t)

extern "C" __global__ void select_bool(const bool* flags, bool invert, const float* a, float* y,
                                       int n) {
    int i = ID;
    if (i < n) y[i] = (flags[i] != invert) ? a[i] : 0.0f;
}

extern "C" __global__ void count_true(const bool* flags, unsigned int* count, int n) {
    int i = ID;
    if (i < n && flags[i]) atomicAdd(count, 1u);
}

extern "C" __global__ void half_axpy(__half a, const __half* x, __half* y, int n) {
    int i = ID;
    if (i < n) y[i] = __float2half(__half2float(a) * __half2float(x[i]) + __half2float(y[i]));
}

extern "C" __global__ void bf16_scale(__nv_bfloat16 a, const __nv_bfloat16* x, __nv_bfloat16* y,
                                      int n) {
    int i = ID;
    if (i < n) y[i] = __float2bfloat16(__bfloat162float(a) * __bfloat162float(x[i]));
}

extern "C" __global__ void half_to_float(const __half* x, float* y, int n) {
    int i = ID;
    if (i < n) y[i] = __half2float(x[i]);
}

extern "C" __global__ void float_to_bf16(const float* x, __nv_bfloat16* y, int n) {
    int i = ID;
    if (i < n) y[i] = __float2bfloat16(x[i]);
}

extern "C" __global__ void negate_in_place(float* y, int n) {
    int i = ID;
    if (i < n) y[i] = -y[i];
}

extern "C" __global__ void fill_u16(unsigned short* y, unsigned short v, unsigned long n) {
    unsigned long i = ID;
    if (i < n) y[i] = v;
}

// Nine parameters of seven types; the double is not 8-byte aligned after the byte.
extern "C" __global__ void mixed(const signed char* a, const short* b, const int* c,
                                 const long long* d, double* out, float f, unsigned char h,
                                 double g, int n) {
    int i = ID;
    if (i < n) out[i] = a[i] + b[i] + c[i] + (double)d[i] + f * h + g;
}

extern "C" __global__ void restrict_copy(const float* __restrict__ x, float* __restrict__ y,
                                         int n) {
    int i = ID;
    if (i < n) y[i] = x[i];
}

// C++ names: mangled in the fat binary, launched by their typed launchers all the same.
template <typename T>
__global__ void fill(T* y, T v, size_t n) {
    size_t i = ID;
    if (i < n) y[i] = v;
}
template __global__ void fill<float>(float*, float, size_t);
template __global__ void fill<int>(int*, int, size_t);

__global__ void cpp_sub(const float* a, const float* b, float* c, int n) {
    int i = ID;
    if (i < n) c[i] = a[i] - b[i];
}

namespace ops {
__global__ void mul(const double* a, const double* b, double* c, int n) {
    int i = ID;
    if (i < n) c[i] = a[i] * b[i];
}
}  // namespace ops

__global__ void twice(float* y, int n) {
    int i = ID;
    if (i < n) y[i] *= 2.0f;
}
__global__ void twice(int* y, int n) {
    int i = ID;
    if (i < n) y[i] *= 2;
}

// A struct by value: no typed launcher (its name constant and a note instead).
struct Pair {
    int a;
    float b;
};
extern "C" __global__ void pair_sum(Pair p, float* y) {
    if (ID == 0) y[0] = p.a + p.b;
}
