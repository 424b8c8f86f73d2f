// Your kernels. `extern "C"` keeps the names readable: build.rs exposes each as a constant
// (`kernels::ops::SCALE`). Add files here and list them under `kernels` in Cargo.toml.
extern "C" __global__ void scale(float* data, float factor, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] *= factor;
    }
}
