//! Signed remote entries: proof of who wrote an entry, not only that it is intact. The entry
//! format's checksum (`entry`) catches damage, but whoever can write to a shared cache can also
//! compute it, so without signatures any holder of the Redis password, the bucket's write
//! permission or the shared directory could plant any cubin (or host object, linked into the
//! user's program) under a valid key. With a key configured (`archbuild_config::Signing`: an
//! HMAC-SHA256 shared secret, or ed25519, where readers hold the public key alone), every
//! remote entry is signed by its writer and refused by readers unless the signature verifies.
//!
//! A signed remote object is the local entry followed by a trailer:
//! `entry (magic | key | XXH3-128 | len | payload) | signature | tag (8)`, the signature being
//! HMAC-SHA256's 32 bytes (tag `ABSIGHS1`) or ed25519's 64 (tag `ABSIGED1`). It is a trailer
//! so that what remains once the signature is checked is exactly a local entry, verified as
//! every entry is (key, length, checksum) and kept locally as it is.
//!
//! What is signed is the BLAKE3 digest of a domain string, the tag, the object's remote path
//! (`<namespace>/<name>`) and the whole entry: the signature binds the payload itself (the
//! checksum is no cryptographic hash, so signing the header alone would let a forger swap in a
//! payload of equal XXH3), the key (in the header and the name) and the namespace, so a signed
//! entry copied to another key's or namespace's path is refused. BLAKE3 first, because it hashes
//! a multi-megabyte cubin several times faster than SHA-256 or ed25519's SHA-512 would, and a
//! JIT cache hit's cost is mostly hashing; it is collision resistant, as the cache keys already
//! assume.
//!
//! Signed entries live at their own paths: the name hashes the scheme and the key's identity
//! (the ed25519 public key, or an HMAC of a fixed string under the shared secret) with the entry
//! magic and key. Unsigned writers, writers of the other scheme, and writers with another key
//! sharing a remote therefore never meet at one path, where each would overwrite the other's
//! entries and the readers of each would refuse the other's forever (a warning per entry, and
//! an upload war); turning signing on starts from a cold cache instead of from a warning per
//! old entry, and a rotated key does the same. A forger who writes at a signed path gains
//! nothing: the reader refuses the object (one warning) and compiles.

use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use hmac::{Hmac, KeyInit, Mac};

use crate::entry;
use crate::key::Key;
use archbuild_config::Signing;

type HmacSha256 = Hmac<sha2::Sha256>;

const HMAC_TAG: &[u8; 8] = b"ABSIGHS1";
const ED25519_TAG: &[u8; 8] = b"ABSIGED1";
const TAG: usize = 8;

/// Why a remote object was refused before its entry was looked at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No signature trailer at all (an unsigned writer's entry, or a forger's).
    Unsigned,
    /// A trailer of the other scheme.
    OtherScheme {
        found: &'static str,
        expected: &'static str,
    },
    /// A trailer whose signature does not verify for this path and entry under this key.
    BadSignature { scheme: &'static str },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Unsigned => f.write_str("unsigned entry, and this remote requires signatures"),
            Refusal::OtherScheme { found, expected } => write!(
                f,
                "entry signed with {found}, and this machine verifies {expected} signatures"
            ),
            Refusal::BadSignature { scheme } => write!(
                f,
                "its {scheme} signature does not verify (signed with another key, or for \
                 another key or namespace)"
            ),
        }
    }
}

/// The two schemes: the trailer's tag, the signature's length, the name in messages.
fn scheme(signing: &Signing) -> Option<(&'static [u8; 8], usize, &'static str)> {
    if signing.hmac_key().is_some() {
        Some((HMAC_TAG, 32, "hmac-sha256"))
    } else if signing.ed25519_public().is_some() {
        Some((ED25519_TAG, 64, "ed25519"))
    } else {
        None
    }
}

fn hmac(key: &[u8]) -> Option<HmacSha256> {
    // HMAC takes keys of any length; `None` is unreachable, and no reason to panic.
    HmacSha256::new_from_slice(key).ok()
}

/// Who signs: the ed25519 public key, or HMAC of a fixed string under the secret (which shows
/// nothing of it, and differs for every secret).
fn identity(signing: &Signing) -> Vec<u8> {
    if let Some(key) = signing.hmac_key() {
        hmac(key)
            .map(|mut m| {
                m.update(b"archbuild remote cache key identity");
                m.finalize().into_bytes().to_vec()
            })
            .unwrap_or_default()
    } else if let Some(public) = signing.ed25519_public() {
        public.as_bytes().to_vec()
    } else {
        Vec::new()
    }
}

/// The remote path of `key`'s entry in namespace `ns`: the local entry's name when unsigned, a
/// name of the scheme and key's own when signed (see the module docs).
pub(crate) fn path(signing: &Signing, magic: &[u8; 8], ns: &str, key: &Key) -> String {
    let Some((tag, _, _)) = scheme(signing) else {
        return format!("{ns}/{}", entry::name(magic, key));
    };
    let mut h = blake3::Hasher::new();
    h.update(b"archbuild-signed-entry-name\0");
    h.update(tag);
    h.update(&identity(signing));
    h.update(magic);
    h.update(&key.0);
    format!("{ns}/{}", h.finalize().to_hex())
}

/// What is signed: the scheme, the path and the whole entry.
fn digest(tag: &[u8; 8], path: &str, entry: &[u8]) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(b"archbuild-signed-entry-v1\0");
    h.update(tag);
    h.update(&(path.len() as u64).to_le_bytes());
    h.update(path.as_bytes());
    h.update(entry);
    *h.finalize().as_bytes()
}

/// `entry` with its signature for `path`, or `None` when this machine cannot sign (no key, or
/// a public key alone).
pub(crate) fn seal(signing: &Signing, path: &str, entry: &[u8]) -> Option<Vec<u8>> {
    let (tag, _, _) = scheme(signing)?;
    let d = digest(tag, path, entry);
    let signature = if let Some(key) = signing.hmac_key() {
        let mut m = hmac(key)?;
        m.update(&d);
        m.finalize().into_bytes().to_vec()
    } else {
        let secret: &SigningKey = signing.ed25519_secret()?;
        secret.sign(&d).to_bytes().to_vec()
    };
    let mut out = Vec::with_capacity(entry.len() + signature.len() + TAG);
    out.extend_from_slice(entry);
    out.extend_from_slice(&signature);
    out.extend_from_slice(tag);
    Some(out)
}

/// The entry inside `object` (read at `path`) if its signature verifies; `object` itself when
/// entries are not signed. The entry still has to be verified (`entry::verify`).
pub(crate) fn open<'a>(
    signing: &Signing,
    path: &str,
    object: &'a [u8],
) -> Result<&'a [u8], Refusal> {
    let Some((tag, len, name)) = scheme(signing) else {
        return Ok(object);
    };
    let found = object
        .len()
        .checked_sub(TAG)
        .map(|at| &object[at..])
        .unwrap_or_default();
    if found != tag {
        return Err(match found {
            t if t == HMAC_TAG => Refusal::OtherScheme {
                found: "hmac-sha256",
                expected: name,
            },
            t if t == ED25519_TAG => Refusal::OtherScheme {
                found: "ed25519",
                expected: name,
            },
            _ => Refusal::Unsigned,
        });
    }
    let bad = Refusal::BadSignature { scheme: name };
    let Some(at) = object.len().checked_sub(TAG + len) else {
        return Err(bad);
    };
    let (entry, signature) = (&object[..at], &object[at..object.len() - TAG]);
    let d = digest(tag, path, entry);
    let good = if let Some(key) = signing.hmac_key() {
        hmac(key).is_some_and(|mut m| {
            m.update(&d);
            // Constant time: a forger learns nothing from how long a refusal took.
            m.verify_slice(signature).is_ok()
        })
    } else {
        let public: Option<&VerifyingKey> = signing.ed25519_public();
        let signature = <[u8; 64]>::try_from(signature).map(|s| Signature::from_bytes(&s));
        matches!((public, signature), (Some(p), Ok(s)) if p.verify_strict(&d, &s).is_ok())
    };
    if good {
        Ok(entry)
    } else {
        Err(bad)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::tier::{Mem, Remote};
    use archbuild_config::{RemoteConfig, RemoteMode};

    const M: &[u8; 8] = b"TESTMAG1";
    const HMAC_KEY: &str = "Hmac-Secret-0123456789abcdef-0123456789";

    fn remote(mem: &Mem, signing: Signing, mode: RemoteMode) -> Arc<Remote> {
        let c = RemoteConfig::new("redis://:Url-Pw-77@h:1/0", "test")
            .unwrap()
            .with_mode(mode)
            .with_signing(signing);
        Remote::with_tier(c, Box::new(mem.clone()))
    }

    fn hmac_signing(key: &str) -> Signing {
        Signing::hmac(key.as_bytes()).unwrap()
    }

    fn secret(n: u8) -> SigningKey {
        SigningKey::from_bytes(&[n; 32])
    }

    /// Writer and reader of each scheme: HMAC (both hold the secret), ed25519 (the reader holds
    /// the public key alone).
    fn pairs() -> [(Signing, Signing); 2] {
        [
            (hmac_signing(HMAC_KEY), hmac_signing(HMAC_KEY)),
            (
                Signing::ed25519(secret(1)),
                Signing::ed25519_verify_only(secret(1).verifying_key()),
            ),
        ]
    }

    #[test]
    fn hmac_and_ed25519_entries_round_trip() {
        for (writer, reader) in pairs() {
            let mem = Mem::default();
            let k = Key::of(b"k");
            let w = remote(&mem, writer.clone(), RemoteMode::ReadWrite);
            w.put_encoded(M, "cubin", &k, &entry::encode(M, &k, b"payload"));
            assert_eq!(w.stats().writes, 1);
            let at = path(&writer, M, "cubin", &k);
            assert_eq!(at, path(&reader, M, "cubin", &k), "reader and writer meet");
            assert_ne!(
                at,
                format!("cubin/{}", entry::name(M, &k)),
                "not the unsigned path"
            );
            assert!(mem.object(&at).ends_with(scheme(&reader).unwrap().0));
            let r = remote(&mem, reader, RemoteMode::ReadOnly);
            assert_eq!(r.get(M, "cubin", &k).as_deref(), Some(&b"payload"[..]));
            let s = r.stats();
            assert_eq!((s.hits, s.rejected, s.warnings.len()), (1, 0, 0), "{s:?}");
        }
    }

    /// The reader's refusal of whatever was planted at `key`'s path in `ns`: the warning, once.
    fn refusal(mem: &Mem, reader: &Signing, ns: &str, key: &Key) -> String {
        let r = remote(mem, reader.clone(), RemoteMode::ReadOnly);
        assert_eq!(r.get(M, ns, key), None, "a planted entry was served");
        assert_eq!(r.get(M, ns, key), None);
        let s = r.stats();
        assert_eq!((s.hits, s.rejected, s.warnings.len()), (0, 1, 1), "{s:?}");
        s.warnings[0].clone()
    }

    #[test]
    fn unsigned_wrongly_signed_and_replayed_entries_are_refused() {
        let (k, other) = (Key::of(b"k"), Key::of(b"other"));
        let entry = entry::encode(M, &k, b"planted");
        for (writer, reader) in pairs() {
            let mem = Mem::default();
            let at = path(&reader, M, "cubin", &k);
            // A valid entry (key, length, checksum) with no signature.
            mem.set(&at, entry.clone());
            assert!(refusal(&mem, &reader, "cubin", &k).contains("unsigned entry"));
            // Signed, but with a key this reader does not trust.
            for wrong in [
                hmac_signing(&HMAC_KEY.replace('0', "1")),
                Signing::ed25519(secret(2)),
            ] {
                mem.set(&at, seal(&wrong, &at, &entry).unwrap());
                let why = refusal(&mem, &reader, "cubin", &k);
                assert!(
                    why.contains("does not verify") || why.contains("signed with"),
                    "{why}"
                );
            }
            // Signed by the trusted writer, for another namespace or another key, copied here.
            for (ns, key) in [("ptx", &k), ("cubin", &other)] {
                let w = remote(&mem, writer.clone(), RemoteMode::ReadWrite);
                w.put_encoded(M, ns, key, &entry::encode(M, key, b"planted"));
                mem.set(&at, mem.object(&path(&writer, M, ns, key)));
                let why = refusal(&mem, &reader, "cubin", &k);
                assert!(why.contains("does not verify"), "{ns}: {why}");
            }
            // One flipped payload byte under an intact trailer.
            let w = remote(&mem, writer.clone(), RemoteMode::ReadWrite);
            w.put_encoded(M, "cubin", &k, &entry);
            let mut object = mem.object(&at);
            object[entry::HEADER] ^= 1;
            mem.set(&at, object);
            assert!(refusal(&mem, &reader, "cubin", &k).contains("does not verify"));
        }
    }

    #[test]
    fn signed_unsigned_and_other_key_writers_sharing_a_remote_never_meet() {
        let mem = Mem::default();
        let k = Key::of(b"k");
        let writers = [
            Signing::default(),
            hmac_signing(HMAC_KEY),
            Signing::ed25519(secret(1)),
            Signing::ed25519(secret(2)),
        ];
        for (i, w) in writers.iter().enumerate() {
            let payload = format!("from writer {i}");
            let entry = entry::encode(M, &k, payload.as_bytes());
            remote(&mem, w.clone(), RemoteMode::ReadWrite).put_encoded(M, "cubin", &k, &entry);
        }
        assert_eq!(mem.len(), writers.len(), "one path each");
        for (i, w) in writers.iter().enumerate() {
            let r = remote(&mem, w.clone(), RemoteMode::ReadOnly);
            let payload = format!("from writer {i}");
            assert_eq!(r.get(M, "cubin", &k), Some(payload.into_bytes()));
        }
    }

    #[test]
    fn a_public_key_alone_never_writes_and_says_so_once() {
        let mem = Mem::default();
        let reader = Signing::ed25519_verify_only(secret(1).verifying_key());
        let r = remote(&mem, reader.clone(), RemoteMode::ReadWrite);
        for k in [Key::of(b"a"), Key::of(b"b")] {
            r.put_encoded(M, "cubin", &k, &entry::encode(M, &k, b"x"));
        }
        assert_eq!(mem.len(), 0, "a verify-only machine wrote");
        let s = r.stats();
        assert_eq!((s.writes, s.mode.as_str()), (0, "read-only"), "{s:?}");
        assert_eq!(s.warnings.len(), 1, "{s:?}");
        assert!(
            s.warnings[0].contains("ARCHBUILD_REMOTE_CACHE_PUBLIC_KEY"),
            "{s:?}"
        );
        // Told read-only: silent.
        let r = remote(&mem, reader, RemoteMode::ReadOnly);
        r.put_encoded(
            M,
            "cubin",
            &Key::of(b"a"),
            &entry::encode(M, &Key::of(b"a"), b"x"),
        );
        assert_eq!((mem.len(), r.stats().warnings.len()), (0, 0));
    }

    #[test]
    fn keys_never_show_in_debug_warnings_or_stats() {
        let seed = Key([9u8; 32]).hex();
        let public = secret(9).verifying_key();
        let hidden = [
            HMAC_KEY.to_owned(),
            "Url-Pw-77".to_owned(),
            seed.clone(),
            Key(*public.as_bytes()).hex(),
            format!("{:?}", public.as_bytes()),
        ];
        let mem = Mem::default();
        let k = Key::of(b"k");
        let mut shown = Vec::new();
        for signing in [
            hmac_signing(HMAC_KEY),
            Signing::from_values(None, Some(&seed), None).unwrap(),
            Signing::ed25519_verify_only(public),
        ] {
            // A planted entry (a warning), a write (or the read-only warning), every output.
            mem.set(&path(&signing, M, "cubin", &k), entry::encode(M, &k, b"x"));
            let r = remote(&mem, signing.clone(), RemoteMode::ReadWrite);
            assert_eq!(r.get(M, "cubin", &k), None);
            r.put_encoded(M, "cubin", &k, &entry::encode(M, &k, b"x"));
            let s = r.stats();
            assert!(!s.warnings.is_empty(), "{s:?}");
            shown.push(format!("{r:?}\n{:?}\n{signing:?}\n{s:?}", r.config()));
            shown.push(serde_json::to_string(&s).unwrap());
            shown.extend(s.warnings);
        }
        let shown = shown.join("\n");
        assert!(
            shown.contains("hmac-sha256") && shown.contains("ed25519"),
            "{shown}"
        );
        for secret in &hidden {
            assert!(
                !shown.contains(secret.as_str()),
                "{secret} shown in:\n{shown}"
            );
        }
    }
}
