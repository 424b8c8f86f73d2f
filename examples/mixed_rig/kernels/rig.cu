// The kernels every GPU of the rig runs. `arch_probe` records the __CUDA_ARCH__ the running code
// was compiled for, so the program can check that the image the loader reported is the one
// that actually runs (a cubin for sm_XY, or PTX for compute_XY JIT-compiled: both give XY0).
extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}

extern "C" __global__ void arch_probe(unsigned int* out) {
#ifdef __CUDA_ARCH__
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        out[0] = __CUDA_ARCH__;
    }
#endif
}
