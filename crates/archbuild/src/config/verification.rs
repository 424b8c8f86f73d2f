//! Which cache hits a build compiles again to prove its key (`ARCHBUILD_VERIFY`,
//! `Build::verify`): a share of them, chosen by each output's key so a rerun checks the same
//! jobs. The check itself is the job runner's (`jobs/verify.rs`).

use crate::base::store::Key;
use crate::error::{Error, Result};

/// The variable, and what it accepts.
pub(crate) const VERIFY_VAR: &str = "ARCHBUILD_VERIFY";
const ACCEPTED: &str = "`all`, `off`, or a fraction of cache hits to verify between 0 and 1 \
                        (`0.01`) or as a percentage (`1%`)";

/// Which hits to verify: a fraction of them, by key.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Verify {
    fraction: f64,
}

impl Verify {
    pub(crate) fn parse(value: &str, origin: &str) -> Result<Self> {
        let v = value.trim().to_ascii_lowercase();
        let fraction = match v.as_str() {
            "all" | "on" | "1" | "true" | "yes" => Some(1.0),
            "off" | "0" | "false" | "no" | "none" => Some(0.0),
            _ => match v.strip_suffix('%') {
                Some(p) => p.trim().parse::<f64>().ok().map(|p| p / 100.0),
                None => v.parse::<f64>().ok(),
            },
        };
        match fraction {
            Some(f) if (0.0..=1.0).contains(&f) => Ok(Self { fraction: f }),
            _ => Err(Error::Config {
                what: "verification setting",
                origin: origin.to_owned(),
                value: value.to_owned(),
                hint: format!("use {ACCEPTED}"),
            }),
        }
    }

    /// Whether the hit stored under `key` is in the sample.
    pub(crate) fn samples(&self, key: &Key) -> bool {
        if self.fraction >= 1.0 {
            return true;
        }
        let x = u64::from_le_bytes(key.0[..8].try_into().unwrap_or_default());
        (x as f64 / u64::MAX as f64) < self.fraction
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_accepted_form_and_names_them_when_wrong() {
        assert!(Verify::parse("all", "x").unwrap().samples(&Key::of(b"a")));
        assert_eq!(Verify::parse("off", "x").unwrap().fraction, 0.0);
        assert_eq!(Verify::parse("1%", "x").unwrap().fraction, 0.01);
        assert_eq!(Verify::parse("0.25", "x").unwrap().fraction, 0.25);
        let e = Verify::parse("sometimes", VERIFY_VAR)
            .unwrap_err()
            .to_string();
        assert!(e.contains("ARCHBUILD_VERIFY") && e.contains("`all`"), "{e}");
        assert!(Verify::parse("1.5", "x").is_err());
    }

    #[test]
    fn a_fraction_samples_about_that_share_of_keys() {
        let v = Verify::parse("0.25", "x").unwrap();
        let n = (0..4000u32)
            .filter(|i| v.samples(&Key::of(&i.to_le_bytes())))
            .count();
        assert!((800..1200).contains(&n), "{n} of 4000");
    }
}
