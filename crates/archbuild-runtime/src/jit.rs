//! Compiling PTX at load time: who compiles it ([`JitPreference`]), nvJitLink ([`NvJitLink`],
//! found by [`discover_nvjitlink`] among [`nvjitlink_candidates`]), and archbuild's persistent,
//! verified cache of the cubins ([`JitCache`], keyed by [`CacheKey`]).

pub use crate::cache::{CacheKey, JitCache, Lookup, Rejection, DEFAULT_MAX_BYTES};
pub use crate::loader::JitPreference;
pub use crate::locate::{candidates as nvjitlink_candidates, discover as discover_nvjitlink};
pub use crate::nvjitlink::{NvJitLink, PARALLEL_PTXAS};
