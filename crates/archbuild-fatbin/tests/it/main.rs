//! The integration tests of `archbuild-fatbin`: readers against writers on synthetic cubins, PTX
//! and host objects, every error message, and bounded fuzzing.
//!
//! One test binary (modules below) so the suite links once.

mod support;

mod errors;
mod reach;
mod robustness;
mod roundtrip;
