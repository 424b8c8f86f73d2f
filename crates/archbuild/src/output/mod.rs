//! What a build writes from its jobs' results: each module's fat binary (`pack.rs`), its build
//! record (`record.rs`, the format, public as `archbuild::record`; `prebuilt.rs` writes it and
//! takes CI-made fat binaries that match), the Rust module for `include!` (`codegen.rs`), a
//! library's host objects, archive and link lines (`host_stage.rs`), and compile failures,
//! reported once (`diag.rs`), the kernels a source declares when nothing is compiled (docs.rs,
//! `kernel_scan.rs`), the metadata a kernel crate hands its dependents (`metadata.rs`), and each
//! kernel's typed launcher (`launchers.rs`, from the declarations `report/signature.rs` reads).

pub(crate) mod codegen;
pub(crate) mod diag;
pub(crate) mod host_stage;
pub(crate) mod kernel_scan;
pub(crate) mod launchers;
pub(crate) mod metadata;
pub(crate) mod pack;
pub(crate) mod params_check;
pub(crate) mod prebuilt;
