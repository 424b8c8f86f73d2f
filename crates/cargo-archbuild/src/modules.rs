//! The loadable modules of a file: each fat binary container the CUDA driver would receive as
//! one `cuModuleLoadData` image. A `.fatbin` is usually one container; an executable or shared
//! library holds one per translation unit (plus a device-link stub); a lone cubin or PTX file
//! is wrapped into a one-image fat binary so every input is checked the same way.

use std::path::Path;

use archbuild_fatbin::{
    cubin, detect, host::scan_host_elf, ptx, read_fatbin, FatbinWriter, FileKind,
};

use crate::error::CliError;

/// One container's bytes, where it came from, and whether any image in it defines a kernel.
#[derive(Debug, Clone)]
pub(crate) struct Module {
    /// `container 0`, `.nv_fatbin container 2`, `file`.
    pub location: String,
    pub bytes: Vec<u8>,
    pub has_kernels: bool,
}

/// Splits `bytes` (the contents of `path`) into modules.
pub(crate) fn modules_of(path: &Path, bytes: &[u8]) -> Result<Vec<Module>, CliError> {
    let format_err = |source| CliError::Format {
        path: path.to_path_buf(),
        source,
    };
    let mut modules = Vec::new();
    match detect(bytes) {
        FileKind::Fatbin => {
            let containers = read_fatbin(bytes).map_err(format_err)?;
            let one = containers.len() == 1;
            for (i, c) in containers.iter().enumerate() {
                let slice = bytes.get(c.offset..c.offset + c.len).unwrap_or(&[]);
                // One container is the file itself: say so, not `container 0`.
                let location = if one {
                    "file".to_owned()
                } else {
                    format!("container {i}")
                };
                modules.push(module(location, slice)?);
            }
        }
        FileKind::Cubin => {
            let info = cubin::parse_cubin(bytes).map_err(format_err)?;
            let mut w = FatbinWriter::new();
            w.add_cubin(bytes, info.arch).map_err(format_err)?;
            modules.push(module("file".into(), &w.write().map_err(format_err)?)?);
        }
        FileKind::Ptx => {
            let info = ptx::parse_ptx(bytes).map_err(format_err)?;
            let mut w = FatbinWriter::new();
            w.add_ptx(bytes, info.target).map_err(format_err)?;
            modules.push(module("file".into(), &w.write().map_err(format_err)?)?);
        }
        FileKind::HostElf => {
            let sections = scan_host_elf(bytes).map_err(format_err)?;
            // As cuobjdump and the CUDA runtime do: the executable fatbin when there is one.
            let has_exec = sections
                .iter()
                .any(|s| s.section == ".nv_fatbin" && !s.containers.is_empty());
            for s in sections
                .iter()
                .filter(|s| !has_exec || s.section == ".nv_fatbin")
            {
                for (i, c) in s.containers.iter().enumerate() {
                    let slice = bytes.get(c.offset..c.offset + c.len).unwrap_or(&[]);
                    modules.push(module(format!("{} container {i}", s.section), slice)?);
                }
            }
        }
        // The reader's error names what the bytes start with.
        FileKind::Unknown => {
            archbuild_fatbin::read_any(bytes).map_err(format_err)?;
        }
    }
    if modules.is_empty() {
        return Err(CliError::NoImages {
            path: path.to_path_buf(),
        });
    }
    Ok(modules)
}

fn module(location: String, bytes: &[u8]) -> Result<Module, CliError> {
    let records = archbuild_fatbin::read_any(bytes).map_err(|source| CliError::Format {
        path: location.clone().into(),
        source,
    })?;
    let has_kernels = records.iter().any(|r| !r.kernels.is_empty());
    Ok(Module {
        location,
        bytes: bytes.to_vec(),
        has_kernels,
    })
}
