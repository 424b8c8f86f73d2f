//! The keys that sign and verify a remote cache's entries, read from their own variables and
//! checked with the other remote settings, so a bad key fails before any compile and names its
//! variable. Two schemes:
//!
//! - [`HMAC_KEY_VAR`]: a shared secret (HMAC-SHA256). Whoever holds it can both write and read;
//!   for a cache written and read by the same trusted machines.
//! - [`SIGNING_KEY_VAR`] / [`PUBLIC_KEY_VAR`]: ed25519. Writers (CI) hold the secret key;
//!   readers (developers, pull-request builds) hold the public key alone, which verifies but
//!   cannot sign, so a reader's machine cannot plant an entry others accept. A machine with only
//!   the public key never writes.
//!
//! Any verifying key makes signatures required (the store refuses unsigned entries). Keys never
//! print: [`Signing`]'s `Debug` names the scheme only, errors name the variable and what it
//! accepts, never the value. The signing itself (what is signed, the entry's trailer) is
//! `archbuild-store`'s.

#[cfg(feature = "ed25519")]
use base64ct::{Base64, Base64Unpadded, Encoding};
#[cfg(feature = "ed25519")]
use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey};
#[cfg(feature = "ed25519")]
use ed25519_dalek::{SigningKey, VerifyingKey};

use crate::error::Error;

/// A shared secret (HMAC-SHA256) that signs and verifies remote entries.
pub const HMAC_KEY_VAR: &str = "ARCHBUILD_REMOTE_CACHE_HMAC_KEY";
/// An ed25519 secret key that signs remote entries (and verifies them with its public key).
pub const SIGNING_KEY_VAR: &str = "ARCHBUILD_REMOTE_CACHE_SIGNING_KEY";
/// An ed25519 public key that verifies remote entries (alone: this machine never writes).
pub const PUBLIC_KEY_VAR: &str = "ARCHBUILD_REMOTE_CACHE_PUBLIC_KEY";

/// The shortest HMAC key accepted: `openssl rand -hex 32` gives 64 characters.
const MIN_HMAC_LEN: usize = 32;

/// How a remote cache's entries are signed and verified; `Default` is unsigned.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Signing(Scheme);

#[derive(Clone, PartialEq, Eq, Default)]
enum Scheme {
    #[default]
    Off,
    Hmac(Vec<u8>),
    #[cfg(feature = "ed25519")]
    Ed25519 {
        public: VerifyingKey,
        secret: Option<Box<SigningKey>>,
    },
    /// ed25519 keys given to a build without the `ed25519` feature (archbuild without its
    /// remote tier, which alone reads them): entries must be signed, and none verifies here.
    #[cfg(not(feature = "ed25519"))]
    Ed25519Unread,
}

impl std::fmt::Debug for Signing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The scheme and what this machine can do with it; no key, secret or public.
        f.debug_struct("Signing")
            .field("scheme", &self.scheme().unwrap_or("off"))
            .field("signs", &self.can_sign())
            .finish()
    }
}

impl Signing {
    /// Signing from the three variables' values (unset: `None`); `Err` names the variable.
    pub fn from_values(
        hmac: Option<&str>,
        signing: Option<&str>,
        public: Option<&str>,
    ) -> crate::Result<Self> {
        Self::parse(hmac, signing, public).map_err(|(_, e)| e)
    }

    /// [`Signing::from_values`], with the variable the error is about.
    pub(crate) fn parse(
        hmac: Option<&str>,
        signing: Option<&str>,
        public: Option<&str>,
    ) -> Result<Self, (&'static str, Error)> {
        if hmac.is_some() && (signing.is_some() || public.is_some()) {
            return Err((
                HMAC_KEY_VAR,
                bad(
                    HMAC_KEY_VAR,
                    format!("it is set together with {SIGNING_KEY_VAR} or {PUBLIC_KEY_VAR}"),
                    "a remote uses one scheme: keep the shared HMAC key or the ed25519 keys, and \
                     unset the others",
                ),
            ));
        }
        if let Some(h) = hmac {
            return Ok(Self(Scheme::Hmac(
                hmac_key(h).map_err(|e| (HMAC_KEY_VAR, e))?,
            )));
        }
        #[cfg(not(feature = "ed25519"))]
        return Ok(match (signing, public) {
            (None, None) => Self::default(),
            _ => Self(Scheme::Ed25519Unread),
        });
        #[cfg(feature = "ed25519")]
        Self::parse_ed25519(signing, public)
    }

    /// The ed25519 keys of [`Signing::parse`].
    #[cfg(feature = "ed25519")]
    fn parse_ed25519(
        signing: Option<&str>,
        public: Option<&str>,
    ) -> Result<Self, (&'static str, Error)> {
        let secret = signing
            .map(|s| secret_key(s).map_err(|e| (SIGNING_KEY_VAR, e)))
            .transpose()?;
        let given = public
            .map(|p| public_key(p).map_err(|e| (PUBLIC_KEY_VAR, e)))
            .transpose()?;
        let public = match (&secret, given) {
            (Some(s), Some(p)) if s.verifying_key() != p => {
                return Err((
                    PUBLIC_KEY_VAR,
                    bad(
                        PUBLIC_KEY_VAR,
                        format!("it is not the public key of {SIGNING_KEY_VAR}"),
                        &format!(
                            "unset {PUBLIC_KEY_VAR} on machines that hold {SIGNING_KEY_VAR} \
                             (its public key is derived), or give the public key made from it: \
                             `openssl pkey -in key.pem -pubout`"
                        ),
                    ),
                ));
            }
            (Some(s), _) => s.verifying_key(),
            (None, Some(p)) => p,
            (None, None) => return Ok(Self::default()),
        };
        Ok(Self(Scheme::Ed25519 {
            public,
            secret: secret.map(Box::new),
        }))
    }

    /// Signs and verifies with the shared secret `key` (at least 32 bytes).
    pub fn hmac(key: &[u8]) -> crate::Result<Self> {
        if key.len() < MIN_HMAC_LEN {
            return Err(short_hmac(key.len()));
        }
        Ok(Self(Scheme::Hmac(key.to_vec())))
    }

    /// Signs with `secret` (and verifies with its public key).
    #[cfg(feature = "ed25519")]
    pub fn ed25519(secret: SigningKey) -> Self {
        Self(Scheme::Ed25519 {
            public: secret.verifying_key(),
            secret: Some(Box::new(secret)),
        })
    }

    /// Verifies with `public` only: this machine cannot sign, so it never writes.
    #[cfg(feature = "ed25519")]
    pub fn ed25519_verify_only(public: VerifyingKey) -> Self {
        Self(Scheme::Ed25519 {
            public,
            secret: None,
        })
    }

    /// `hmac-sha256`, `ed25519`, or `None` when entries are not signed.
    pub fn scheme(&self) -> Option<&'static str> {
        match self.0 {
            Scheme::Off => None,
            Scheme::Hmac(_) => Some("hmac-sha256"),
            #[cfg(feature = "ed25519")]
            Scheme::Ed25519 { .. } => Some("ed25519"),
            #[cfg(not(feature = "ed25519"))]
            Scheme::Ed25519Unread => Some("ed25519"),
        }
    }

    /// Whether entries must carry a valid signature (any key is configured).
    pub fn is_required(&self) -> bool {
        self.0 != Scheme::Off
    }

    /// Whether this machine can sign: an HMAC key or an ed25519 secret key. A machine that must
    /// sign and cannot (a public key alone) never writes.
    pub fn can_sign(&self) -> bool {
        match &self.0 {
            Scheme::Off => false,
            Scheme::Hmac(_) => true,
            #[cfg(feature = "ed25519")]
            Scheme::Ed25519 { secret, .. } => secret.is_some(),
            #[cfg(not(feature = "ed25519"))]
            Scheme::Ed25519Unread => false,
        }
    }

    /// The shared secret, in clear: for the store's signer only.
    pub fn hmac_key(&self) -> Option<&[u8]> {
        match &self.0 {
            Scheme::Hmac(k) => Some(k),
            _ => None,
        }
    }

    /// The ed25519 public key that verifies entries.
    #[cfg(feature = "ed25519")]
    pub fn ed25519_public(&self) -> Option<&VerifyingKey> {
        match &self.0 {
            Scheme::Ed25519 { public, .. } => Some(public),
            _ => None,
        }
    }

    /// The ed25519 secret key that signs entries: for the store's signer only.
    #[cfg(feature = "ed25519")]
    pub fn ed25519_secret(&self) -> Option<&SigningKey> {
        match &self.0 {
            Scheme::Ed25519 { secret, .. } => secret.as_deref(),
            _ => None,
        }
    }
}

fn bad(var: &str, why: String, hint: &str) -> Error {
    Error::BadKey {
        var: var.to_owned(),
        why,
        hint: hint.to_owned(),
    }
}

fn short_hmac(len: usize) -> Error {
    bad(
        HMAC_KEY_VAR,
        format!("it is {len} bytes long, shorter than the {MIN_HMAC_LEN} a key needs"),
        "make a random key with `openssl rand -hex 32` and give the same value to every machine \
         that reads or writes the cache",
    )
}

/// The HMAC key: the variable's text itself (so every machine given the same string has the
/// same key, however it was made), at least [`MIN_HMAC_LEN`] bytes.
fn hmac_key(value: &str) -> Result<Vec<u8>, Error> {
    if value.contains('\u{fffd}') {
        return Err(bad(
            HMAC_KEY_VAR,
            "it is not UTF-8 text".into(),
            "make a random key with `openssl rand -hex 32`",
        ));
    }
    if value.len() < MIN_HMAC_LEN {
        return Err(short_hmac(value.len()));
    }
    Ok(value.as_bytes().to_vec())
}

#[cfg(feature = "ed25519")]
const SECRET_FORMS: &str = "a PEM private key from `openssl genpkey -algorithm ed25519` \
                            (`-----BEGIN PRIVATE KEY-----`), or its 32-byte seed in base64 or hex";
#[cfg(feature = "ed25519")]
const PUBLIC_FORMS: &str = "a PEM public key from `openssl pkey -in key.pem -pubout` \
                            (`-----BEGIN PUBLIC KEY-----`), or its 32 bytes in base64 or hex";

#[cfg(feature = "ed25519")]
fn secret_key(value: &str) -> Result<SigningKey, Error> {
    let wrong = |why: &str| {
        bad(
            SIGNING_KEY_VAR,
            why.to_owned(),
            &format!(
                "give {SECRET_FORMS}; make one with `openssl genpkey -algorithm ed25519 -out \
                 key.pem`"
            ),
        )
    };
    match pem_body(value).as_ref().map(|(l, d)| (l.as_str(), d)) {
        Some(("PRIVATE KEY", der)) => SigningKey::from_pkcs8_der(der)
            .map_err(|_| wrong("its PEM private key is not an ed25519 key")),
        Some((label, _)) => Err(wrong(&format!("it is a PEM `{label}`, not a private key"))),
        None if value.contains("-----") => Err(wrong("its PEM armour or base64 is damaged")),
        None => raw32(value)
            .map(|b| SigningKey::from_bytes(&b))
            .ok_or_else(|| wrong("it is neither PEM nor 32 bytes in base64 or hex")),
    }
}

#[cfg(feature = "ed25519")]
fn public_key(value: &str) -> Result<VerifyingKey, Error> {
    let wrong = |why: &str, hint: &str| bad(PUBLIC_KEY_VAR, why.to_owned(), hint);
    let forms = format!("give {PUBLIC_FORMS}");
    match pem_body(value).as_ref().map(|(l, d)| (l.as_str(), d)) {
        Some(("PUBLIC KEY", der)) => VerifyingKey::from_public_key_der(der)
            .map_err(|_| wrong("its PEM public key is not an ed25519 key", &forms)),
        // The secret key where the public one belongs: say so, the machine should not hold it.
        Some(("PRIVATE KEY", _)) => Err(wrong(
            "it holds a private key",
            &format!(
                "give the public key, `openssl pkey -in key.pem -pubout`; keep the private key \
                 in {SIGNING_KEY_VAR} on the machines that write, and off the others"
            ),
        )),
        Some((label, _)) => Err(wrong(
            &format!("it is a PEM `{label}`, not a public key"),
            &forms,
        )),
        None if value.contains("-----") => {
            Err(wrong("its PEM armour or base64 is damaged", &forms))
        }
        None => raw32(value)
            .ok_or("it is neither PEM nor 32 bytes in base64 or hex")
            .and_then(|b| {
                VerifyingKey::from_bytes(&b).map_err(|_| "its 32 bytes are not an ed25519 key")
            })
            .map_err(|why| wrong(why, &forms)),
    }
}

/// The label and DER bytes of a PEM block. Lenient about layout, since CI secret stores and
/// shells reflow values: the base64 may be on one line, split by spaces, or by literal `\n`.
#[cfg(feature = "ed25519")]
fn pem_body(value: &str) -> Option<(String, Vec<u8>)> {
    let value = value.replace("\\n", "\n");
    let rest = value.trim().strip_prefix("-----BEGIN ")?;
    let (label, rest) = rest.split_once("-----")?;
    let (body, tail) = rest.split_once(&format!("-----END {label}-----"))?;
    if !tail.trim().is_empty() {
        return None;
    }
    let b64: String = body.chars().filter(|c| !c.is_whitespace()).collect();
    Some((label.to_owned(), Base64::decode_vec(&b64).ok()?))
}

/// 32 bytes written as 64 hex digits or as base64 (padded or not).
#[cfg(feature = "ed25519")]
fn raw32(value: &str) -> Option<[u8; 32]> {
    let v = value.trim();
    let bytes = if v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()) {
        hex::decode(v).ok()?
    } else {
        Base64::decode_vec(v)
            .or_else(|_| Base64Unpadded::decode_vec(v))
            .ok()?
    };
    bytes.try_into().ok()
}

#[cfg(test)]
// The ed25519 keys' tests; the feature is on in the workspace's test runs (cargo-archbuild's
// remote tier turns it on).
#[cfg(feature = "ed25519")]
mod tests {
    use super::*;
    use crate::{Env, RemoteConfig, RemoteSettings};

    /// A throwaway pair made for these tests by `openssl genpkey -algorithm ed25519` and
    /// `openssl pkey -pubout`, with the same keys' raw forms.
    const SECRET_PEM: &str = "-----BEGIN PRIVATE KEY-----\n\
        MC4CAQAwBQYDK2VwBCIEIMk2XaEUpRgNQ0GsEKunIxLUWEjcSUhMUfZGXFTG3Wc1\n\
        -----END PRIVATE KEY-----\n";
    const PUBLIC_PEM: &str = "-----BEGIN PUBLIC KEY-----\n\
        MCowBQYDK2VwAyEA3GUvvBm2znJdolviC5p2PcouYUzuUSadcdaFRaw54ko=\n\
        -----END PUBLIC KEY-----\n";
    const SECRET_HEX: &str = "c9365da114a5180d4341ac10aba72312d45848dc49484c51f6465c54c6dd6735";
    const PUBLIC_B64: &str = "3GUvvBm2znJdolviC5p2PcouYUzuUSadcdaFRaw54ko=";
    /// An X25519 key (`openssl genpkey -algorithm x25519`): PEM, but not a signing key.
    const X25519_PEM: &str = "-----BEGIN PUBLIC KEY-----\n\
        MCowBQYDK2VuAyEAds5SQtfTdBbtN8vScbP790Z7BSHK6GD4YTuXdFrhA1A=\n\
        -----END PUBLIC KEY-----\n";
    const HMAC: &str = "0123456789abcdef0123456789abcdef-hmac";

    fn keys(vars: &[(&str, &str)]) -> Result<Signing, (&'static str, Error)> {
        let get = |n: &str| vars.iter().find(|(k, _)| *k == n).map(|(_, v)| *v);
        Signing::parse(get(HMAC_KEY_VAR), get(SIGNING_KEY_VAR), get(PUBLIC_KEY_VAR))
    }

    #[test]
    fn every_accepted_form_reads_the_same_key() {
        let from_pem = keys(&[(SIGNING_KEY_VAR, SECRET_PEM)]).unwrap();
        assert!(from_pem.can_sign() && from_pem.is_required());
        let public = *from_pem.ed25519_public().unwrap();
        // CI secret stores and shells reflow a PEM: one line, spaces, literal `\n`.
        let one_line = SECRET_PEM.replace('\n', " ");
        let escaped = SECRET_PEM.replace('\n', "\\n");
        for v in [SECRET_HEX, &one_line, &escaped] {
            assert_eq!(keys(&[(SIGNING_KEY_VAR, v)]).unwrap(), from_pem, "{v}");
        }
        let b64 = Base64::encode_string(&hex::decode(SECRET_HEX).unwrap());
        assert_eq!(keys(&[(SIGNING_KEY_VAR, &b64)]).unwrap(), from_pem);
        for v in [PUBLIC_PEM, PUBLIC_B64, PUBLIC_B64.trim_end_matches('=')] {
            let reader = keys(&[(PUBLIC_KEY_VAR, v)]).unwrap();
            assert_eq!(reader.ed25519_public(), Some(&public), "{v}");
            assert!(reader.is_required() && !reader.can_sign(), "{v}");
        }
        let both = keys(&[(SIGNING_KEY_VAR, SECRET_PEM), (PUBLIC_KEY_VAR, PUBLIC_PEM)]).unwrap();
        assert_eq!(both, from_pem);
        let h = keys(&[(HMAC_KEY_VAR, HMAC)]).unwrap();
        assert_eq!(h.hmac_key(), Some(HMAC.as_bytes()));
        assert!(h.can_sign() && h.scheme() == Some("hmac-sha256"));
        let off = keys(&[]).unwrap();
        assert!(!off.is_required() && !off.can_sign() && off.scheme().is_none());
    }

    #[test]
    fn a_bad_key_names_its_variable_and_the_fix_never_the_value() {
        let other_public =
            Base64::encode_string(SigningKey::from_bytes(&[7; 32]).verifying_key().as_bytes());
        for (vars, var, says) in [
            (
                vec![(HMAC_KEY_VAR, "short-Secret")],
                HMAC_KEY_VAR,
                "openssl rand -hex 32",
            ),
            (
                vec![(HMAC_KEY_VAR, HMAC), (PUBLIC_KEY_VAR, PUBLIC_PEM)],
                HMAC_KEY_VAR,
                "one scheme",
            ),
            (
                vec![(SIGNING_KEY_VAR, "not-a-Secret-key")],
                SIGNING_KEY_VAR,
                "genpkey",
            ),
            (
                vec![(SIGNING_KEY_VAR, &SECRET_HEX[2..])],
                SIGNING_KEY_VAR,
                "32-byte seed",
            ),
            (
                vec![(SIGNING_KEY_VAR, PUBLIC_PEM)],
                SIGNING_KEY_VAR,
                "not a private key",
            ),
            (
                vec![(SIGNING_KEY_VAR, &SECRET_PEM.replace("MC4C", "MC4D"))],
                SIGNING_KEY_VAR,
                "not an ed25519 key",
            ),
            (
                vec![(PUBLIC_KEY_VAR, SECRET_PEM)],
                PUBLIC_KEY_VAR,
                "keep the private key",
            ),
            (
                vec![(PUBLIC_KEY_VAR, X25519_PEM)],
                PUBLIC_KEY_VAR,
                "not an ed25519 key",
            ),
            (
                vec![(PUBLIC_KEY_VAR, &PUBLIC_PEM.replace("-----END", "--END"))],
                PUBLIC_KEY_VAR,
                "damaged",
            ),
            (vec![(PUBLIC_KEY_VAR, "zz")], PUBLIC_KEY_VAR, "-pubout"),
            (
                vec![
                    (SIGNING_KEY_VAR, SECRET_PEM),
                    (PUBLIC_KEY_VAR, &other_public),
                ],
                PUBLIC_KEY_VAR,
                "not the public key",
            ),
        ] {
            let (origin, e) = keys(&vars).unwrap_err();
            assert_eq!(origin, var, "{e}");
            let text = e.to_string();
            assert!(
                text.contains(var) && text.contains("hint:") && text.contains(says),
                "{text}"
            );
            // The key material (a PEM's base64, a raw key, a secret's text) is never quoted.
            for (_, value) in &vars {
                for piece in value.split(|c: char| c.is_whitespace() || c == '-') {
                    if piece.len() >= 6 && !["PRIVATE", "PUBLIC"].contains(&piece) {
                        assert!(!text.contains(piece), "{text} quotes {piece}");
                    }
                }
            }
        }
        assert!(Signing::hmac(b"short").is_err());
        assert!(Signing::hmac(HMAC.as_bytes()).unwrap().can_sign());
    }

    #[test]
    fn the_remote_config_reads_the_keys_and_never_shows_them() {
        let resolve = |vars: &[(&str, &str)]| {
            let mut all = vec![("ARCHBUILD_REMOTE_CACHE", "redis://h:1/0")];
            all.extend_from_slice(vars);
            RemoteConfig::resolve(&Env::from_vars(all), &RemoteSettings::default())
        };
        let c = resolve(&[(SIGNING_KEY_VAR, SECRET_PEM)]).unwrap().unwrap();
        assert!(c.signing().can_sign());
        let c = resolve(&[(HMAC_KEY_VAR, HMAC)]).unwrap().unwrap();
        let d = format!("{c:?}");
        assert!(
            d.contains("hmac-sha256") && !d.contains("0123456789abcdef"),
            "{d}"
        );
        let c = resolve(&[(PUBLIC_KEY_VAR, PUBLIC_PEM)]).unwrap().unwrap();
        let d = format!("{c:?}");
        assert!(
            d.contains("signs: false") && !d.contains("MCow") && !d.contains("3GUv"),
            "{d}"
        );
        let e = resolve(&[(SIGNING_KEY_VAR, &SECRET_PEM[..60])]).unwrap_err();
        assert_eq!((e.origin, e.value.as_str()), (SIGNING_KEY_VAR, "***"));
        assert!(!format!("{e:?}{}", e.error).contains("MC4C"), "{e:?}");
        // No remote, no key read: a developer's key in the environment is not an error then.
        let env = Env::from_vars([(SIGNING_KEY_VAR, "bad")]);
        assert!(RemoteConfig::resolve(&env, &RemoteSettings::default())
            .unwrap()
            .is_none());
    }
}
