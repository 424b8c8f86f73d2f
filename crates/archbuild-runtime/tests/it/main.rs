//! The runtime's integration tests, one binary (one link instead of seven). The modules run on
//! threads of one process, which share its environment: a test that changes environment
//! variables runs in a process of its own ([`common::alone`]).

mod cache;
mod common;
mod concurrent_cache;
mod driver_floors;
mod env;
mod gpu;
mod mixed_rigs;
mod nvjitlink;
mod sim_driver;
