//! Preflight for mixed machines: one call checks every visible GPU against a fat binary and
//! says, per GPU, which image it will use and how, or the error (with its fix) that loading
//! would fail with. Nothing is compiled or loaded, so it is cheap enough for program start.

use crate::backend::Driver;
use crate::error::{Error, Result};
use crate::fatbinary::FatBinary;
use crate::loader::Loader;
use crate::report::{GpuCheck, Preflight};

impl<D: Driver> Loader<D> {
    /// Checks every visible GPU. Fails only when the driver itself fails or sees no GPU; the
    /// per-GPU verdicts are in the result ([`Preflight::ensure`] turns failures into an error).
    pub fn preflight(&self, fatbin: &FatBinary) -> Result<Preflight> {
        let driver = self.driver.version()?;
        let count = self.driver.device_count()?;
        if count == 0 {
            return Err(Error::NoDevice {
                detail: "the driver reports 0 GPUs".into(),
            });
        }
        let mut gpus = Vec::with_capacity(count);
        for ordinal in 0..count {
            let dev = self.driver.device(ordinal)?;
            let (selection, plan) = self.plan_for(fatbin, &dev, driver);
            let outcome = plan.map(|(p, _)| p);
            let variants = match &outcome {
                Ok(p) => crate::pick::choose_all(fatbin, p.image_index)?,
                Err(_) => Vec::new(),
            };
            gpus.push(GpuCheck {
                ordinal,
                device_name: dev.name,
                cc: dev.cc,
                outcome,
                selection,
                variants,
            });
        }
        Ok(Preflight { driver, gpus })
    }
}
