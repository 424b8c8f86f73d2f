//! One module of two files (Cargo.toml's `modules`): `kernels/scale.cu` defines a `__device__`
//! function and a `__device__` variable, `kernels/kernels.cu` the kernels that use them through
//! `extern` declarations (`kernels/scale.h`). Cargo.toml's `relocatable-device-code = true`
//! compiles each file as relocatable device code and device-links the module per target;
//! without it the kernels would not link.

fn main() {
    archbuild::Build::new().provision(true).compile("kernels");
}
