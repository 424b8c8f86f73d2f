//! The words every archbuild switch and size accepts, in one place, so `ARCHBUILD_CACHE=none`
//! and `ARCHBUILD_JIT_CACHE=none` mean the same thing.

/// The spellings of "disabled": `off`, `0`, `false`, `no`, `none` (any case, trimmed).
pub fn is_off(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "off" | "0" | "false" | "no" | "none"
    )
}

/// The spellings of "enabled": `on`, `1`, `true`, `yes` (any case, trimmed).
pub fn is_on(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "on" | "1" | "true" | "yes"
    )
}

/// A size: a number, then optionally a unit `K`, `M`, `G`, `T` (any case, powers of 1024; `B`
/// or `iB` may follow, a space may precede), e.g. `512M`, `2GiB`, `1.5G`. `None` for anything
/// else or on overflow. Parsed by the `parse-size` crate.
pub fn parse_size(text: &str) -> Option<u64> {
    parse_size::Config::new()
        .with_binary()
        .parse_size(text.trim())
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_vocabulary_for_switches() {
        for v in ["off", "OFF", "0", "false", "no", "none", " None "] {
            assert!(is_off(v) && !is_on(v), "{v}");
        }
        for v in ["on", "1", "TRUE", "yes"] {
            assert!(is_on(v) && !is_off(v), "{v}");
        }
        assert!(!is_off("/tmp/cache") && !is_on("/tmp/cache"));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1048576"), Some(1 << 20));
        assert_eq!(parse_size("512K"), Some(512 << 10));
        assert_eq!(parse_size("256 MiB"), Some(256 << 20));
        assert_eq!(parse_size("2g"), Some(2 << 30));
        assert_eq!(parse_size("2GB"), Some(2 << 30));
        assert_eq!(parse_size("1.5G"), Some(3 << 29));
        for bad in ["", "M", "12X", "-5", "99999999999999999999"] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }
}
