//! Optional serde support (feature `serde`). Each type serializes as the string a user writes
//! and tools print, so config files and JSON reports stay readable: an [`ArchList`] as its
//! canonical form (`"7.5 8.6 8.9+PTX"`), a [`Target`] as its nvcc name (`"sm_86"`), a
//! [`Policy`] as its name (`"prefer-cubin"`). Deserializing parses with the same rules and
//! errors as everywhere else (no devices, no toolkit: `native`/`all` are rejected).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::cc::{ComputeCapability, Target};
use crate::list::ArchList;
use crate::select::Policy;

impl Serialize for ArchList {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ArchList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?.parse().map_err(D::Error::custom)
    }
}

/// A compute capability as its dotted form (`"8.6"`).
impl Serialize for ComputeCapability {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl Serialize for Target {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Target {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Target::parse_nvcc_name(&s).ok_or_else(|| {
            D::Error::custom(format!(
                "unknown target `{s}`: use an nvcc name such as `sm_86`, `sm_90a` or `compute_89`"
            ))
        })
    }
}

impl Serialize for Policy {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Policy {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?.parse().map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_round_trip_through_json() {
        let list: ArchList = "8.9+PTX 7.5 sm_86".parse().unwrap();
        let json = serde_json::to_string(&list).unwrap();
        assert_eq!(json, r#""7.5 8.6 8.9+PTX""#);
        assert_eq!(serde_json::from_str::<ArchList>(&json).unwrap(), list);
        let t = Target::parse_nvcc_name("compute_90a").unwrap();
        assert_eq!(serde_json::to_string(&t).unwrap(), r#""compute_90a""#);
        assert_eq!(
            serde_json::from_str::<Target>(r#""compute_90a""#).unwrap(),
            t
        );
        assert_eq!(
            serde_json::to_string(&Policy::ForcePtx).unwrap(),
            r#""force-ptx""#
        );
        let e = serde_json::from_str::<ArchList>(r#""Amper""#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("did you mean `Ampere`"), "{e}");
        assert!(serde_json::from_str::<Target>(r#""sm86""#).is_err());
        assert!(serde_json::from_str::<Policy>(r#""fast""#).is_err());
    }
}
