// Fallback diagnostics for gemm_hopper (run only if the example's check fails): loads the sm_90a
// cubin with the driver API and runs two probes that show which element lands where.
#include <cuda.h>
#include <cstdio>
#include <cstring>
#include <vector>
#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *s_; cuGetErrorString(r_, &s_); printf("%s: %s\n", #x, s_); return 100; } } while (0)
static unsigned short h(float f) { // exact for the small integers used here
    if (f == 0.f) return 0;
    unsigned u; memcpy(&u, &f, 4);
    unsigned sign = (u >> 16) & 0x8000, exp = ((u >> 23) & 0xff) - 127 + 15, man = (u >> 13) & 0x3ff;
    return (unsigned short)(sign | (exp << 10) | man);
}
static CUfunction fn;
static int probe(int which) {
    const int m = 64, n = 16, k = 16;
    std::vector<unsigned short> a(m * k), b(k * n);
    std::vector<float> want(m * n), got(m * n);
    for (int r = 0; r < m; ++r) for (int i = 0; i < k; ++i)
        a[r * k + i] = h(which == 0 ? float(r % 16 == i) : float(r * 16 + i));
    for (int i = 0; i < k; ++i) for (int c = 0; c < n; ++c)
        b[i * n + c] = h(which == 0 ? float(i * 16 + c) : float(i == c));
    for (int r = 0; r < m; ++r) for (int c = 0; c < n; ++c)
        want[r * n + c] = which == 0 ? float((r % 16) * 16 + c) : float(r * 16 + c);
    CUdeviceptr da, db, dc;
    CK(cuMemAlloc(&da, a.size() * 2)); CK(cuMemAlloc(&db, b.size() * 2)); CK(cuMemAlloc(&dc, got.size() * 4));
    CK(cuMemcpyHtoD(da, a.data(), a.size() * 2)); CK(cuMemcpyHtoD(db, b.data(), b.size() * 2));
    CK(cuMemsetD32(dc, 0x7fc00000, got.size()));
    int mm = m, nn = n, kk = k;
    void *args[] = {&da, &db, &dc, &mm, &nn, &kk};
    CK(cuLaunchKernel(fn, n / 16, m / 64, 1, 128, 1, 1, 0, 0, args, 0));
    CK(cuCtxSynchronize());
    CK(cuMemcpyDtoH(got.data(), dc, got.size() * 4));
    int bad = 0;
    for (int i = 0; i < m * n; ++i) if (got[i] != want[i]) {
        if (bad < 40) printf("probe %d: c[%d][%d] = %g want %g\n", which, i / n, i % n, got[i], want[i]);
        ++bad;
    }
    printf("probe %d (%s): %d wrong of %d\n", which, which == 0 ? "A=I, B=16k+n" : "A=16m+k, B=I", bad, m * n);
    return bad;
}
int main(int argc, char **argv) {
    CUdevice dev; CUcontext ctx; CUmodule mod;
    CK(cuInit(0)); CK(cuDeviceGet(&dev, 0)); CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
    CK(cuModuleLoad(&mod, argc > 1 ? argv[1] : "gemm_sm90a.cubin"));
    CK(cuModuleGetFunction(&fn, mod, "gemm_hopper"));
    return (probe(0) + probe(1)) ? 1 : 0;
}
