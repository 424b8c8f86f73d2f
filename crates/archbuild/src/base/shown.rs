//! A TOML value as an error message quotes it: in TOML's own syntax, so the message shows
//! what the author wrote (`"8.0"` for a string, `[8.0]` for an array), without the `toml`
//! crate's writer, which would be one more crate for every dependent to compile.

use std::fmt;

/// Displays a [`toml::Value`] in TOML syntax, inline.
pub(crate) struct Shown<'a>(pub(crate) &'a toml::Value);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            toml::Value::String(s) => quoted(s, f),
            toml::Value::Integer(i) => write!(f, "{i}"),
            toml::Value::Float(x) if x.is_nan() => f.write_str("nan"),
            toml::Value::Float(x) if x.is_infinite() => {
                f.write_str(if *x > 0.0 { "inf" } else { "-inf" })
            }
            // Debug keeps TOML's float forms: `8.0` (not Display's `8`), `1e20`.
            toml::Value::Float(x) => write!(f, "{x:?}"),
            toml::Value::Boolean(b) => write!(f, "{b}"),
            toml::Value::Datetime(d) => write!(f, "{d}"),
            toml::Value::Array(items) => {
                f.write_str("[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", Shown(v))?;
                }
                f.write_str("]")
            }
            toml::Value::Table(t) => {
                if t.is_empty() {
                    return f.write_str("{}");
                }
                f.write_str("{ ")?;
                for (i, (k, v)) in t.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    let bare = !k.is_empty()
                        && k.bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
                    if bare {
                        f.write_str(k)?;
                    } else {
                        quoted(k, f)?;
                    }
                    write!(f, " = {}", Shown(v))?;
                }
                f.write_str(" }")
            }
        }
    }
}

/// A TOML basic string: `"` and `\` escaped, control characters as `\uXXXX` or their short
/// escapes.
fn quoted(s: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_str("\"")?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\t' => f.write_str("\\t")?,
            '\r' => f.write_str("\\r")?,
            c if c.is_control() => write!(f, "\\u{:04X}", c as u32)?,
            c => write!(f, "{c}")?,
        }
    }
    f.write_str("\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(text: &str) -> String {
        let t: toml::Table = format!("v = {text}").parse().unwrap();
        Shown(&t["v"]).to_string()
    }

    #[test]
    fn values_read_back_as_they_were_written() {
        for text in [
            "\"8.0\"",
            "\"a \\\"quoted\\\" \\\\ word\\n\"",
            "80",
            "-3",
            "8.0",
            "8.5",
            "1e20",
            "inf",
            "-inf",
            "nan",
            "true",
            "1979-05-27T07:32:00Z",
            "[8.0, \"9.0\", [1]]",
            "[]",
            "{}",
            "{ pypi = \"nvidia-cutlass\", version = 4 }",
            "{ \"a b\" = 1 }",
        ] {
            let out = shown(text);
            assert_eq!(out, text, "{text}");
            // And it parses back to the same value.
            let back: toml::Table = format!("v = {out}").parse().unwrap();
            let orig: toml::Table = format!("v = {text}").parse().unwrap();
            if text != "nan" {
                assert_eq!(back, orig, "{text}");
            }
        }
    }
}
