//! archbuild-fatbin: see the crate description.
