//! The cross-crate integration tests, one binary (one link instead of seventeen): builds,
//! caches, fat binaries and loads with the real CUDA toolkit, which archbuild itself locates or,
//! on a bare machine, provisions from PyPI (CUDA 13.5; once per machine, behind its install
//! lock). The Redis, WebDAV (nginx) and sccache servers the storage tests talk to are started
//! by the tests themselves on 127.0.0.1 and skip, saying why, where the program is missing
//! (outside CI).
//!
//! The helpers every module uses — the toolkit, builds with it, fixture copies, cargo and nvcc
//! commands, servers — are the `archbuild_tests` library (`tests/src/`). The modules run as
//! threads of one process and change no process environment variable; a test that needs
//! another environment or a captured stdout runs a child process (`coverage_warnings`).

mod arch_list;
mod build_errors;
mod build_fixture;
mod build_toolkit;
mod cache_soundness;
mod cicc_sharing;
mod compute_cap;
mod coverage_warnings;
mod docs_rs;
mod downstream_cudarc;
mod fatbin_cuobjdump;
mod fatbin_ltoir;
mod fatbin_nvcc_outputs;
mod header_libraries;
mod hermetic_key;
mod host_compiler;
mod host_library;
mod host_relocatable;
mod legacy_toolkit;
mod observed_probes;
mod offline;
mod packaged;
mod prebuilt;
mod preprocessor_soundness;
mod ptx_check;
mod ptxas_flags;
mod random_seed;
mod relocatable;
mod remote_credentials;
mod request_outputs;
mod sccache;
mod servers_smoke;
mod shared_cache;
mod shared_jit_cache;
mod signed_remote;
mod stale_shipped;
mod variants;
mod verify;
