//! The integration tests of `archbuild` against `archbuild-fake-nvcc`, a stand-in for nvcc and
//! ptxas that records its arguments: planning, commands, the cache and its cap, configuration
//! precedence, `cc::Build` flags, interrupts and the install lock.
//!
//! One test binary (modules below) so the suite links once. Its tests run as threads of one
//! process: a test that changes the process environment holds `support::ProcessEnv`.

mod support;

mod cache_cap;
mod cc_build;
mod config_precedence;
mod interrupt;
mod narrow_fleet;
mod plan_fake_nvcc;
mod provision_lock;
mod toolkit_versions;
