//! Where archbuild keeps its files, derived once for every crate: `ARCHBUILD_HOME` when set
//! (blank counts as unset), else the platform cache directory + `archbuild`
//! (`~/.cache/archbuild` on Linux). The build cache (`cache/`), provisioned toolkits
//! (`toolkits/`) and the JIT cache (`jit/`) live under it unless their own variables move them.

use std::path::PathBuf;

/// The variable naming archbuild's home.
pub const HOME_VAR: &str = "ARCHBUILD_HOME";

/// The variables behind the platform's cache directory, read through the caller's reader:
/// `XDG_CACHE_HOME` and `HOME` (Unix), `LOCALAPPDATA` (Windows).
pub const CACHE_DIR_VARS: [&str; 3] = ["XDG_CACHE_HOME", "HOME", "LOCALAPPDATA"];

/// The home, reading `ARCHBUILD_HOME` and the [`CACHE_DIR_VARS`] through `var` (the caller's
/// environment reader; blank counts as unset); `None` only when the variable is unset and the
/// platform has no cache directory.
pub fn home_dir(var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    match var(HOME_VAR).filter(|v| !v.trim().is_empty()) {
        Some(v) => Some(PathBuf::from(v.trim())),
        None => cache_dir(var).map(|d| d.join("archbuild")),
    }
}

/// The platform's cache directory, as the XDG base directory specification and each system
/// define it: `$XDG_CACHE_HOME` when absolute, else `~/.cache` (Linux and other Unix);
/// `~/Library/Caches` (macOS); `%LOCALAPPDATA%` (Windows).
pub fn cache_dir(var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let absolute = |v: Option<String>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    if cfg!(windows) {
        return absolute(var("LOCALAPPDATA"));
    }
    if cfg!(target_os = "macos") {
        return user_home(var).map(|h| h.join("Library/Caches"));
    }
    absolute(var("XDG_CACHE_HOME")).or_else(|| user_home(var).map(|h| h.join(".cache")))
}

/// The user's home directory: `HOME` when absolute, else what the system says (std's
/// `home_dir`: the password database on Unix, the profile directory on Windows).
pub fn user_home(var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    var("HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(std::env::home_dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_variable_wins_and_blank_means_unset() {
        let set = [(HOME_VAR, "/srv/ab"), ("HOME", "/srv/u")];
        assert_eq!(home_dir(vars(&set)), Some(PathBuf::from("/srv/ab")));
        let blank = [(HOME_VAR, "  "), ("HOME", "/srv/u")];
        assert_eq!(
            home_dir(vars(&blank)),
            home_dir(vars(&[("HOME", "/srv/u")]))
        );
    }

    #[cfg(all(unix, not(target_os = "macos")))]
    #[test]
    fn the_cache_directory_follows_xdg_and_ignores_a_relative_value() {
        let home = [("HOME", "/srv/u")];
        assert_eq!(
            home_dir(vars(&home)),
            Some(PathBuf::from("/srv/u/.cache/archbuild"))
        );
        let xdg = [("HOME", "/srv/u"), ("XDG_CACHE_HOME", "/var/cache/u")];
        assert_eq!(
            home_dir(vars(&xdg)),
            Some(PathBuf::from("/var/cache/u/archbuild"))
        );
        let relative = [("HOME", "/srv/u"), ("XDG_CACHE_HOME", "cache")];
        assert_eq!(
            home_dir(vars(&relative)),
            Some(PathBuf::from("/srv/u/.cache/archbuild"))
        );
    }
}
