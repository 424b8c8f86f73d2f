//! What the build remembers between runs, and how it knows a memory is still true: what each
//! compile read and probed (`deps.rs`, with `preprocessed.rs` deciding what of the preprocessed
//! text reaches the PTX and `observe.rs` recording every path the preprocessing processes opened
//! or looked at, through the `LD_PRELOAD` library `observe_shim.c`), the stat memo that spares
//! hashing unchanged files (`stat_memo.rs`), the build record beside each fat binary
//! (`record.rs`, public as `archbuild::record`), and the cache's cap (`evict.rs`).
//!
//! Public: the build cache as `cargo archbuild cache` sees it (its directory, cap and stat memo).

pub(crate) mod deps;
pub(crate) mod evict;
pub(crate) mod observe;
pub(crate) mod preprocessed;
pub mod record;
pub(crate) mod stat_memo;

pub use crate::report::CacheEviction;
pub use evict::{cache_dir, max_bytes};
pub use stat_memo::path as stat_memo_path;
