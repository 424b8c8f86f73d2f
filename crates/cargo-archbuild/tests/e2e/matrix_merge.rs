//! `matrix` + per-shard `compile` + `merge` equals a one-shot `compile`, byte for byte.
