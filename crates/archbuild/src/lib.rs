//! archbuild: see the crate description.
