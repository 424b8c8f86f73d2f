// Your kernels. `extern "C"` keeps the names readable: build.rs exposes each as a constant
// (`kernels::ops::SCALE`) and a typed launcher (`kernels::ops::Scale`, whose `launch` takes
// `&mut` a device buffer of f32, an f32 and a u32). Add files here and list them under
// `kernels` in Cargo.toml.
extern "C" __global__ void scale(float* data, float factor, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] *= factor;
    }
}
