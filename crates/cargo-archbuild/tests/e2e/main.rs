//! End-to-end tests of the `cargo-archbuild` binary: each test runs the real executable (with
//! assert_cmd) on files made by the real CUDA 13.5 tools, and checks what it prints against
//! `cuobjdump`, against a one-shot build, or against the simulated driver's GPUs.
//!
//! One test binary (modules below) so the suite links once.

mod support;

mod bad_input;
mod cache_trim;
mod compile;
mod coverage;
mod data_safety;
mod dependency_graph;
mod dependents;
mod docs;
mod doctor;
mod doctor_floors;
mod explain;
mod headers;
mod host_library;
mod inspect;
mod matrix_merge;
mod matrix_precedence;
mod messages;
mod offline;
mod package_safety;
mod package_size;
mod packaging;
mod publish;
mod relocatable;
mod remote_credentials;
mod repository;
mod request;
mod scaffold;
mod snapshots;
mod variants;
