//! Pure rules about CUDA GPU architectures: compute capabilities with `a`/`f` variants,
//! arch-list parsing in every common dialect (with the facts `native`/`all` need asked lazily),
//! the driver floors (the oldest driver that loads an image: its toolkit, PTX ISA, compression),
//! sharding a list for CI, compatibility between images and devices, image
//! selection with an explanation, the toolkit / PTX ISA tables, and the simulated GPUs
//! `ARCHBUILD_SIMULATED_GPUS` describes. No I/O happens here, so the
//! build driver, the runtime loader and the CLI all share one source of truth.
//!
//! The user-facing description of every syntax and rule is `docs/arch-lists.md`; its examples
//! are tests (`tests/it/doc_examples.rs`).

mod cc;
mod compat;
mod coverage;
mod devices;
mod dialect;
mod error;
mod explain;
mod fleet;
mod floors;
mod list;
mod narrow;
mod parse;
mod resolve;
mod select;
#[cfg(feature = "serde")]
mod serde_impl;
mod shard;
mod simulated;
mod suggest;
mod tables;

pub use cc::{Arch, ComputeCapability, CudaVersion, PtxIsa, Target, TargetKind, Variant};
pub use compat::{cubin_runs_on, ptx_jits_for, target_runs_on};
pub use coverage::{coverage_gaps, group_gaps, CoverageGap, GapGroup, ImageKernels};
pub use devices::{cc_for_device_name, device_names, generation, known_ccs};
pub use dialect::Dialect;
pub use error::Error;
pub use fleet::{Fleet, FleetMember, FleetProblem};
pub use floors::{
    blocking_floor, cuda_for_branch, driver_branch, driver_floors, driver_name,
    toolkit_for_elf_abi, toolkit_minimum_driver, DriverFloor, Handoff, ImageCompression,
    Requirement, ZSTD_MINIMUM_DRIVER,
};
pub use list::ArchList;
pub use narrow::{named_gpus, narrow};
pub use parse::generation_names;
pub use resolve::{FactsNeeded, ListFacts, ResolveContext};
pub use select::{
    select, Chosen, DeviceInfo, ImageInfo, Outcome, Policy, Reason, Route, Selection, Verdict,
};
pub use simulated::{parse_device_cc, parse_driver_version, SimulatedGpu, SimulatedGpus};
pub use suggest::edit_distance;
pub use tables::{
    arch_support, first_cuda_for_ptx_isa, max_ptx_isa_for_cuda, toolkit_can_build,
    toolkit_plain_archs, toolkits_for, ArchSupport,
};

/// The README's examples, compiled (and run) as doctests so the crates.io page stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
