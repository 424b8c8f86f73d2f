//! One module of two files: `kernels/scale.cu` defines a `__device__` function and an
//! `__device__` variable, `kernels/kernels.cu` the kernels that use them through `extern`
//! declarations (`kernels/scale.h`). Cargo.toml's `relocatable-device-code = true` compiles each
//! file as relocatable device code and device-links the module per target; without it the kernels
//! would not link.

fn main() {
    archbuild::Build::new()
        .provision(true)
        .module("device_link", ["kernels/scale.cu", "kernels/kernels.cu"])
        .compile("kernels");
}
