//! The host compiler users set by cc-rs's and CMake's conventions reaches nvcc, in the
//! documented precedence (`-ccbin`, `NVCC_CCBIN`, `CUDAHOSTCXX`, `CXX_<target>`, `HOST_CXX`,
//! `CXX`), and is keyed: switching it never serves the other compiler's result. Each wrapper
//! defines a macro the kernel stores, so the fat binary says which compiler preprocessed it;
//! every cached build is compared with a build that uses no cache.

use std::path::{Path, PathBuf};

use archbuild::{Build, BuildReport};

struct Project {
    dir: tempfile::TempDir,
}

const KERNEL: &str = "#ifndef WHICH_CXX\n#define WHICH_CXX 0\n#endif\n\
                      extern \"C\" __global__ void k(int *p) { *p = WHICH_CXX; }\n";

impl Project {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let kernels = dir.path().join("pkg/kernels");
        std::fs::create_dir_all(&kernels).unwrap();
        std::fs::write(kernels.join("k.cu"), KERNEL).unwrap();
        Self { dir }
    }

    /// A host compiler that is g++ with `WHICH_CXX` defined to `n`.
    fn wrapper(&self, n: u32) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.dir.path().join(format!("cxx{n}"));
        std::fs::write(
            &path,
            format!("#!/bin/sh\nexec g++ -DWHICH_CXX={n} \"$@\"\n"),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn build(&self, vars: &[(&str, &Path)], flags: &[&str], cache: bool) -> (BuildReport, Vec<u8>) {
        let out = if cache { "out" } else { "out-nocache" };
        let env = archbuild_tests::env_with(vars.iter().map(|(k, v)| (*k, v.as_os_str())));
        let mut b = Build::new();
        b.env(env)
            .toolkit(archbuild_tests::toolkit().clone())
            .manifest_dir(self.dir.path().join("pkg"))
            .cache_dir(self.dir.path().join("cache"))
            .cache(cache)
            .out_dir(self.dir.path().join(out))
            .file("kernels/k.cu")
            .archs("8.0")
            .quiet(true);
        for f in flags {
            b.flag(f);
        }
        let r = b.try_compile("kernels").unwrap_or_else(|e| panic!("{e}"));
        let bytes = std::fs::read(&r.modules[0].fatbin).unwrap();
        (r, bytes)
    }

    /// The fat binary of a cached build, checked equal to a cache-off build's.
    fn fatbin(&self, vars: &[(&str, &Path)], flags: &[&str]) -> Vec<u8> {
        let (r, cached) = self.build(vars, flags, true);
        let (_, fresh) = self.build(vars, flags, false);
        assert!(cached == fresh, "a stale result: {vars:?} {flags:?}: {r}");
        cached
    }
}

#[test]
fn the_host_compiler_users_set_is_used_in_order_and_keyed() {
    let p = Project::new();
    let (c1, c2, c3, c4) = (p.wrapper(1), p.wrapper(2), p.wrapper(3), p.wrapper(4));
    let plain = p.fatbin(&[], &[]);
    let cxx = p.fatbin(&[("CXX", &c1)], &[]);
    assert!(cxx != plain, "CXX did not reach nvcc");
    let host_cxx = p.fatbin(&[("CXX", &c1), ("HOST_CXX", &c2)], &[]);
    let cudahostcxx = p.fatbin(
        &[("CXX", &c1), ("HOST_CXX", &c2), ("CUDAHOSTCXX", &c3)],
        &[],
    );
    let nvcc_ccbin = p.fatbin(
        &[("CUDAHOSTCXX", &c3), ("CXX", &c1), ("NVCC_CCBIN", &c4)],
        &[],
    );
    let flag = format!("-ccbin={}", c2.display());
    let ccbin = p.fatbin(&[("CUDAHOSTCXX", &c3)], &[&flag]);
    // Each winner's macro is in the image, and no two compilers' images are alike.
    let all = [&plain, &cxx, &host_cxx, &cudahostcxx, &nvcc_ccbin];
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            assert!(a != b, "two host compilers gave the same fat binary");
        }
    }
    assert_eq!(
        ccbin, host_cxx,
        "-ccbin (wrapper 2) comes before CUDAHOSTCXX"
    );
    // Back to the first: served from the cache, and equal to its cache-off build.
    let (again, bytes) = p.build(&[("CXX", &c1)], &[], true);
    assert_eq!(again.jobs_run, 0, "{again}");
    assert!(
        bytes == cxx,
        "the cached build differs from its first build"
    );
}

#[test]
fn a_compiler_variable_with_arguments_is_an_error_naming_it() {
    let p = Project::new();
    // A build without cache with `CXX` set to `cxx`.
    let with_cxx = |cxx: &str| {
        Build::new()
            .env(archbuild_tests::env_with([("CXX", cxx)]))
            .toolkit(archbuild_tests::toolkit().clone())
            .manifest_dir(p.dir.path().join("pkg"))
            .cache(false)
            .out_dir(p.dir.path().join("out"))
            .file("kernels/k.cu")
            .archs("8.0")
            .quiet(true)
            .try_compile("kernels")
    };
    let err = with_cxx("g++ -m32").unwrap_err().to_string();
    assert!(
        err.contains("CXX") && err.contains("g++ -m32") && err.contains("-Xcompiler"),
        "{err}"
    );
    // A wrapper in front is dropped: `ccache g++` is g++.
    let ok = with_cxx("ccache g++");
    assert!(ok.is_ok(), "{:?}", ok.err());
}
