//! The build cache's store: keys, verified entries and the optional remote tier all live in
//! `archbuild-store`, shared with the runtime's JIT cache.

pub(crate) use archbuild_store::{Key, KeyBuilder, Store};
