//! Cache keys: 256-bit hashes built from labelled, length-prefixed fields, so `("ab", "c")` and
//! `("a", "bc")` never collide, and every input that shapes an output can be named in its key.

/// A 256-bit cache key (or content hash).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key(pub [u8; 32]);

impl Key {
    /// The key as 64 lowercase hex digits.
    pub fn hex(&self) -> String {
        use std::fmt::Write;
        let mut text = String::with_capacity(64);
        for b in self.0 {
            let _ = write!(text, "{b:02x}");
        }
        text
    }

    /// The BLAKE3 hash of some bytes.
    pub fn of(bytes: &[u8]) -> Self {
        Key(*blake3::hash(bytes).as_bytes())
    }

    /// Parses 64 hex digits (either case); `None` for anything else.
    pub fn from_hex(text: &str) -> Option<Self> {
        let digits = text.as_bytes();
        if digits.len() != 64 || !digits.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        let mut out = [0u8; 32];
        for (byte, pair) in out.iter_mut().zip(digits.chunks_exact(2)) {
            // Two ASCII hex digits: valid UTF-8 and a valid base-16 number.
            *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
        }
        Some(Key(out))
    }
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Key({})", &self.hex()[..16])
    }
}

/// Builds a key from labelled, length-prefixed fields.
#[derive(Clone)]
pub struct KeyBuilder(blake3::Hasher);

impl KeyBuilder {
    /// A builder for keys of one kind (`cicc`, `ptxas`, `jit`, ...): keys of different kinds
    /// never collide.
    pub fn new(kind: &str) -> Self {
        let mut b = Self(blake3::Hasher::new());
        b.field("archbuild-key-v3", kind.as_bytes());
        b
    }

    pub fn field(&mut self, label: &str, value: &[u8]) -> &mut Self {
        for part in [label.as_bytes(), value] {
            self.0.update(&(part.len() as u64).to_le_bytes());
            self.0.update(part);
        }
        self
    }

    pub fn str(&mut self, label: &str, value: &str) -> &mut Self {
        self.field(label, value.as_bytes())
    }

    pub fn key(&mut self, label: &str, value: &Key) -> &mut Self {
        self.field(label, &value.0)
    }

    pub fn finish(&self) -> Key {
        Key(*self.0.finalize().as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_refuses_what_is_not_64_hex_digits() {
        let k = Key::of(b"archbuild");
        let text = k.hex();
        assert_eq!(text.len(), 64);
        assert!(text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
        assert_eq!(Key::from_hex(&text), Some(k));
        assert_eq!(Key::from_hex(&text.to_uppercase()), Some(k));
        assert_eq!(Key([0xa5; 32]).hex(), "a5".repeat(32));
        for bad in [
            String::new(),
            text[..62].to_owned(),
            format!("{text}00"),
            format!("+f{}", &text[2..]),
            format!("{}g", &text[..63]),
            format!("{}é", &text[..62]),
        ] {
            assert_eq!(Key::from_hex(&bad), None, "{bad}");
        }
    }

    #[test]
    fn fields_are_unambiguous() {
        let a = KeyBuilder::new("t").str("x", "ab").str("y", "c").finish();
        let b = KeyBuilder::new("t").str("x", "a").str("y", "bc").finish();
        assert_ne!(a, b);
        assert_eq!(
            a,
            KeyBuilder::new("t").str("x", "ab").str("y", "c").finish()
        );
    }

    #[test]
    fn hex_round_trips() {
        let k = Key::of(b"x");
        assert_eq!(Key::from_hex(&k.hex()), Some(k));
        assert_eq!(Key::from_hex("zz"), None);
    }
}
