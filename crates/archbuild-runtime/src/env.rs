//! The one place the runtime reads environment variables, so the list in `docs/runtime.md`
//! (and `docs/environment.md`) stays complete: grep for `env::var(` finds only this file.

/// `ARCHBUILD_LOAD_POLICY`: `prefer-cubin` (default), `prefer-ptx`, `cubin-only`, `force-ptx`.
pub(crate) const LOAD_POLICY: &str = "ARCHBUILD_LOAD_POLICY";
/// `ARCHBUILD_JIT_CACHE`: the JIT cache directory, or `off`.
pub(crate) const JIT_CACHE: &str = "ARCHBUILD_JIT_CACHE";
/// `ARCHBUILD_JIT_CACHE_MAX_BYTES`: size cap of the JIT cache (`512M`, `2G`, bytes).
pub(crate) const JIT_CACHE_MAX_BYTES: &str = "ARCHBUILD_JIT_CACHE_MAX_BYTES";
/// `ARCHBUILD_NVJITLINK`: path of libnvJitLink.so to use, or `off`.
pub(crate) const NVJITLINK: &str = "ARCHBUILD_NVJITLINK";
/// `ARCHBUILD_JIT`: who compiles PTX the driver could compile itself: `auto` (default: nvJitLink
/// of the driver's major version when found), `driver` or `nvjitlink` (PTX too new for the
/// driver always goes to nvJitLink).
pub(crate) const JIT: &str = "ARCHBUILD_JIT";
/// `ARCHBUILD_REMOTE_CACHE`: a shared cache the JIT cache reads (and writes) behind the local one.
pub(crate) const REMOTE_CACHE: &str = "ARCHBUILD_REMOTE_CACHE";
/// `ARCHBUILD_REMOTE_CACHE_MODE`: `read-write` (default) or `read-only`.
pub(crate) const REMOTE_CACHE_MODE: &str = "ARCHBUILD_REMOTE_CACHE_MODE";
/// `ARCHBUILD_HOME`: archbuild's data directory (provisioned toolkits live under it).
pub(crate) const HOME: &str = archbuild_store::HOME_VAR;
/// `CUDA_HOME` / `CUDA_PATH`: a CUDA toolkit whose `lib64` may hold nvJitLink.
pub(crate) const CUDA_HOME: &str = "CUDA_HOME";
pub(crate) const CUDA_PATH: &str = "CUDA_PATH";
/// Python environments whose site-packages may hold the `nvidia-nvjitlink` wheel.
pub(crate) const VIRTUAL_ENV: &str = "VIRTUAL_ENV";
pub(crate) const CONDA_PREFIX: &str = "CONDA_PREFIX";
pub(crate) const PYTHONPATH: &str = "PYTHONPATH";
/// `PATH`: the `python3` found there marks one more Python environment to search.
pub(crate) const PATH: &str = "PATH";

/// The value of `name`, trimmed; unset, empty and non-UTF-8 values read as `None`.
pub(crate) fn var(name: &str) -> Option<String> {
    let value = std::env::var_os(name)?;
    let value = value.to_str()?.trim().to_string();
    (!value.is_empty()).then_some(value)
}

/// A list variable (`PATH`, `PYTHONPATH`) split into its paths.
pub(crate) fn paths(name: &str) -> Vec<std::path::PathBuf> {
    std::env::var_os(name)
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default()
}

/// True for the spellings of "disabled" that every archbuild switch accepts: `off`, `0`,
/// `false`, `no`, `none`.
pub(crate) fn is_off(value: &str) -> bool {
    archbuild_store::is_off(value)
}

/// Parses a byte size: `1048576`, `512K`, `256M`, `2G`, `1GiB`, `300MB` (powers of 1024).
pub(crate) fn parse_bytes(value: &str) -> Option<u64> {
    archbuild_store::parse_size(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sizes() {
        assert_eq!(parse_bytes("1048576"), Some(1 << 20));
        assert_eq!(parse_bytes("512K"), Some(512 << 10));
        assert_eq!(parse_bytes("256 MiB"), Some(256 << 20));
        assert_eq!(parse_bytes("2g"), Some(2 << 30));
        for bad in ["", "M", "12X", "-5", "99999999999999999999"] {
            assert_eq!(parse_bytes(bad), None, "{bad}");
        }
    }

    #[test]
    fn off_spellings() {
        for v in ["off", "OFF", "0", "false", "none", "no"] {
            assert!(is_off(v), "{v}");
        }
        assert!(!is_off("/tmp/cache"));
    }
}
