//! The GPUs of this machine, one meaning for every caller: the real driver ([`CudaDriver`]) or,
//! when `ARCHBUILD_SIMULATED_GPUS` is set, the simulated one ([`SimDriver`]) with the GPUs it
//! describes — how `cargo archbuild doctor` and `native` are exercised on machines without a
//! GPU; what is known about the driver and each GPU ([`DriverFacts`]); and the device list
//! remembered per driver build ([`Gpus::open_remembered`]), so that a no-op build need not start
//! the driver.
//!
//! `ARCHBUILD_SIMULATED_GPUS` is parsed by `archbuild_arch::SimulatedGpus` (its syntax is
//! documented there), which the build's `native` reads too, so both see the same GPUs. Examples:
//! `8.6,9.0@13000`, `7.5:RTX 2080;8.6:RTX 3090;8.9:RTX 4090@12.4`, `@13.0` (a driver, no GPU).

use std::path::Path;

use archbuild_arch::{
    parse_device_cc, parse_driver_version, ComputeCapability, CudaVersion, Policy, SimulatedGpus,
};
use archbuild_config::Env;
use archbuild_store::{Key, KeyBuilder, Store};

use crate::backend::{DeviceProps, Driver};
use crate::cuda::CudaDriver;
use crate::env;
use crate::error::{Error, Result};
use crate::fatbinary::FatBinary;
use crate::loader::Loader;
use crate::report::Preflight;
use crate::sim::SimDriver;

/// The variable that selects the simulated driver.
pub const SIM_VAR: &str = env::SIMULATED_GPUS;

/// The driver in use, or why there is none.
#[derive(Debug)]
pub enum Gpus {
    /// The GPUs `ARCHBUILD_SIMULATED_GPUS` describes; `spec` is its value.
    Simulated {
        driver: SimDriver,
        spec: String,
    },
    Real(CudaDriver),
    /// The real driver's device list, remembered from an earlier run (see
    /// [`Gpus::open_remembered`]); the verdicts are the same selection on the same devices.
    Cached(SimDriver),
    /// No usable driver (the driver error's text, which names the fix).
    Absent(String),
}

/// What is known about the driver and its GPUs.
#[derive(Debug, Clone)]
pub struct DriverFacts {
    /// `libcuda` or `simulated by ARCHBUILD_SIMULATED_GPUS=…`.
    pub source: String,
    pub version: Option<CudaVersion>,
    pub gpus: Vec<DeviceProps>,
    /// Why the driver or a GPU could not be queried.
    pub problem: Option<String>,
}

impl Gpus {
    /// The simulated driver when `ARCHBUILD_SIMULATED_GPUS` is set (a bad value is
    /// [`Error::SimulatedGpus`]), else the real driver if it loads.
    pub fn open() -> Result<Self> {
        if let Some(spec) = simulated_spec() {
            let driver = parse_sim(&spec).map_err(|why| Error::SimulatedGpus {
                spec: spec.clone(),
                why,
            })?;
            return Ok(Gpus::Simulated { driver, spec });
        }
        Ok(match CudaDriver::new() {
            Ok(d) => Gpus::Real(d),
            Err(e) => Gpus::Absent(e.to_string()),
        })
    }

    /// As [`Gpus::open`], but a device list seen before is taken from `store` instead of
    /// starting the driver, which costs ~200 ms of `cuInit` on every no-op build. The entry is
    /// keyed by the driver's exact build and the GPUs it lists under `/proc/driver/nvidia`, and
    /// by the variables that select devices, so a new driver, GPU or `CUDA_VISIBLE_DEVICES` asks
    /// the driver again.
    pub fn open_remembered(store: &Store) -> Result<Self> {
        let key = simulated_spec().is_none().then(device_key_now).flatten();
        let Some(key) = key else {
            return Self::open();
        };
        if let Some(bytes) = store.get_local(DEVICES_NS, &key) {
            // A driver with no GPU visible (`CUDA_VISIBLE_DEVICES=`) is remembered as such.
            if let Some(why) = bytes.strip_prefix(b"!") {
                return Ok(Gpus::Absent(String::from_utf8_lossy(why).into_owned()));
            }
            if let Some(driver) = decode(&bytes) {
                return Ok(Gpus::Cached(driver));
            }
        }
        let gpus = Self::open()?;
        match &gpus {
            Gpus::Real(driver) => {
                let facts = query(driver, String::new());
                if let (None, Some(version)) = (&facts.problem, facts.version) {
                    let text = encode(version, &facts.gpus);
                    let _ = store.put_local(DEVICES_NS, &key, text.as_bytes());
                }
            }
            Gpus::Absent(why) if why.contains("CUDA_ERROR_NO_DEVICE") => {
                let _ = store.put_local(DEVICES_NS, &key, format!("!{why}").as_bytes());
            }
            _ => {}
        }
        Ok(gpus)
    }

    /// Driver version and GPUs.
    pub fn facts(&self) -> DriverFacts {
        match self {
            Gpus::Cached(driver) => query(
                driver,
                "libcuda (device list remembered for this driver and these GPUs)".into(),
            ),
            Gpus::Simulated { driver, spec } => {
                query(driver, format!("simulated by {SIM_VAR}={spec}"))
            }
            Gpus::Real(driver) => query(driver, "libcuda".into()),
            Gpus::Absent(why) => DriverFacts {
                source: "libcuda".into(),
                version: None,
                gpus: Vec::new(),
                problem: Some(why.clone()),
            },
        }
    }

    /// The compute capabilities of the visible GPUs (what `native` means).
    pub fn ccs(&self) -> Vec<ComputeCapability> {
        self.facts().gpus.iter().map(|g| g.cc).collect()
    }

    /// Preflight of `fatbin` on every GPU by a loader configured by the environment (and
    /// `policy`, when given): `None` without a driver or without a GPU.
    pub fn preflight(
        &self,
        fatbin: &FatBinary,
        policy: Option<Policy>,
    ) -> Result<Option<Preflight>> {
        match self {
            Gpus::Simulated { driver, .. } | Gpus::Cached(driver) => {
                preflight(driver, fatbin, policy)
            }
            Gpus::Real(driver) => preflight(driver, fatbin, policy),
            Gpus::Absent(_) => Ok(None),
        }
    }
}

/// The value of `ARCHBUILD_SIMULATED_GPUS` when it selects the simulated driver (set, not blank).
pub fn simulated_spec() -> Option<String> {
    Env::process().var(SIM_VAR)
}

fn preflight<D: Driver>(
    driver: D,
    fatbin: &FatBinary,
    policy: Option<Policy>,
) -> Result<Option<Preflight>> {
    let mut loader = Loader::from_env(driver)?;
    if let Some(p) = policy {
        loader = loader.policy(p);
    }
    if loader.driver().device_count()? == 0 {
        return Ok(None);
    }
    loader.preflight(fatbin).map(Some)
}

fn query<D: Driver>(driver: &D, source: String) -> DriverFacts {
    let mut facts = DriverFacts {
        source,
        version: None,
        gpus: Vec::new(),
        problem: None,
    };
    match driver.version() {
        Ok(v) => facts.version = Some(v),
        Err(e) => {
            facts.problem = Some(e.to_string());
            return facts;
        }
    }
    match driver.device_count() {
        Ok(n) => {
            for ordinal in 0..n {
                match driver.device(ordinal) {
                    Ok(d) => facts.gpus.push(d),
                    Err(e) => facts.problem = Some(e.to_string()),
                }
            }
        }
        Err(e) => facts.problem = Some(e.to_string()),
    }
    facts
}

/// The store namespace of remembered device lists.
const DEVICES_NS: &str = "devices";

/// The key of this machine's current device list; `None` when no NVIDIA driver is loaded
/// (nothing to remember: the driver is not started either).
fn device_key_now() -> Option<Key> {
    let version = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    // The GPUs the kernel module knows (absent in some VMs and containers) and the device
    // nodes: either changes when a GPU is added, removed or passed through differently.
    let listing = |dir: &str, keep: &dyn Fn(&str) -> bool| -> Vec<(String, String)> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        entries
            .filter_map(std::result::Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| keep(n))
            .map(|n| {
                let info = std::fs::read_to_string(Path::new(dir).join(&n).join("information"))
                    .unwrap_or_default();
                (n, info)
            })
            .collect()
    };
    let mut gpus = listing("/proc/driver/nvidia/gpus", &|_| true);
    gpus.extend(listing("/dev", &|n| {
        n.strip_prefix("nvidia")
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    }));
    gpus.sort();
    let vars = Env::process();
    let vars: Vec<(&str, String)> = [env::CUDA_VISIBLE_DEVICES, env::CUDA_DEVICE_ORDER]
        .into_iter()
        .map(|v| (v, vars.var(v).unwrap_or_default()))
        .collect();
    Some(device_key(&version, &gpus, &vars))
}

fn device_key(version: &str, gpus: &[(String, String)], vars: &[(&str, String)]) -> Key {
    let mut b = KeyBuilder::new("devices");
    b.str("driver", version);
    for (bus, info) in gpus {
        b.str("gpu", bus).str("information", info);
    }
    for (name, value) in vars {
        b.str(name, value);
    }
    b.finish()
}

/// `VERSION` then one `ORDINAL|MAJOR.MINOR|NAME` line per GPU.
fn encode(version: CudaVersion, gpus: &[DeviceProps]) -> String {
    let mut s = format!("{}.{}\n", version.major(), version.minor());
    for g in gpus {
        s.push_str(&format!("{}|{}|{}\n", g.ordinal, g.cc, g.name));
    }
    s
}

fn decode(bytes: &[u8]) -> Option<SimDriver> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut lines = text.lines();
    let version = parse_driver_version(lines.next()?)?;
    let mut driver = SimDriver::new(version);
    for line in lines {
        let mut parts = line.splitn(3, '|');
        let (_ordinal, cc, name) = (parts.next()?, parts.next()?, parts.next()?);
        driver = driver.with_named_gpu(name, parse_device_cc(cc)?);
    }
    Some(driver)
}

/// The simulated driver `spec` describes, in `ARCHBUILD_SIMULATED_GPUS`'s syntax (see the
/// module docs), parsed by `archbuild_arch::SimulatedGpus`, the parser the build's `native` uses
/// too; the error says what is wrong with which part.
pub fn parse_sim(spec: &str) -> std::result::Result<SimDriver, String> {
    let sim = SimulatedGpus::parse(spec, SIM_VAR).map_err(|e| match e {
        archbuild_arch::Error::SimulatedGpus { why, .. } => why,
        other => other.to_string(),
    })?;
    Ok(sim
        .gpus
        .iter()
        .fold(SimDriver::new(sim.driver), |driver, gpu| match &gpu.name {
            Some(name) => driver.with_named_gpu(name, gpu.cc),
            None => driver.with_gpu(gpu.cc.major, gpu.cc.minor),
        }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_device_list_round_trips_and_its_key_follows_what_selects_devices() {
        let gpus = vec![
            DeviceProps {
                ordinal: 0,
                name: "NVIDIA H100 80GB HBM3".into(),
                cc: ComputeCapability::new(9, 0),
            },
            DeviceProps {
                ordinal: 1,
                name: "NVIDIA GeForce RTX 3090".into(),
                cc: ComputeCapability::new(8, 6),
            },
        ];
        let driver = decode(encode(CudaVersion::new(13, 0), &gpus).as_bytes()).unwrap();
        assert_eq!(driver.version().unwrap(), CudaVersion::new(13, 0));
        assert_eq!(driver.device_count().unwrap(), 2);
        assert_eq!(driver.device(1).unwrap(), gpus[1]);
        let bus = vec![("0000:01:00.0".to_string(), "Model: H100".to_string())];
        let vars = |v: &str| vec![("CUDA_VISIBLE_DEVICES", v.to_string())];
        let k = device_key("NVRM 580.159.04", &bus, &vars(""));
        assert_eq!(k, device_key("NVRM 580.159.04", &bus, &vars("")));
        assert_ne!(
            k,
            device_key("NVRM 580.160.01", &bus, &vars("")),
            "a new driver"
        );
        assert_ne!(
            k,
            device_key("NVRM 580.159.04", &[], &vars("")),
            "a GPU gone"
        );
        assert_ne!(
            k,
            device_key("NVRM 580.159.04", &bus, &vars("1")),
            "other devices"
        );
    }

    #[test]
    fn sim_specs_parse() {
        let d = parse_sim("8.6,9.0@13000").unwrap();
        assert_eq!(d.version().unwrap(), CudaVersion::new(13, 0));
        assert_eq!(d.device_count().unwrap(), 2);
        assert_eq!(d.device(1).unwrap().cc, ComputeCapability::new(9, 0));
        let d = parse_sim("sm_75:My 2080; 86 @12.4").unwrap();
        assert_eq!(d.device(0).unwrap().name, "My 2080");
        assert_eq!(d.device(1).unwrap().cc, ComputeCapability::new(8, 6));
        assert_eq!(d.version().unwrap(), CudaVersion::new(12, 4));
        assert_eq!(parse_sim("@13.0").unwrap().device_count().unwrap(), 0);
    }

    /// The simulated driver shows the devices the build's `native` reads from the same text
    /// (`archbuild_arch::SimulatedGpus`; the build's side is `archbuild`'s
    /// `native::tests::native_is_the_simulated_gpus_read_through_the_env`), in every spelling.
    #[test]
    fn the_runtime_reads_the_simulated_gpus_as_the_build_does() {
        let cc = ComputeCapability::new;
        for (text, want) in [
            ("7.5,8.6@13000", vec![cc(7, 5), cc(8, 6)]),
            (" 86 ; sm_75:RTX 2080 ", vec![cc(8, 6), cc(7, 5)]),
            ("sm_90a:H100,8.9:RTX 4090@12.4", vec![cc(9, 0), cc(8, 9)]),
            ("12.0,12.0@13.1", vec![cc(12, 0), cc(12, 0)]),
            ("@13.0", vec![]),
        ] {
            let driver = parse_sim(text).unwrap();
            let n = driver.device_count().unwrap();
            let shown: Vec<_> = (0..n).map(|i| driver.device(i).unwrap().cc).collect();
            assert_eq!(shown, want, "{text}");
            let build = SimulatedGpus::parse(text, SIM_VAR).unwrap();
            assert_eq!(build.ccs(), shown, "{text}");
            assert_eq!(driver.version().unwrap(), build.driver, "{text}");
        }
    }

    #[test]
    fn a_bad_spec_is_an_error_naming_the_fix() {
        let why = parse_sim("8.6x").unwrap_err();
        let msg = Error::SimulatedGpus {
            spec: "8.6x".into(),
            why,
        }
        .to_string();
        assert!(
            msg.starts_with("invalid ARCHBUILD_SIMULATED_GPUS `8.6x`: `8.6x` is not a compute"),
            "{msg}"
        );
        assert!(msg.ends_with("or unset ARCHBUILD_SIMULATED_GPUS to use the real driver"));
    }

    #[test]
    fn bad_sim_specs_say_what_is_wrong() {
        assert!(parse_sim("8.6x").unwrap_err().contains("`8.6x`"));
        assert!(parse_sim("8.6@13").unwrap_err().contains("13000"));
        assert!(parse_sim("8.6@abc").is_err());
    }
}
