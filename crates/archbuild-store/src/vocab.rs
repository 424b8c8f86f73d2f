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

/// A size: digits, then optionally `K`, `M`, `G` or `T` (any case, powers of 1024; `B` or `iB`
/// may follow, a space may precede). `None` for anything else or on overflow.
pub fn parse_size(text: &str) -> Option<u64> {
    let lower = text.trim().to_ascii_lowercase();
    let digits = lower
        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .trim_end();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let unit = lower[digits.len()..].trim_start();
    let prefix = unit
        .strip_suffix("ib")
        .or_else(|| unit.strip_suffix('b'))
        .unwrap_or(unit);
    let power = ["", "k", "m", "g", "t"].iter().position(|p| *p == prefix)?;
    digits
        .parse::<u64>()
        .ok()?
        .checked_mul(1024u64.checked_pow(power as u32)?)
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
        for bad in ["", "M", "12X", "-5", "1.5G", "99999999999999999999"] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }
}
