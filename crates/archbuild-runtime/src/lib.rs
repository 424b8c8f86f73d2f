//! archbuild-runtime: see the crate description.
