//! From what a build was told to what it runs: `spec.rs` holds what `Build`'s setters filled,
//! `setup.rs` merges flags, modules and per-file arch lists from their sources, `narrowing.rs`
//! narrows per-file lists to the requested one, `fleet.rs` reads the fleet and checks it against
//! the driver floors, `ptxas_line.rs` asks nvcc which ptxas flags its flags make, `relocatable.rs`
//! reads relocatable device code's setting and refuses what it is not built for, `remote.rs`
//! picks the remote cache, and this module resolves it all once into a [`Prepared`] (below).
//!
//! A build's configuration, resolved once before anything runs: the environment, `Cargo.toml`'s
//! table, the home and cache, the toolkit, the arch list, flags and modules, the outputs and
//! the variant groups, gathered into one [`Prepared`]. The pipeline reads that and never the
//! `Spec` again. Resolving for a plan ([`Mode::Plan`]) neither provisions a toolkit, installs
//! a header library nor writes anything; what a build announces is [`announce`]'s, once.

pub(crate) mod fleet;
pub(crate) mod narrowing;
pub(crate) mod packaged;
pub(crate) mod packing;
pub(crate) mod ptxas_line;
pub(crate) mod relocatable;
pub(crate) mod remote;
mod resolve;
pub(crate) mod setup;
pub(crate) mod spec;

pub(crate) use resolve::*;
