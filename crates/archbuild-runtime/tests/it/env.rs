//! The environment variables the runtime reads, each with a good and a bad value. One test
//! function, in a process of its own ([`common::alone`]), because the process environment is
//! shared by every thread of a test binary.

use std::path::PathBuf;

use archbuild_arch::CudaVersion;
use archbuild_runtime::jit::{JitCache, JitPreference};
use archbuild_runtime::sim::SimDriver;
use archbuild_runtime::{Loader, Policy};

use crate::common;

const VARS: &[&str] = &[
    "ARCHBUILD_LOAD_POLICY",
    "ARCHBUILD_JIT_CACHE",
    "ARCHBUILD_JIT_CACHE_MAX_BYTES",
    "ARCHBUILD_JIT",
    "ARCHBUILD_NVJITLINK",
    "ARCHBUILD_HOME",
    "CUDA_HOME",
];

fn clear() {
    for v in VARS {
        std::env::remove_var(v);
    }
}

fn sim() -> SimDriver {
    SimDriver::new(CudaVersion::new(13, 0)).with_gpu(9, 0)
}

#[test]
fn environment_variables() {
    common::alone("env::environment_variables", changes_every_variable);
}

fn changes_every_variable() {
    clear();
    let tmp = tempfile::tempdir().unwrap();

    // Policy.
    std::env::set_var("ARCHBUILD_LOAD_POLICY", "prefer-ptx");
    assert_eq!(
        Loader::from_env(sim()).unwrap().current_policy(),
        Policy::PreferPtx
    );
    std::env::set_var("ARCHBUILD_LOAD_POLICY", "prefer-cubn");
    let err = Loader::from_env(sim()).unwrap_err().to_string();
    insta::assert_snapshot!("bad_policy", err);
    std::env::remove_var("ARCHBUILD_LOAD_POLICY");
    assert_eq!(
        Loader::from_env(sim()).unwrap().current_policy(),
        Policy::PreferCubin
    );

    // Cache location, `off`, and the default under the user cache dir.
    let dir = tmp.path().join("cache");
    std::env::set_var("ARCHBUILD_JIT_CACHE", &dir);
    let l = Loader::from_env(sim()).unwrap();
    assert_eq!(l.jit_cache().unwrap().dir(), dir);
    assert_eq!(
        l.jit_cache().unwrap().max_bytes(),
        archbuild_runtime::jit::DEFAULT_MAX_BYTES
    );
    std::env::set_var("ARCHBUILD_JIT_CACHE_MAX_BYTES", "64M");
    assert_eq!(JitCache::from_env().unwrap().unwrap().max_bytes(), 64 << 20);
    std::env::set_var("ARCHBUILD_JIT_CACHE_MAX_BYTES", "lots");
    insta::assert_snapshot!(
        "bad_cache_size",
        Loader::from_env(sim()).unwrap_err().to_string()
    );
    std::env::remove_var("ARCHBUILD_JIT_CACHE_MAX_BYTES");
    std::env::set_var("ARCHBUILD_JIT_CACHE", "off");
    assert!(Loader::from_env(sim()).unwrap().jit_cache().is_none());
    std::env::remove_var("ARCHBUILD_JIT_CACHE");
    if std::env::var_os("HOME").is_some() {
        std::env::set_var("XDG_CACHE_HOME", tmp.path().join("xdg"));
        let c = JitCache::from_env().unwrap().unwrap();
        assert_eq!(c.dir(), tmp.path().join("xdg/archbuild/jit"));
        // ARCHBUILD_HOME moves the JIT cache with the rest of archbuild's files.
        std::env::set_var("ARCHBUILD_HOME", tmp.path().join("home"));
        let c = JitCache::from_env().unwrap().unwrap();
        assert_eq!(c.dir(), tmp.path().join("home/jit"));
        std::env::remove_var("ARCHBUILD_HOME");
        std::env::remove_var("XDG_CACHE_HOME");
    }

    // JIT preference.
    std::env::set_var("ARCHBUILD_JIT_CACHE", "off");
    let pref = || Loader::from_env(sim()).unwrap().current_jit_preference();
    assert_eq!(pref(), JitPreference::Auto, "auto unless told otherwise");
    assert_eq!(JitPreference::default(), JitPreference::Auto);
    for (value, want) in [
        ("nvjitlink", JitPreference::NvJitLink),
        ("Driver", JitPreference::Driver),
        ("auto", JitPreference::Auto),
    ] {
        std::env::set_var("ARCHBUILD_JIT", value);
        assert_eq!(pref(), want, "{value}");
    }
    std::env::set_var("ARCHBUILD_JIT", "gcc");
    insta::assert_snapshot!("bad_jit", Loader::from_env(sim()).unwrap_err().to_string());
    std::env::remove_var("ARCHBUILD_JIT");

    // nvJitLink search order: explicit path first, then provisioned toolkits, … ; `off` = none.
    std::env::set_var("ARCHBUILD_NVJITLINK", "/opt/x/libnvJitLink.so.13");
    std::env::set_var("ARCHBUILD_HOME", tmp.path().join("home"));
    let kit = tmp
        .path()
        .join("home/toolkits/cuda-13.5.37/nvidia/cu13/lib");
    std::fs::create_dir_all(&kit).unwrap();
    std::fs::create_dir_all(tmp.path().join("home/toolkits/.tmp-cuda-13.5.37-1")).unwrap();
    std::fs::write(tmp.path().join("home/toolkits/cuda-13.5.37.lock"), "").unwrap();
    let c = archbuild_runtime::jit::nvjitlink_candidates();
    assert_eq!(c[0], PathBuf::from("/opt/x/libnvJitLink.so.13"));
    assert_eq!(c[1], kit.join("libnvJitLink.so.13"));
    assert!(
        !c.iter().any(|p| p.to_string_lossy().contains(".tmp-")),
        "installs in progress are skipped"
    );
    assert!(
        !c.iter().any(|p| p.to_string_lossy().contains(".lock")),
        "lock files are not toolkits: {c:?}"
    );
    assert!(c.ends_with(&[
        PathBuf::from("libnvJitLink.so.13"),
        PathBuf::from("libnvJitLink.so")
    ]));
    let err = archbuild_runtime::jit::discover_nvjitlink(|_| true).unwrap_err();
    assert!(
        err.contains("ARCHBUILD_NVJITLINK=/opt/x/libnvJitLink.so.13 does not exist"),
        "{err}"
    );
    // CUDA_HOME naming a pip `--target` directory (the wheel layout): searched there too.
    std::env::set_var("CUDA_HOME", tmp.path().join("pip-cuda"));
    let c = archbuild_runtime::jit::nvjitlink_candidates();
    assert!(
        c.contains(
            &tmp.path()
                .join("pip-cuda/nvidia/cu13/lib/libnvJitLink.so.13")
        ),
        "{c:?}"
    );
    std::env::remove_var("CUDA_HOME");
    std::env::set_var("ARCHBUILD_NVJITLINK", "off");
    assert!(archbuild_runtime::jit::nvjitlink_candidates().is_empty());
    assert_eq!(
        archbuild_runtime::jit::discover_nvjitlink(|_| true).unwrap_err(),
        "nvJitLink is disabled (ARCHBUILD_NVJITLINK=off)"
    );
    clear();
}
