//! The job graph before it runs, and what it runs within: the modules and their jobs
//! (`graph.rs`), the settings every compile shares (`settings.rs`), the jobs' exact command lines
//! (`commands.rs`), when one cicc run serves several archs (`share.rs`), running a graph within
//! the machine's limits (`exec.rs`), and sccache-dist's cluster (`dist.rs`). What a compile read
//! and probed, and the cache's cap, are the cache's (`cache/`).
//!
//! Planning: from modules and their arch lists to jobs and exact command lines.
//!
//! Each target is split into the two phases nvcc runs internally. The *cicc* phase
//! (`nvcc -ptx -arch=compute_XY`) turns the source into PTX for one virtual arch; that PTX is
//! the `compute_XY` target's output as is. The *ptxas* phase (`ptxas -arch=sm_XY -m64`) turns
//! that PTX into the `sm_XY` cubin. So `8.9+PTX` costs one cicc job and one ptxas job, not two
//! full compiles, and the scheduler can interleave phases of different targets. With the same
//! flags this produces cubins byte-identical to `nvcc -cubin -arch=sm_XY` (checked by
//! `tests/tests/it/build_toolkit.rs`): nvcc passes `-m64` to ptxas, and the cubin's
//! `.note.nv.tkinfo` records ptxas's command line, so we pass it too.

pub(crate) mod dist;
pub(crate) mod exec;
pub(crate) mod share;

mod commands;
mod graph;
mod settings;
#[cfg(test)]
mod tests;

/// Which toolkit runs a job: the toolkit folder's, where a build's toolkits are one value.
pub(crate) use crate::toolkit::makers::Maker;
pub(crate) use commands::*;
pub(crate) use graph::*;
pub(crate) use settings::*;
