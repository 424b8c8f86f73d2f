//! Signed remote entries in a build without the `remote` feature. No remote tier can be opened
//! then (`open_tier`), and the signature schemes are not compiled in; should a tier be given
//! anyway (`Remote::with_tier`), a remote that requires signatures is refused whole (fail
//! closed), never read as if it were unsigned, and nothing is written to it.

use crate::entry;
use crate::key::Key;
use archbuild_config::Signing;

/// Why a remote object was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The remote requires signatures, and this build cannot verify any.
    Unverifiable,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "this remote requires signatures, and this build of archbuild cannot verify them \
             (it has no `remote` feature)",
        )
    }
}

/// The local entry's name: a build without the schemes has no signed names.
pub(crate) fn path(_: &Signing, magic: &[u8; 8], ns: &str, key: &Key) -> String {
    format!("{ns}/{}", entry::name(magic, key))
}

/// Never a signature: this build cannot sign.
pub(crate) fn seal(_: &Signing, _: &str, _: &[u8]) -> Option<Vec<u8>> {
    None
}

/// `object` when entries are not signed; a refusal when they must be.
pub(crate) fn open<'a>(signing: &Signing, _: &str, object: &'a [u8]) -> Result<&'a [u8], Refusal> {
    match signing.is_required() {
        true => Err(Refusal::Unverifiable),
        false => Ok(object),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remote_that_requires_signatures_is_refused_and_never_written() {
        let key = Key::of(b"x");
        let signing = Signing::hmac(&[7; 32]).unwrap();
        assert_eq!(
            open(&signing, "ptx/x", b"entry"),
            Err(Refusal::Unverifiable)
        );
        assert_eq!(seal(&signing, "ptx/x", b"entry"), None);
        let unsigned = Signing::default();
        assert_eq!(open(&unsigned, "ptx/x", b"entry"), Ok(&b"entry"[..]));
        assert_eq!(
            path(&unsigned, b"ABENTRY1", "ptx", &key),
            path(&signing, b"ABENTRY1", "ptx", &key)
        );
    }
}
