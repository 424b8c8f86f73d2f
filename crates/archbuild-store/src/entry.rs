//! The one entry format of both caches, local and remote: `magic | key | blake3(payload) |
//! length | payload`. (BLAKE3 rather than SHA-256: verifying a 2.3 MB cubin on every cache hit
//! is most of a hit's cost.) Binding the key into the entry makes a swapped entry (another key's
//! content under this name, by a bug, a rename or a hostile peer) as detectable as a torn or
//! bit-flipped one, so nothing unverified is ever served.

use crate::key::Key;

/// Bytes before the payload.
pub const HEADER: usize = 8 + 32 + 32 + 8;

/// Encodes `payload` as the entry for `key`.
pub fn encode(magic: &[u8; 8], key: &Key, payload: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(HEADER + payload.len());
    bytes.extend_from_slice(magic);
    bytes.extend_from_slice(&key.0);
    bytes.extend_from_slice(blake3::hash(payload).as_bytes());
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(payload);
    bytes
}

/// Why an entry was not served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    Truncated { len: usize },
    BadMagic,
    OtherKey,
    Length { header: u64, actual: u64 },
    Checksum,
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rejection::Truncated { len } => write!(
                f,
                "truncated entry ({len} bytes, the header alone is {HEADER})"
            ),
            Rejection::BadMagic => f.write_str("not an archbuild cache entry (bad magic)"),
            Rejection::OtherKey => {
                f.write_str("entry belongs to another key (swapped or renamed entry)")
            }
            Rejection::Length { header, actual } => write!(
                f,
                "truncated or padded entry ({actual} payload bytes, the header says {header})"
            ),
            Rejection::Checksum => f.write_str("checksum mismatch (corrupted entry)"),
        }
    }
}

/// The payload of `bytes` if it is a whole, intact entry for `key`.
pub fn verify<'a>(magic: &[u8; 8], key: &Key, bytes: &'a [u8]) -> Result<&'a [u8], Rejection> {
    if bytes.len() < HEADER {
        return Err(Rejection::Truncated { len: bytes.len() });
    }
    if &bytes[..8] != magic {
        return Err(Rejection::BadMagic);
    }
    if bytes[8..40] != key.0 {
        return Err(Rejection::OtherKey);
    }
    let header = u64::from_le_bytes(bytes[72..80].try_into().expect("8 bytes"));
    let payload = &bytes[HEADER..];
    if payload.len() as u64 != header {
        return Err(Rejection::Length {
            header,
            actual: payload.len() as u64,
        });
    }
    if blake3::hash(payload).as_bytes()[..] != bytes[40..72] {
        return Err(Rejection::Checksum);
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: &[u8; 8] = b"TESTMAG1";

    #[test]
    fn every_kind_of_damage_is_rejected() {
        let k = Key::of(b"k");
        let e = encode(M, &k, b"payload");
        assert_eq!(verify(M, &k, &e), Ok(&b"payload"[..]));
        assert_eq!(verify(M, &Key::of(b"other"), &e), Err(Rejection::OtherKey));
        assert_eq!(verify(b"OTHERMAG", &k, &e), Err(Rejection::BadMagic));
        let mut flipped = e.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(verify(M, &k, &flipped), Err(Rejection::Checksum));
        assert!(matches!(
            verify(M, &k, &e[..e.len() - 1]),
            Err(Rejection::Length { .. })
        ));
        assert!(matches!(
            verify(M, &k, &e[..10]),
            Err(Rejection::Truncated { .. })
        ));
    }
}
