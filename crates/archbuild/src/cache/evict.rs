//! The build cache's size cap (`ARCHBUILD_CACHE_MAX_BYTES`, default 2 GiB), applied once per
//! build after every fat binary is packed, by the store's least-recently-used eviction
//! (`archbuild_store::Store::evict`, which spares this build's entries and anything used since
//! it started). `cargo archbuild cache` sees the build cache as a [`CacheDir`] ([`cache_dir`]).

use std::time::SystemTime;

use archbuild_store::CacheDir;

use crate::base::env::Env;
use crate::base::paths::Home;
use crate::base::store::Store;
use crate::error::{Error, Result};
use crate::report::CacheEviction;

/// The variable holding the cap.
pub(crate) const MAX_BYTES_VAR: &str = "ARCHBUILD_CACHE_MAX_BYTES";

/// Default cap: 2 GiB, room for the targets of several projects and toolkit releases (a
/// 5-target build of a large kernel file is ~15 MB).
const DEFAULT_MAX_BYTES: u64 = 2 << 30;
/// The build cache's size cap in bytes: `ARCHBUILD_CACHE_MAX_BYTES` (`512M`, `2G`, bytes; blank
/// or unset: 2 GiB). After each build that stored something, the least recently used entries
/// beyond it are removed (see `docs/build.md`).
pub fn max_bytes(env: &Env) -> Result<u64> {
    let Some(value) = env.var(MAX_BYTES_VAR) else {
        return Ok(DEFAULT_MAX_BYTES);
    };
    parse_size(&value).ok_or_else(|| Error::Config {
        what: "build cache size cap",
        origin: MAX_BYTES_VAR.to_owned(),
        value,
        hint: "use a number of bytes with an optional K, M, G or T suffix (powers of 1024), \
               such as `1500000`, `512M`, `1.5G` or `2GiB`, or unset it for the default of 2G"
            .into(),
    })
}

pub(crate) use archbuild_config::parse_size;

/// The build cache as `cargo archbuild cache` manages it, through the store's one
/// cache-directory interface (the JIT cache's too): its directory and its cap
/// ([`max_bytes`]).
pub fn cache_dir(home: &Home, env: &Env) -> Result<CacheDir> {
    Ok(CacheDir::new("build", home.cache_dir(), max_bytes(env)?))
}

/// Removes leftover temp files, then least recently used entries until the store fits
/// `max_bytes`, sparing what `store` read or wrote and anything used since `since`.
pub(crate) fn evict(store: &Store, max_bytes: u64, since: SystemTime) -> CacheEviction {
    let e = store.evict(max_bytes, since);
    CacheEviction {
        entries: e.entries,
        bytes: e.bytes,
        cap: e.cap,
        remaining: e.remaining,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_bad_ones_are_refused() {
        let cases = [
            ("1500000", 1_500_000),
            ("0", 0),
            ("512M", 512 << 20),
            (" 2g ", 2 << 30),
            ("64k", 64 << 10),
            ("512 MiB", 512 << 20),
            ("3GB", 3 << 30),
            ("1T", 1 << 40),
            ("10b", 10),
            ("1.5G", 3 << 29),
            ("1e9", 1_000_000_000),
        ];
        for (text, want) in cases {
            assert_eq!(parse_size(text), Some(want), "{text}");
        }
        for bad in [
            "",
            "M",
            "ib",
            "12X",
            "-5",
            "+5",
            "2 G B",
            "G2",
            "20000000T",
            "99999999999999999999",
        ] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_build_cache_dir_is_the_homes_with_its_cap() {
        let env = Env::from_vars([("ARCHBUILD_CACHE_DIR", "/c"), (MAX_BYTES_VAR, "512M")]);
        let dir = cache_dir(&Home::from_env(&env), &env).unwrap();
        assert_eq!(
            (dir.name(), dir.dir(), dir.max_bytes()),
            ("build", std::path::Path::new("/c"), 512 << 20)
        );
    }

    #[test]
    fn cap_from_the_environment_and_its_error() {
        assert_eq!(max_bytes(&Env::from_vars([("X", "1")])).unwrap(), 2 << 30);
        let blank = Env::from_vars([(MAX_BYTES_VAR, " ")]);
        assert_eq!(max_bytes(&blank).unwrap(), DEFAULT_MAX_BYTES);
        assert_eq!(blank.read_names(), [MAX_BYTES_VAR]);
        let set = Env::from_vars([(MAX_BYTES_VAR, "512M")]);
        assert_eq!(max_bytes(&set).unwrap(), 512 << 20);
        let err = max_bytes(&Env::from_vars([(MAX_BYTES_VAR, "lots")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid build cache size cap in ARCHBUILD_CACHE_MAX_BYTES: `lots`; use a number \
             of bytes with an optional K, M, G or T suffix (powers of 1024), such as \
             `1500000`, `512M`, `1.5G` or `2GiB`, or unset it for the default of 2G"
        );
    }
}
