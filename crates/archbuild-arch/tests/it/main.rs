//! The integration tests of `archbuild-arch`: the rules against hand-written tables, real tools'
//! output, the docs' examples and random input.
//!
//! One test binary (modules below) so the suite links once.

mod compat_table;
mod doc_examples;
mod driver_floors;
mod errors;
mod parse;
mod properties;
mod select;
mod tables;
