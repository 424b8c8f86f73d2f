//! What a build was told: the fields `Build`'s setters fill, read by the pipeline (`run`,
//! `setup`, `remote`) below the facade. Kept apart from `Build` so the pipeline never depends
//! on the public builder that calls it.

use std::path::PathBuf;
use std::sync::Arc;

use archbuild_arch::ComputeCapability;

use crate::base::env::Env;
use crate::base::paths::Home;
use crate::report::JobRecord;
use crate::toolkit::nvcc::Toolkit;

/// Everything a build was told, before any of it is resolved (the pipeline's input).
#[derive(Debug, Clone, Default)]
pub(crate) struct Spec {
    pub(crate) modules: Vec<(Option<String>, Vec<PathBuf>)>,
    pub(crate) archs: Option<String>,
    /// The whole list this build is a CI shard of (`Build::shard_of`).
    pub(crate) shard_of: Option<String>,
    pub(crate) file_archs: Vec<(PathBuf, String)>,
    /// `Build::arch_list_mode`: overrides `ARCHBUILD_ARCH_LIST_MODE`.
    pub(crate) arch_list_mode: Option<String>,
    /// `Build::fleet`: overrides `ARCHBUILD_FLEET`.
    pub(crate) fleet: Option<String>,
    pub(crate) nvcc_flags: Vec<String>,
    pub(crate) ptxas_flags: Vec<String>,
    pub(crate) includes: Vec<PathBuf>,
    pub(crate) defines: Vec<String>,
    pub(crate) compression: Option<String>,
    /// The compression when no source sets one (`Build::smallest_compression`).
    pub(crate) default_compression: crate::prepare::packing::DefaultCompression,
    pub(crate) out_dir: Option<PathBuf>,
    pub(crate) cache_dir: Option<PathBuf>,
    pub(crate) cache: Option<bool>,
    pub(crate) share_cicc: Option<bool>,
    /// `Build::relocatable_device_code`: overrides `ARCHBUILD_RELOCATABLE_DEVICE_CODE`.
    pub(crate) relocatable_device_code: Option<bool>,
    /// Overrides `ARCHBUILD_VERIFY`.
    pub(crate) verify: Option<String>,
    pub(crate) toolkit: Option<Toolkit>,
    /// `Build::toolkit_version`, `ptx_toolkit_version`, `legacy_toolkit_version`: the version
    /// each maker is asked for, over its variable (`ARCHBUILD_TOOLKIT_VERSION`, …).
    pub(crate) toolkit_versions: crate::toolkit::makers::ByMaker<Option<String>>,
    pub(crate) home: Option<Home>,
    pub(crate) manifest_dir: Option<PathBuf>,
    pub(crate) env: Option<Env>,
    pub(crate) jobs: Option<usize>,
    pub(crate) cargo_metadata: Option<bool>,
    pub(crate) provision: Option<bool>,
    pub(crate) no_rust_module: bool,
    pub(crate) devices: Option<Vec<ComputeCapability>>,
    pub(crate) quiet: bool,
    pub(crate) on_job: Option<JobCallback>,
    /// Prints redacted (`Build`'s `Debug` shows no password).
    pub(crate) remote_cache: Option<archbuild_config::RemoteUrl>,
    pub(crate) remote_cache_mode: Option<archbuild_config::RemoteMode>,
    pub(crate) prebuilt: Option<PathBuf>,
    /// Whether the package's shipped fat binaries (`prebuilt` in Cargo.toml) may be taken;
    /// `cargo archbuild package`, which makes them, says no.
    pub(crate) packaged: Option<bool>,
    pub(crate) variants: Vec<(String, Vec<String>)>,
    /// Set by `Library`: the sources have host code, built into a static archive.
    pub(crate) library: Option<crate::host::link::LibrarySpec>,
    /// Header libraries; replace Cargo.toml's of the same name.
    pub(crate) header_libraries: Vec<crate::headers::library::HeaderLibrary>,
}

/// A callback run after every job, cached or not (from the worker threads).
#[derive(Clone)]
pub(crate) struct JobCallback(pub Arc<dyn Fn(&JobRecord) + Send + Sync>);

impl std::fmt::Debug for JobCallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JobCallback")
    }
}
