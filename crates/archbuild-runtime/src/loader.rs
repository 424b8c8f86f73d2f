//! The loader: for one GPU, choose an image with `archbuild-arch`'s selection, extract only that
//! image and load it, JIT-compiling PTX through archbuild's cache when needed.
//!
//! Routes: a cubin is loaded as is. PTX the driver can compile goes to nvJitLink of the driver's
//! major version when one is found (`auto`, the environment's default: its ptxas runs on every
//! CPU), else to the driver's JIT (the linker API, so the cubin can be cached). PTX newer than the
//! driver (the driver would fail with 222) goes to nvJitLink; without a suitable nvJitLink the
//! load fails *before* touching the driver, with an error naming both fixes.

use std::borrow::Cow;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use archbuild_arch::{
    max_ptx_isa_for_cuda, select, Arch, CudaVersion, DeviceInfo, Outcome, Policy, PtxIsa, Reason,
    Route, Selection, TargetKind,
};
use archbuild_config::Env;

use crate::backend::{DeviceProps, Driver, JitOutput};
use crate::cache::{CacheKey, JitCache, Lookup};
use crate::env;
use crate::error::{Error, Result};
use crate::fatbinary::FatBinary;
use crate::locate::{self, Located};
use crate::nvjitlink::NvJitLink;
use crate::report::{BadEntry, CacheStatus, Compiler, LoadPath, LoadReport, Plan, PlannedRoute};

/// Who compiles PTX that the driver could compile itself. PTX newer than the driver always
/// goes to nvJitLink.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JitPreference {
    /// nvJitLink when one of the driver's major version is found (its ptxas compiles a
    /// module's kernels in parallel, several times faster than the driver's JIT on a module
    /// of many kernels), the driver otherwise. The default of [`Loader::from_env`].
    #[default]
    Auto,
    /// The driver. The default of [`Loader::with_driver`], which reads no environment and so
    /// behaves the same on every machine.
    Driver,
    /// nvJitLink whenever one is found (of any version that compiles the PTX); the driver
    /// otherwise.
    NvJitLink,
}

/// A loaded module and the account of how it was loaded.
#[derive(Debug)]
pub struct Loaded<M> {
    pub module: M,
    pub report: LoadReport,
}

impl<M> Loaded<M> {
    /// The kernel this GPU runs for variant group `group`: the first of the group's kernels the
    /// loaded image contains (groups come from [`crate::FatBinary::with_variants`]). Works the
    /// same for cubins, JIT and cached JIT, since the choice is made on the image.
    pub fn variant(&self, group: &str) -> Result<&str> {
        let choice = self
            .report
            .variants
            .iter()
            .find(|c| c.group == group)
            .ok_or_else(|| Error::UnknownVariantGroup {
                group: group.to_owned(),
                declared: if self.report.variants.is_empty() {
                    "none".to_owned()
                } else {
                    self.report
                        .variants
                        .iter()
                        .map(|c| c.group.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                },
            })?;
        choice.kernel.as_deref().ok_or_else(|| Error::NoVariant {
            gpu: self.report.gpu(),
            choice: choice.to_string(),
        })
    }

    /// Whether the image this GPU loaded has kernel `name`, and where it is when not: the
    /// run-time answer to what a build-time capability `cfg` (`has_wmma`, `has_fp8`) decided for
    /// one GPU, so host code picks a kernel per GPU (`docs/moving-over.md`).
    pub fn kernel(
        &self,
        fatbin: &FatBinary,
        name: &str,
    ) -> Result<crate::pick::KernelAvailability> {
        crate::pick::availability(fatbin, self.report.image_index, name)
    }

    /// Checks that the loaded image has kernel `name`; the error names the images that have it
    /// and the GPUs that can run them (the driver would only say `CUDA_ERROR_NOT_FOUND`).
    pub fn ensure_kernel(&self, fatbin: &FatBinary, name: &str) -> Result<()> {
        let index = self.report.image_index;
        if fatbin.image_kernels(index)?.iter().any(|k| k == name) {
            return Ok(());
        }
        Err(crate::pick::missing(
            fatbin,
            index,
            name,
            &self.report.gpu(),
        )?)
    }
}

/// A plan and the nvJitLink it needs, if any.
pub(crate) type Routed = (Plan, Option<Arc<Located>>);

#[derive(Debug)]
enum NvJitLinkSource {
    /// Found on first need and kept; `bool`: an `Auto` search found nothing usable (so the
    /// search is not repeated for every load).
    Discover(Mutex<(Option<Arc<Located>>, bool)>),
    Given(Arc<Located>),
    Off,
}

/// Chooses and loads images on the GPUs of one driver.
#[derive(Debug)]
pub struct Loader<D: Driver> {
    pub(crate) driver: D,
    policy: Policy,
    cache: Option<JitCache>,
    jit: JitPreference,
    nvjitlink: NvJitLinkSource,
}

impl<D: Driver> Loader<D> {
    /// A loader with defaults and no environment: policy `prefer-cubin`, no JIT cache,
    /// driver JIT, nvJitLink discovered when needed.
    pub fn with_driver(driver: D) -> Self {
        Self {
            driver,
            policy: Policy::default(),
            cache: None,
            jit: JitPreference::Driver,
            nvjitlink: NvJitLinkSource::Discover(Mutex::new((None, false))),
        }
    }

    /// A loader configured by the environment: `ARCHBUILD_LOAD_POLICY`, `ARCHBUILD_JIT_CACHE`
    /// (+ `_MAX_BYTES`), `ARCHBUILD_JIT` (default `auto`), `ARCHBUILD_NVJITLINK` (see
    /// `docs/runtime.md`).
    pub fn from_env(driver: D) -> Result<Self> {
        let mut l = Self::with_driver(driver)
            .cache(JitCache::from_env()?)
            .jit_preference(JitPreference::Auto);
        let vars = Env::process();
        if let Some(v) = vars.var(env::LOAD_POLICY) {
            let p = Policy::from_str(&v).map_err(|e| Error::Env {
                var: env::LOAD_POLICY,
                value: v.clone(),
                detail: format!("{e}; unset it for the default prefer-cubin"),
            })?;
            l = l.policy(p);
        }
        if let Some(v) = vars.var(env::JIT) {
            let pref = match v.to_ascii_lowercase().as_str() {
                "auto" => JitPreference::Auto,
                "driver" => JitPreference::Driver,
                "nvjitlink" => JitPreference::NvJitLink,
                _ => return Err(Error::Env {
                    var: env::JIT,
                    value: v,
                    detail:
                        "expected `auto`, `driver` or `nvjitlink`; unset it for the default `auto`"
                            .into(),
                }),
            };
            l = l.jit_preference(pref);
        }
        Ok(l)
    }

    /// Sets the selection policy.
    pub fn policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// Sets (or with `None`, turns off) archbuild's JIT cache.
    pub fn cache(mut self, cache: Option<JitCache>) -> Self {
        self.cache = cache;
        self
    }

    /// Sets who compiles PTX the driver could compile itself.
    pub fn jit_preference(mut self, jit: JitPreference) -> Self {
        self.jit = jit;
        self
    }

    /// Uses this nvJitLink (`Some`) or none at all (`None`) instead of discovering one.
    pub fn nvjitlink(mut self, lib: Option<NvJitLink>) -> Self {
        self.nvjitlink = lib.map_or(NvJitLinkSource::Off, |l| {
            NvJitLinkSource::Given(Arc::new(Located::opened(l)))
        });
        self
    }

    /// The driver.
    pub fn driver(&self) -> &D {
        &self.driver
    }

    /// The JIT cache, if on.
    pub fn jit_cache(&self) -> Option<&JitCache> {
        self.cache.as_ref()
    }

    /// The policy in force.
    pub fn current_policy(&self) -> Policy {
        self.policy
    }

    /// Who compiles PTX the driver could compile itself.
    pub fn current_jit_preference(&self) -> JitPreference {
        self.jit
    }

    /// Chooses, compiles if needed, and loads the image for GPU `ordinal`.
    pub fn load(&self, fatbin: &FatBinary, ordinal: usize) -> Result<Loaded<D::Module>> {
        self.load_via(&self.driver, fatbin, ordinal)
    }

    /// [`Loader::load`] with the module made by `drv`, a view of this loader's driver that
    /// makes another kind of module (see [`crate::raw::RawModule`]).
    pub(crate) fn load_via<L: Driver>(
        &self,
        drv: &L,
        fatbin: &FatBinary,
        ordinal: usize,
    ) -> Result<Loaded<L::Module>> {
        // Context creation on a GPU's first use is not the load's cost; keep it off the clock.
        drv.prepare(ordinal)?;
        let start = Instant::now();
        let driver_version = drv.version()?;
        let dev = drv.device(ordinal)?;
        let (selection, plan) = self.plan_for(fatbin, &dev, driver_version);
        let (plan, nvj) = plan?;
        let index = plan.image_index;
        let (module, path, cache, jit_log) = match plan.route {
            PlannedRoute::Cubin => {
                let data = fatbin.image_data(index)?;
                (
                    drv.load(ordinal, data)?,
                    LoadPath::Cubin,
                    CacheStatus::NotNeeded,
                    String::new(),
                )
            }
            PlannedRoute::DriverJit => self.jit_load(
                drv,
                fatbin,
                index,
                &dev,
                Compiler::Driver(driver_version),
                None,
            )?,
            PlannedRoute::NvJitLink(v) => {
                let compiler = Compiler::NvJitLink(v);
                match self.jit_load(drv, fatbin, index, &dev, compiler, nvj.as_deref()) {
                    // nvJitLink was chosen for speed (the driver can compile this PTX) but the
                    // library would not open: the driver compiles it instead.
                    Err(Error::NvJitLinkLoad { .. })
                        if matches!(selection.chosen.map(|c| c.route), Some(Route::DriverJit)) =>
                    {
                        let compiler = Compiler::Driver(driver_version);
                        self.jit_load(drv, fatbin, index, &dev, compiler, None)?
                    }
                    r => r?,
                }
            }
            PlannedRoute::LinkLto(v) => {
                let compiler = Compiler::NvJitLink(v);
                self.jit_load(drv, fatbin, index, &dev, compiler, nvj.as_deref())?
            }
        };
        let img = &fatbin.images()[index];
        let report = LoadReport {
            ordinal,
            device_name: dev.name,
            cc: dev.cc,
            driver: driver_version,
            image_index: index,
            image_target: img.target,
            image_ptx_isa: img.ptx_isa,
            path,
            cache,
            jit_log,
            elapsed: start.elapsed(),
            selection,
            variants: Vec::new(),
        };
        let mut report = report;
        // After the clock: resolving variants reads the image's kernel names.
        report.variants = crate::pick::choose_all(fatbin, index)?;
        Ok(Loaded { module, report })
    }

    /// Decides image and route for one GPU without loading anything. The nvJitLink needed by
    /// the route, if any, is returned with it.
    pub(crate) fn plan_for(
        &self,
        fatbin: &FatBinary,
        dev: &DeviceProps,
        driver: CudaVersion,
    ) -> (Selection, Result<Routed>) {
        // nvJitLink is looked for only when there is LTO-IR it could link: in a fat binary this
        // loader hands the image of, not one the CUDA runtime registers whole.
        let has_lto = fatbin.handoff() == archbuild_arch::Handoff::Image
            && fatbin
                .images()
                .iter()
                .any(|i| i.target.kind == TargetKind::LtoIr);
        let info = DeviceInfo {
            name: Some(dev.name.clone()),
            handoff: fatbin.handoff(),
            links_lto: has_lto && self.find_nvjitlink(None, None, driver).is_ok(),
            ..DeviceInfo::new(dev.cc, driver)
        };
        let selection = select(&fatbin.image_infos(), &info, self.policy);
        let plan = self.route_for(fatbin, dev, driver, &selection);
        (selection, plan)
    }

    fn route_for(
        &self,
        fatbin: &FatBinary,
        dev: &DeviceProps,
        driver: CudaVersion,
        selection: &Selection,
    ) -> Result<Routed> {
        let Some(chosen) = selection.chosen else {
            return Err(no_image(dev, selection));
        };
        let img = &fatbin.images()[chosen.index];
        let plan = |route| Plan {
            image_index: chosen.index,
            image_target: chosen.target,
            route,
        };
        let (route, lib) = match chosen.route {
            Route::Cubin => (PlannedRoute::Cubin, None),
            Route::DriverJit => {
                let found = match self.jit {
                    JitPreference::Driver => None,
                    JitPreference::NvJitLink => self.find_nvjitlink(img.ptx_isa, None, driver).ok(),
                    JitPreference::Auto => {
                        self.find_nvjitlink(img.ptx_isa, Some(driver), driver).ok()
                    }
                };
                match found {
                    Some(lib) => (PlannedRoute::NvJitLink(lib.version()), Some(lib)),
                    None => (PlannedRoute::DriverJit, None),
                }
            }
            // `links_lto` said an nvJitLink was found for this driver.
            Route::LinkLto => match self.find_nvjitlink(None, None, driver) {
                Ok(lib) => (PlannedRoute::LinkLto(lib.version()), Some(lib)),
                Err(why) => {
                    return Err(Error::NoImage {
                        gpu: gpu_label(dev),
                        reason: format!("{} is LTO-IR, and {why}", chosen.target),
                        fix: "install nvJitLink (`pip install nvidia-nvjitlink-cu13`) or set \
                              ARCHBUILD_NVJITLINK to its path"
                            .into(),
                    })
                }
            },
            Route::NeedsNewerJit {
                ptx_isa,
                driver_max,
            } => match self.find_nvjitlink(Some(ptx_isa), None, driver) {
                Ok(lib) => (PlannedRoute::NvJitLink(lib.version()), Some(lib)),
                Err(why) => {
                    return Err(ptx_too_new(
                        dev,
                        chosen.target.to_string(),
                        ptx_isa,
                        driver,
                        driver_max,
                        why,
                    ))
                }
            },
        };
        Ok((plan(route), lib))
    }

    /// An nvJitLink that can compile PTX of `isa` (and, with `same_major_as`, is of that
    /// driver's major version, so its cubins are ones the driver is sure to load), found once
    /// and then reused. Never one of a newer major than `driver`: the cubin it makes would be
    /// below that driver's floor (CUDA 13 cubins need R580).
    fn find_nvjitlink(
        &self,
        isa: Option<PtxIsa>,
        same_major_as: Option<CudaVersion>,
        driver: CudaVersion,
    ) -> std::result::Result<Arc<Located>, String> {
        let accepts = |v: CudaVersion| {
            let isa_ok = match (isa, max_ptx_isa_for_cuda(v)) {
                (Some(isa), Some(max)) => isa <= max,
                _ => true,
            };
            // A newer major's cubin needs a newer driver (its driver floor): never use one.
            isa_ok
                && v.major() <= driver.major()
                && same_major_as.is_none_or(|d| d.major() == v.major())
        };
        match &self.nvjitlink {
            NvJitLinkSource::Off => Err("nvJitLink is turned off for this loader".into()),
            NvJitLinkSource::Given(lib) if accepts(lib.version()) => Ok(lib.clone()),
            NvJitLinkSource::Given(lib) => Err(format!(
                "the nvJitLink given is version {}, too old",
                lib.version()
            )),
            NvJitLinkSource::Discover(slot) => {
                let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(lib) = slot.0.as_ref().filter(|l| accepts(l.version())) {
                    return Ok(lib.clone());
                }
                if same_major_as.is_some() && slot.1 {
                    return Err("no nvJitLink of the driver's version was found".into());
                }
                match locate::locate(accepts, self.cache.as_ref()) {
                    Ok(lib) => {
                        let lib = Arc::new(lib);
                        slot.0 = Some(lib.clone());
                        Ok(lib)
                    }
                    Err(why) => {
                        slot.1 |= same_major_as.is_some();
                        Err(why)
                    }
                }
            }
        }
    }

    /// JIT through archbuild's cache: a verified hit is loaded without compiling; a miss or a
    /// bad entry is compiled, stored (atomically) and loaded.
    fn jit_load<L: Driver>(
        &self,
        drv: &L,
        fatbin: &FatBinary,
        index: usize,
        dev: &DeviceProps,
        compiler: Compiler,
        nvj: Option<&Located>,
    ) -> Result<(L::Module, LoadPath, CacheStatus, String)> {
        let ordinal = dev.ordinal;
        // The device's CC with the PTX's variant: compute_90a → sm_90a, compute_100f on 10.3 →
        // sm_103f, compute_80 on 9.0 → sm_90.
        let target = fatbin.images()[index].target;
        let arch = Arch::new(dev.cc, target.arch.variant);
        let sm = format!("sm_{}", arch.sm_name());
        // Keyed on the image as stored: a hit needs no decompression and no hash of the PTX.
        let key = match &self.cache {
            Some(_) => Some(CacheKey::from_digest(
                fatbin.image_digest(index)?,
                &sm,
                &compiler_key(compiler),
            )),
            None => None,
        };
        let mut status = CacheStatus::Off;
        if let (Some(cache), Some(key)) = (&self.cache, &key) {
            status = match cache.get(key) {
                Lookup::Hit(cubin) => match fatbin
                    .note_linked_then(index, cubin, |c| drv.load(ordinal, Cow::Owned(c)))
                {
                    Ok(m) => {
                        return Ok((
                            m,
                            LoadPath::CachedJit(compiler),
                            CacheStatus::Hit,
                            String::new(),
                        ))
                    }
                    Err(e) => CacheStatus::Replaced(BadEntry::DriverRefused(e.to_string())),
                },
                Lookup::Miss => CacheStatus::Stored,
                Lookup::Rejected(why) => CacheStatus::Replaced(BadEntry::Rejected(why)),
            };
        }
        let ptx = fatbin.image_data(index)?;
        let (out, path) = match (compiler, nvj) {
            (Compiler::NvJitLink(v), Some(lib)) if target.kind == TargetKind::LtoIr => (
                lib.open()?.link_lto(&ptx, arch, &target.to_string())?,
                LoadPath::LinkedLto(v),
            ),
            (Compiler::NvJitLink(v), Some(lib)) => (
                lib.open()?.compile(&ptx, arch, &target.to_string())?,
                LoadPath::NvJitLink(v),
            ),
            _ => (drv.jit(ordinal, &ptx)?, LoadPath::DriverJit),
        };
        drop(ptx);
        let JitOutput { cubin, info_log } = out;
        fatbin.note_linked(index, &cubin);
        if let (Some(cache), Some(key)) = (&self.cache, &key) {
            if let Err(e) = cache.put(key, &cubin) {
                status = CacheStatus::NotStored(e.to_string());
            }
        }
        let module = drv.load(ordinal, Cow::Owned(cubin))?;
        Ok((module, path, status, info_log))
    }
}

/// "GPU 1 NVIDIA GeForce RTX 3090 (8.6)".
pub(crate) fn gpu_label(dev: &DeviceProps) -> String {
    format!("GPU {} {} ({})", dev.ordinal, dev.name, dev.cc)
}

/// The error for a GPU no image fits, e.g. "GPU 1 NVIDIA GeForce RTX 3090 (8.6): no cubin for
/// sm_80..sm_86 and no PTX for 8.6 or older (has sm_75, sm_89); add 8.6 to ARCHBUILD_ARCHS …".
pub(crate) fn no_image(dev: &DeviceProps, sel: &Selection) -> Error {
    let cc = dev.cc;
    let has: Vec<String> = sel.images().iter().map(|i| i.target.to_string()).collect();
    let excluded = sel
        .verdicts
        .iter()
        .any(|v| matches!(v.outcome, Outcome::Rejected(Reason::ExcludedByPolicy(_))));
    let too_old: Vec<String> = sel
        .verdicts
        .iter()
        .filter_map(|v| match v.outcome {
            Outcome::Rejected(Reason::DriverTooOld { floor, .. }) => {
                Some(format!("{} {floor}", v.target))
            }
            _ => None,
        })
        .collect();
    let cubins = if cc.minor == 0 {
        format!("sm_{}", cc.sm())
    } else {
        format!("sm_{}0..sm_{}", cc.major, cc.sm())
    };
    let reason = if !too_old.is_empty() {
        format!(
            "its driver (CUDA {}) cannot load the images that fit it: {}",
            sel.device.driver,
            too_old.join("; ")
        )
    } else if excluded {
        format!("no image that policy {} allows runs on it", sel.policy)
    } else {
        match sel.policy {
            Policy::ForcePtx => format!("no PTX for {cc} or older"),
            Policy::CubinOnly => format!("no cubin for {cubins}"),
            _ => format!("no cubin for {cubins} and no PTX for {cc} or older"),
        }
    };
    let reason = format!("{reason} (the fat binary has {})", has.join(", "));
    let fix = sel
        .fix_hint()
        .unwrap_or_else(|| format!("add {cc} to ARCHBUILD_ARCHS"));
    Error::NoImage {
        gpu: gpu_label(dev),
        reason,
        fix,
    }
}

fn ptx_too_new(
    dev: &DeviceProps,
    target: String,
    ptx_isa: PtxIsa,
    driver: CudaVersion,
    driver_max: PtxIsa,
    why: String,
) -> Error {
    let needed = archbuild_arch::first_cuda_for_ptx_isa(ptx_isa)
        .map_or_else(|| format!("for PTX ISA {ptx_isa}"), |v| v.to_string());
    Error::PtxTooNew(Box::new(crate::error::PtxTooNew {
        gpu: gpu_label(dev),
        target,
        cc: dev.cc.to_string(),
        ptx_isa: ptx_isa.to_string(),
        driver: driver.to_string(),
        driver_max: driver_max.to_string(),
        needed,
        nvjitlink: why,
    }))
}

/// The JIT compiler's identity in cache keys. The driver's JIT is identified by the driver's
/// exact build where the kernel module reports it (`/proc/driver/nvidia/version`), not only by
/// its CUDA version: two driver builds of one CUDA release may compile PTX differently, and a
/// shared cache must not hand one's cubin to the other.
fn compiler_key(compiler: Compiler) -> String {
    static BUILD: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    match compiler {
        Compiler::Driver(_) => match BUILD.get_or_init(driver_build) {
            Some(b) => format!("{compiler} ({b})"),
            None => compiler.to_string(),
        },
        Compiler::NvJitLink(_) => compiler.to_string(),
    }
}

/// `580.159.04` from `NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  …`.
fn driver_build() -> Option<String> {
    let text = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    let line = text.lines().find(|l| l.starts_with("NVRM version"))?;
    line.split_whitespace()
        .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()) && w.contains('.'))
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loaders_can_be_shared_between_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Loader<crate::cuda::CudaDriver>>();
        send_sync::<Loader<crate::sim::SimDriver>>();
        send_sync::<FatBinary>();
    }

    #[test]
    fn an_nvjitlink_of_a_newer_major_than_the_driver_is_never_used() {
        use archbuild_arch::Arch;
        use archbuild_fatbin::FatbinWriter;

        // nvJitLink 13.5 would compile ISA 8.4 PTX, but its CUDA 13 cubin needs R580: a 12.0
        // driver gets the error naming the fixes instead of a cubin it refuses.
        let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/compute_75.ptx");
        let ptx = std::fs::read_to_string(fixture)
            .unwrap()
            .replace(".version 9.5\n", ".version 8.4\n");
        let mut w = FatbinWriter::new();
        w.add_ptx(ptx.as_bytes(), Arch::plain(7, 5)).unwrap();
        let fatbin = FatBinary::from_vec(w.write().unwrap()).unwrap();
        let lib = std::path::PathBuf::from("/nonexistent/libnvJitLink.so.13");
        for (driver, want_nvjitlink) in [
            (CudaVersion::new(12, 0), false),
            (CudaVersion::new(13, 0), true),
        ] {
            let sim = crate::sim::SimDriver::new(driver).with_gpu(7, 5);
            let mut loader = Loader::with_driver(&sim).jit_preference(JitPreference::NvJitLink);
            loader.nvjitlink = NvJitLinkSource::Given(Arc::new(Located::unopened(
                lib.clone(),
                CudaVersion::new(13, 5),
            )));
            let pf = loader.preflight(&fatbin).unwrap();
            let outcome = &pf.gpus[0].outcome;
            match want_nvjitlink {
                true => assert_eq!(
                    outcome.as_ref().unwrap().route,
                    PlannedRoute::NvJitLink(CudaVersion::new(13, 5))
                ),
                false => assert!(
                    matches!(outcome, Err(Error::PtxTooNew(_))),
                    "{driver}: {outcome:?}"
                ),
            }
        }
    }

    #[test]
    fn auto_falls_back_to_the_driver_when_nvjitlink_will_not_open() {
        use archbuild_arch::Arch;
        use archbuild_fatbin::FatbinWriter;

        let tmp = tempfile::tempdir().unwrap();
        let lib = tmp.path().join("libnvJitLink.so.13");
        std::fs::write(&lib, b"not a library").unwrap();
        let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/compute_80.ptx");
        let ptx = std::fs::read_to_string(fixture).unwrap();
        let fatbin = |isa: &str| {
            let text = ptx.replace(".version 9.5\n", &format!(".version {isa}\n"));
            let mut w = FatbinWriter::new();
            w.add_ptx(text.as_bytes(), Arch::plain(8, 0)).unwrap();
            FatBinary::from_vec(w.write().unwrap()).unwrap()
        };
        let driver = crate::sim::SimDriver::new(CudaVersion::new(13, 0)).with_gpu(8, 6);
        let mut loader = Loader::with_driver(&driver).jit_preference(JitPreference::Auto);
        loader.nvjitlink =
            NvJitLinkSource::Given(Arc::new(Located::unopened(lib, CudaVersion::new(13, 5))));
        // The plan names nvJitLink (its version is known) …
        let pf = loader.preflight(&fatbin("9.0")).unwrap();
        let route = &pf.gpus[0].outcome.as_ref().unwrap().route;
        assert_eq!(*route, PlannedRoute::NvJitLink(CudaVersion::new(13, 5)));
        // … but it will not open, and the driver can compile this PTX: the driver does.
        let r = loader.load(&fatbin("9.0"), 0).unwrap();
        assert_eq!(r.report.path, LoadPath::DriverJit, "{}", r.report);
        // PTX only nvJitLink could compile gets the error instead.
        let err = loader.load(&fatbin("9.5"), 0).unwrap_err();
        assert!(matches!(err, Error::NvJitLinkLoad { .. }), "{err}");
    }
}
