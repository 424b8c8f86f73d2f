//! Builds the file-system observer (`src/cache/observe_shim.c`) as a shared library that the
//! crate embeds: direct mode runs preprocessing with it in `LD_PRELOAD` and keys on every path
//! the compiler looked at (`src/cache/observe.rs`). Only glibc Linux targets get one (nvcc runs
//! nowhere else that `LD_PRELOAD` reaches); where it cannot be built, archbuild predicts those
//! paths instead and says so under `-v`, so a missing C compiler never fails the build.

#![allow(
    clippy::disallowed_methods,
    reason = "a build script reads Cargo's variables; archbuild's `Env` is for the crate itself"
)]

use std::path::PathBuf;
use std::process::Command;

const SHIM: &str = "src/cache/observe_shim.c";

fn main() {
    println!("cargo::rerun-if-changed={SHIM}");
    println!("cargo::rustc-check-cfg=cfg(archbuild_observer)");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") != "linux" || var("CARGO_CFG_TARGET_ENV") != "gnu" {
        return;
    }
    let out = PathBuf::from(var("OUT_DIR")).join("libarchbuild_observe.so");
    let compiler = match cc::Build::new()
        .cargo_metadata(false)
        .opt_level(2)
        .pic(true)
        .warnings(false)
        .try_get_compiler()
    {
        Ok(c) => c,
        Err(e) => return without(&format!("no C compiler: {e}")),
    };
    let mut cmd: Command = compiler.to_command();
    cmd.args(["-shared", "-fPIC", "-o"])
        .arg(&out)
        .arg(SHIM)
        .arg("-ldl");
    match cmd.output() {
        Ok(o) if o.status.success() => println!("cargo::rustc-cfg=archbuild_observer"),
        Ok(o) => without(&format!(
            "{cmd:?} failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => without(&format!("{cmd:?} could not start: {e}")),
    }
}

fn without(why: &str) {
    println!(
        "cargo::warning=archbuild is built without its file-system observer ({why}); direct \
         mode will predict the paths the compiler looks at: install a C compiler (gcc) to \
         observe them"
    );
}
