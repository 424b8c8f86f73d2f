//! Where archbuild keeps its files, derived once for every crate: `ARCHBUILD_HOME` when set
//! (blank counts as unset), else the platform cache directory + `archbuild`
//! (`~/.cache/archbuild` on Linux). The build cache (`cache/`), provisioned toolkits
//! (`toolkits/`) and the JIT cache (`jit/`) live under it unless their own variables move them.

use std::path::PathBuf;

/// The variable naming archbuild's home.
pub const HOME_VAR: &str = "ARCHBUILD_HOME";

/// The home for `value`, the content of `ARCHBUILD_HOME` (read by the caller, through its own
/// environment reader); `None` only when the variable is unset and the platform has no cache
/// directory.
pub fn home_dir(value: Option<&str>) -> Option<PathBuf> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) => Some(PathBuf::from(v)),
        None => dirs::cache_dir().map(|d| d.join("archbuild")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_wins_and_blank_means_unset() {
        assert_eq!(home_dir(Some("/srv/ab")), Some(PathBuf::from("/srv/ab")));
        assert_eq!(home_dir(Some("  ")), home_dir(None));
        if let Some(cache) = dirs::cache_dir() {
            assert_eq!(home_dir(None), Some(cache.join("archbuild")));
        }
    }
}
