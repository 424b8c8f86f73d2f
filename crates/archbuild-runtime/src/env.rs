//! The names of the environment variables the runtime reads, with what each means, so the list
//! in `docs/runtime.md` (and `docs/environment.md`) stays complete. Every read goes through
//! `archbuild_config::Env`, archbuild's one reader (trimmed values, blank = unset, one on/off and
//! size vocabulary).

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
// `ARCHBUILD_REMOTE_CACHE`, `_MODE`, `_TIMEOUT`, `_USERNAME` and `_PASSWORD` (the JIT cache's
// remote tier) are read by `archbuild_config::RemoteConfig::resolve`, the build's reader too.
// `ARCHBUILD_HOME` (archbuild's data directory: provisioned toolkits and the JIT cache live
// under it) and, when it is unset, `XDG_CACHE_HOME`, `HOME` and `LOCALAPPDATA` (the platform's
// cache directory) are read by `archbuild_config::home_dir`; `HOME` also by
// `archbuild_config::user_home` (`~/.local`, a Python prefix nvJitLink may be under).
/// `CUDA_HOME` / `CUDA_PATH`: a CUDA toolkit whose `lib64` may hold nvJitLink.
pub(crate) const CUDA_HOME: &str = "CUDA_HOME";
pub(crate) const CUDA_PATH: &str = "CUDA_PATH";
/// Python environments whose site-packages may hold the `nvidia-nvjitlink` wheel.
pub(crate) const VIRTUAL_ENV: &str = "VIRTUAL_ENV";
pub(crate) const CONDA_PREFIX: &str = "CONDA_PREFIX";
pub(crate) const PYTHONPATH: &str = "PYTHONPATH";
/// `PATH`: the `python3` found there marks one more Python environment to search.
pub(crate) const PATH: &str = "PATH";
/// `ARCHBUILD_SIMULATED_GPUS`: simulated GPUs instead of the real driver (syntax in `gpus.rs`).
pub(crate) const SIMULATED_GPUS: &str = "ARCHBUILD_SIMULATED_GPUS";
/// `CUDA_VISIBLE_DEVICES` / `CUDA_DEVICE_ORDER`: which GPUs the driver shows, in which order (part
/// of the key of a remembered device list).
pub(crate) const CUDA_VISIBLE_DEVICES: &str = "CUDA_VISIBLE_DEVICES";
pub(crate) const CUDA_DEVICE_ORDER: &str = "CUDA_DEVICE_ORDER";
