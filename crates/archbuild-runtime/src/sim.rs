//! A simulated CUDA driver: GPUs with chosen compute capabilities, names and a chosen driver
//! version, behaving as the real driver is documented and observed to behave
//! (NVIDIA's CUDA compatibility documentation, and `docs/runtime.md`):
//!
//! - a cubin for an arch the GPU cannot run fails with 209 (`CUDA_ERROR_NO_BINARY_FOR_GPU`);
//! - PTX whose `.version` is newer than the driver's CUDA version supports fails with 222
//!   (`CUDA_ERROR_UNSUPPORTED_PTX_VERSION`);
//! - a cubin made by a toolkit newer than the driver (ELF ABI version 8, CUDA 13, on a CUDA 12
//!   driver) and, in a whole fat binary, a zstd entry on a driver older than CUDA 12.4 (R550)
//!   fail with 200 (`CUDA_ERROR_INVALID_IMAGE`, "device kernel image is invalid", what ollama's
//!   users saw on old drivers); the floors are `archbuild_arch`'s (`docs/runtime.md`, "Driver
//!   floors"). Not checked against a real old driver: the GPU machines run R580;
//! - PTX whose `.target` the GPU cannot run fails with 218 (`CUDA_ERROR_INVALID_PTX`); bytes
//!   that are neither ELF, a fat binary nor PTX (no `.version` directive) fail with 200
//!   (`CUDA_ERROR_INVALID_IMAGE`). Both codes were checked against the real 13.0 driver on an
//!   H200 by `gpu_acceptance`, check 6 (`results/gpu.md`);
//! - a whole fat binary: only its first container is read; a compatible cubin wins, else the
//!   highest PTX whose arch the GPU can run is JIT-compiled (and fails with 222 if too new);
//! - JIT produces a *simulated* cubin (a small text format this driver alone loads).
//!
//! Counters of JIT compilations and loads let tests prove that a cache hit did not JIT.

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use archbuild_arch::{
    cubin_runs_on, device_names, driver_name, max_ptx_isa_for_cuda, ptx_jits_for,
    toolkit_for_elf_abi, toolkit_minimum_driver, Arch, ComputeCapability, CudaVersion, Target,
    TargetKind, ZSTD_MINIMUM_DRIVER,
};
use archbuild_fatbin::{
    cubin::parse_cubin, ptx::parse_ptx, read_fatbin, Compression, Entry, EntryKind,
};

use crate::backend::{ptx_text, DeviceProps, Driver, JitOutput};
use crate::error::{cu, Error, Result};

const SIM_MAGIC: &str = "ARCHBUILD-SIM-CUBIN\n";

/// One simulated GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimDevice {
    pub name: String,
    pub cc: ComputeCapability,
}

/// What a simulated load produced: which image ran and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimModule {
    pub ordinal: usize,
    /// The image that ended up on the GPU: `sm_XY` for a cubin (real or from the JIT),
    /// `compute_XY` for PTX the driver JIT-compiled during the load.
    pub source: Target,
    /// The machine code's arch: the cubin's, or the GPU's for JIT-compiled PTX.
    pub machine_arch: Arch,
    /// Kernel names, when the image lists them.
    pub kernels: Vec<String>,
    /// SHA-256 of the PTX a JIT compiled (directly or in an earlier simulated JIT), else `None`.
    pub ptx_sha256: Option<[u8; 32]>,
}

/// The simulated driver.
#[derive(Debug)]
pub struct SimDriver {
    version: CudaVersion,
    devices: Vec<SimDevice>,
    jit_delay: Duration,
    jits: AtomicUsize,
    loads: AtomicUsize,
}

impl SimDriver {
    /// A driver reporting `version` (e.g. `CudaVersion::new(13, 0)`) with no GPUs yet.
    pub fn new(version: CudaVersion) -> Self {
        Self {
            version,
            devices: Vec::new(),
            jit_delay: Duration::ZERO,
            jits: AtomicUsize::new(0),
            loads: AtomicUsize::new(0),
        }
    }

    /// Adds a GPU of this compute capability, named after the first known product.
    pub fn with_gpu(self, major: u32, minor: u32) -> Self {
        let cc = ComputeCapability::new(major, minor);
        let name = device_names(cc)
            .first()
            .map_or_else(|| format!("Simulated GPU {cc}"), |n| n.to_string());
        self.with_named_gpu(&name, cc)
    }

    /// Adds a GPU with a given name.
    pub fn with_named_gpu(mut self, name: &str, cc: ComputeCapability) -> Self {
        self.devices.push(SimDevice {
            name: name.to_string(),
            cc,
        });
        self
    }

    /// Makes every JIT take this long (to widen race windows in concurrency tests).
    pub fn with_jit_delay(mut self, delay: Duration) -> Self {
        self.jit_delay = delay;
        self
    }

    /// How many PTX compilations ran (explicit `jit` calls and PTX loads).
    pub fn jit_count(&self) -> usize {
        self.jits.load(Ordering::SeqCst)
    }

    /// How many successful `load` calls ran.
    pub fn load_count(&self) -> usize {
        self.loads.load(Ordering::SeqCst)
    }

    fn gpu(&self, ordinal: usize) -> Result<&SimDevice> {
        self.devices.get(ordinal).ok_or(Error::NoSuchDevice {
            ordinal,
            count: self.devices.len(),
        })
    }

    fn fail(op: &'static str, ordinal: usize, code: u32, log: &str) -> Error {
        Error::driver(op, ordinal, code, cu::name(code), log)
    }

    /// The checks the driver's JIT makes, then a simulated compilation.
    fn compile(
        &self,
        op: &'static str,
        ordinal: usize,
        ptx: &[u8],
    ) -> Result<(Arch, Vec<String>, [u8; 32])> {
        let cc = self.gpu(ordinal)?.cc;
        let info =
            parse_ptx(ptx).map_err(|e| Self::fail(op, ordinal, cu::INVALID_PTX, &e.to_string()))?;
        let max = max_ptx_isa_for_cuda(self.version);
        if max.is_some_and(|max| info.isa > max) {
            let log = format!(
                "ptxas fatal: Unsupported .version {}; current version is '{}'",
                info.isa,
                max.unwrap()
            );
            return Err(Self::fail(op, ordinal, cu::UNSUPPORTED_PTX_VERSION, &log));
        }
        if !ptx_jits_for(info.target, cc) {
            let log = format!(
                "ptxas fatal: SM version specified by .target (sm_{}) is higher than default SM version assumed (sm_{})",
                info.target.sm_name(),
                cc.sm()
            );
            return Err(Self::fail(op, ordinal, cu::INVALID_PTX, &log));
        }
        self.jits.fetch_add(1, Ordering::SeqCst);
        if !self.jit_delay.is_zero() {
            std::thread::sleep(self.jit_delay);
        }
        let machine = Arch::new(cc, info.target.variant);
        Ok((
            machine,
            info.entries,
            hmac_sha256::Hash::hash(ptx_text(ptx)),
        ))
    }

    /// The driver's own choice among a container's images (fatbin-format.md §8).
    fn pick_from_fatbin(&self, ordinal: usize, bytes: &[u8]) -> Result<SimModule> {
        let op = "cuModuleLoadData";
        let cc = self.gpu(ordinal)?.cc;
        let containers = read_fatbin(bytes)
            .map_err(|e| Self::fail(op, ordinal, cu::INVALID_IMAGE, &e.to_string()))?;
        let entries = &containers[0].entries;
        let best_cubin = entries
            .iter()
            .filter(|e| e.kind == EntryKind::Elf && cubin_runs_on(e.arch, cc))
            .max_by_key(|e| e.arch);
        if let Some(e) = best_cubin {
            return self.load_entry(ordinal, e);
        }
        // The highest PTX the GPU can run; the first of equals.
        let mut best_ptx = None;
        for e in entries
            .iter()
            .filter(|e| e.kind == EntryKind::Ptx && ptx_jits_for(e.arch, cc))
        {
            if best_ptx.is_none_or(|b: &archbuild_fatbin::Entry| e.arch > b.arch) {
                best_ptx = Some(e);
            }
        }
        match best_ptx {
            Some(e) => self.load_entry(ordinal, e),
            None => Err(Self::fail(op, ordinal, cu::NO_BINARY_FOR_GPU, "")),
        }
    }

    /// Decompresses the entry the driver picked, as a driver of this version can, and loads it.
    fn load_entry(&self, ordinal: usize, e: &Entry<'_>) -> Result<SimModule> {
        let op = "cuModuleLoadData";
        if matches!(e.compression, Compression::Zstd { .. }) && self.version < ZSTD_MINIMUM_DRIVER {
            let log = format!(
                "device kernel image is invalid: a zstd-compressed entry needs a driver for {} or newer",
                driver_name(ZSTD_MINIMUM_DRIVER)
            );
            return Err(Self::fail(op, ordinal, cu::INVALID_IMAGE, &log));
        }
        let data = e
            .data()
            .map_err(|e| Self::fail(op, ordinal, cu::INVALID_IMAGE, &e.to_string()))?;
        self.load_one(ordinal, &data)
    }

    fn load_one(&self, ordinal: usize, image: &[u8]) -> Result<SimModule> {
        let op = "cuModuleLoadData";
        let cc = self.gpu(ordinal)?.cc;
        if image.starts_with(b"\x7fELF") {
            let info = parse_cubin(image)
                .map_err(|e| Self::fail(op, ordinal, cu::INVALID_IMAGE, &e.to_string()))?;
            if let Some(major) = toolkit_for_elf_abi(info.abi_version) {
                let floor = toolkit_minimum_driver(major);
                if self.version < floor {
                    let log = format!(
                        "device kernel image is invalid: a cubin of ELF ABI version {} (CUDA {major}) \
                         needs a driver for {} or newer",
                        info.abi_version,
                        driver_name(floor)
                    );
                    return Err(Self::fail(op, ordinal, cu::INVALID_IMAGE, &log));
                }
            }
            if !cubin_runs_on(info.arch, cc) {
                return Err(Self::fail(op, ordinal, cu::NO_BINARY_FOR_GPU, ""));
            }
            return Ok(SimModule {
                ordinal,
                source: Target::cubin(info.arch),
                machine_arch: info.arch,
                kernels: info.kernels,
                ptx_sha256: None,
            });
        }
        if let Some(sim) = parse_sim_cubin(image) {
            if !cubin_runs_on(sim.0, cc) {
                return Err(Self::fail(op, ordinal, cu::NO_BINARY_FOR_GPU, ""));
            }
            return Ok(SimModule {
                ordinal,
                source: Target::cubin(sim.0),
                machine_arch: sim.0,
                kernels: sim.1,
                ptx_sha256: Some(sim.2),
            });
        }
        // Anything that is neither ELF nor a fat binary is taken for PTX text, as the driver
        // does. Measured on the 13.0 driver: bytes without a `.version` directive are refused as
        // no image at all (200); PTX it cannot compile fails in the JIT (218).
        let ptx = parse_ptx(image).map_err(|e| {
            let looks_like_ptx = image.windows(8).any(|w| w == b".version");
            let code = if looks_like_ptx {
                cu::INVALID_PTX
            } else {
                cu::INVALID_IMAGE
            };
            Self::fail(op, ordinal, code, &e.to_string())
        })?;
        let (machine, kernels, sha) = self.compile(op, ordinal, image)?;
        Ok(SimModule {
            ordinal,
            source: Target {
                arch: ptx.target,
                kind: TargetKind::Ptx,
            },
            machine_arch: machine,
            kernels,
            ptx_sha256: Some(sha),
        })
    }
}

impl Driver for SimDriver {
    type Module = SimModule;

    fn version(&self) -> Result<CudaVersion> {
        Ok(self.version)
    }

    fn device_count(&self) -> Result<usize> {
        Ok(self.devices.len())
    }

    fn device(&self, ordinal: usize) -> Result<DeviceProps> {
        let d = self.gpu(ordinal)?;
        Ok(DeviceProps {
            ordinal,
            name: d.name.clone(),
            cc: d.cc,
        })
    }

    fn load(&self, ordinal: usize, image: Cow<'_, [u8]>) -> Result<SimModule> {
        let m = if image.get(..4) == Some(&0xBA55_ED50u32.to_le_bytes()[..]) {
            self.pick_from_fatbin(ordinal, &image)?
        } else {
            self.load_one(ordinal, &image)?
        };
        self.loads.fetch_add(1, Ordering::SeqCst);
        Ok(m)
    }

    fn jit(&self, ordinal: usize, ptx: &[u8]) -> Result<JitOutput> {
        let (arch, kernels, sha) = self.compile("cuLinkComplete (PTX JIT)", ordinal, ptx)?;
        let hex = archbuild_store::Key(sha).hex();
        let cubin = format!(
            "{SIM_MAGIC}sm={}\nptx-sha256={hex}\nkernels={}\n",
            arch.sm_name(),
            kernels.join(",")
        );
        let info_log = format!(
            "info    : simulated JIT of {} kernel(s) for sm_{}",
            kernels.len(),
            arch.sm_name()
        );
        Ok(JitOutput {
            cubin: cubin.into_bytes(),
            info_log,
        })
    }
}

/// Reads a simulated cubin: `(arch, kernels, ptx sha256)`.
fn parse_sim_cubin(bytes: &[u8]) -> Option<(Arch, Vec<String>, [u8; 32])> {
    let text = std::str::from_utf8(bytes).ok()?.strip_prefix(SIM_MAGIC)?;
    let mut lines = text.lines();
    let sm = lines.next()?.strip_prefix("sm=")?;
    let target = Target::parse_nvcc_name(&format!("sm_{sm}"))?;
    let hex = lines.next()?.strip_prefix("ptx-sha256=")?;
    let sha = archbuild_store::Key::from_hex(hex)?.0;
    let kernels = lines.next()?.strip_prefix("kernels=")?;
    let kernels = kernels
        .split(',')
        .filter(|k| !k.is_empty())
        .map(str::to_string)
        .collect();
    Some((target.arch, kernels, sha))
}
