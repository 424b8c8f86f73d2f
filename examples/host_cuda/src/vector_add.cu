// Host CUDA C++, built by archbuild::Library: the classic "cudaMalloc, <<<>>>, cudaMemcpy"
// program whose fat binary the CUDA runtime registers at start.
#include <cuda_runtime.h>

#include <cstdio>

extern "C" __global__ void host_vector_add(const float* a, const float* b, float* c, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

// Records which code the GPU runs: __CUDA_ARCH__ of the chosen image (sm_XY or compute_XY -> XY0).
extern "C" __global__ void host_arch_probe(unsigned int* out) {
#ifdef __CUDA_ARCH__
    out[0] = __CUDA_ARCH__;
#endif
}

// Internal linkage: the device names of these carry the module ID, and the host registers them
// by those names. A host side compiled with another ID than its cubins fails here
// (cudaErrorInvalidSymbol, or an invalid device function at the launch).
namespace {
__device__ float host_offset;
__global__ void host_add_offset(float* c, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] += host_offset;
    }
}
}  // namespace

static int report(cudaError_t e, char* err, size_t len) {
    std::snprintf(err, len, "%s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
    return static_cast<int>(e);
}

#define CHECK(call)                                  \
    do {                                             \
        cudaError_t e_ = (call);                     \
        if (e_ != cudaSuccess) return report(e_, err, len); \
    } while (0)

// GPU 0's name and compute capability; 0 on success, else the cudaError_t (message in err).
extern "C" int host_cuda_device(char* name, size_t name_len, int* major, int* minor, char* err, size_t len) {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    if (count == 0) return report(cudaErrorNoDevice, err, len);
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::snprintf(name, name_len, "%s", prop.name);
    *major = prop.major;
    *minor = prop.minor;
    return 0;
}

// c = a + b on GPU 0 and the __CUDA_ARCH__ of the code that ran.
extern "C" int host_cuda_vector_add(const float* a, const float* b, float* c, unsigned int n, unsigned int* cuda_arch,
                                    char* err, size_t len) {
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    unsigned int* dprobe = nullptr;
    size_t bytes = static_cast<size_t>(n) * sizeof(float);
    CHECK(cudaMalloc(&da, bytes));
    CHECK(cudaMalloc(&db, bytes));
    CHECK(cudaMalloc(&dc, bytes));
    CHECK(cudaMalloc(&dprobe, sizeof(unsigned int)));
    CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    host_vector_add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
    CHECK(cudaGetLastError());
    // c = a + b + 0: through the internal kernel and variable.
    const float zero = 0.0f;
    CHECK(cudaMemcpyToSymbol(host_offset, &zero, sizeof zero));
    host_add_offset<<<(n + 255) / 256, 256>>>(dc, n);
    CHECK(cudaGetLastError());
    host_arch_probe<<<1, 1>>>(dprobe);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(cuda_arch, dprobe, sizeof(unsigned int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    CHECK(cudaFree(dprobe));
    return 0;
}
