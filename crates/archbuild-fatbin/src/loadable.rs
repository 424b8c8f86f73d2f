//! The loadable modules of a file: each fat binary container the CUDA driver would receive as
//! one `cuModuleLoadData` image. A `.fatbin` is usually one container; an executable or shared
//! library holds one per translation unit (plus a device-link stub); a lone cubin or PTX file
//! is wrapped into a one-image fat binary so every input is checked the same way. Fat binaries
//! embedded as bytes (archbuild's `include_bytes!`) are modules of their own,
//! `embedded at 0x1f40`.

use crate::host::scan_host_elf;
use crate::scan::scan_embedded;
use crate::{cubin, detect, ptx, read_any, read_fatbin, Error, FatbinWriter, FileKind};

/// One container's bytes, where in the file it is, and whether any image in it defines a
/// kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadableModule {
    /// `file` (the file is one container, or one image wrapped), `container 2`,
    /// `.nv_fatbin container 0`, `embedded at 0x1f40`.
    pub location: String,
    pub bytes: Vec<u8>,
    pub has_kernels: bool,
}

/// Splits `bytes` into the modules the driver would load, in file order. An executable or
/// library with an executable `.nv_fatbin` is read as the CUDA runtime and `cuobjdump` read it:
/// that section's containers only (the relocatable `__nv_relfatbin` ones are not loaded).
///
/// A container that does not read is [`Error::InContainer`]; a file that reads and holds no
/// image is [`Error::NoImages`]; any other error is the file's.
pub fn loadable_modules(bytes: &[u8]) -> Result<Vec<LoadableModule>, Error> {
    let mut modules = Vec::new();
    match detect(bytes) {
        FileKind::Fatbin => {
            let containers = read_fatbin(bytes)?;
            let one = containers.len() == 1;
            for (i, c) in containers.iter().enumerate() {
                // One container is the file itself: say so, not `container 0`.
                let location = match one {
                    true => "file".to_owned(),
                    false => format!("container {i}"),
                };
                modules.push(module(location, slice(bytes, c.offset, c.len))?);
            }
        }
        FileKind::Cubin => {
            let info = cubin::parse_cubin(bytes)?;
            let mut w = FatbinWriter::new();
            w.add_cubin(bytes, info.arch)?;
            modules.push(module("file".into(), &w.write()?)?);
        }
        FileKind::Ptx => {
            let info = ptx::parse_ptx(bytes)?;
            let mut w = FatbinWriter::new();
            w.add_ptx(bytes, info.target)?;
            modules.push(module("file".into(), &w.write()?)?);
        }
        FileKind::HostElf => {
            let sections = scan_host_elf(bytes)?;
            let has_exec = sections
                .iter()
                .any(|s| s.section == ".nv_fatbin" && !s.containers.is_empty());
            for s in sections
                .iter()
                .filter(|s| !has_exec || s.section == ".nv_fatbin")
            {
                for (i, c) in s.containers.iter().enumerate() {
                    let location = format!("{} container {i}", s.section);
                    modules.push(module(location, slice(bytes, c.offset, c.len))?);
                }
            }
            embedded(bytes, &mut modules)?;
        }
        // Not ELF: fat binaries embedded as bytes, else the reader's error, which names what the
        // bytes start with.
        FileKind::Unknown => {
            embedded(bytes, &mut modules)?;
            if modules.is_empty() {
                read_any(bytes)?;
            }
        }
    }
    if modules.is_empty() {
        return Err(Error::NoImages);
    }
    Ok(modules)
}

/// The fat binaries embedded as bytes (`include_bytes!`), which archbuild's loader loads.
fn embedded(bytes: &[u8], modules: &mut Vec<LoadableModule>) -> Result<(), Error> {
    for c in scan_embedded(bytes) {
        let location = crate::inspect::embedded_label(&c);
        modules.push(module(location, slice(bytes, c.offset, c.len))?);
    }
    Ok(())
}

/// The container's bytes; empty (which then does not read) when it lies outside the file.
fn slice(bytes: &[u8], offset: usize, len: usize) -> &[u8] {
    offset
        .checked_add(len)
        .and_then(|end| bytes.get(offset..end))
        .unwrap_or(&[])
}

fn module(location: String, bytes: &[u8]) -> Result<LoadableModule, Error> {
    match read_any(bytes) {
        Ok(records) => Ok(LoadableModule {
            has_kernels: records.iter().any(|r| !r.kernels.is_empty()),
            location,
            bytes: bytes.to_vec(),
        }),
        Err(source) => Err(Error::InContainer {
            location,
            source: Box::new(source),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use archbuild_arch::Arch;

    const PTX: &[u8] = b".version 9.0\n.target sm_86\n.address_size 64\n\n\
                          .visible .entry k()\n{\n\tret;\n}\n";

    fn fatbin(ptx: &[u8]) -> Vec<u8> {
        FatbinWriter::new()
            .add_ptx(ptx, Arch::plain(8, 6))
            .unwrap()
            .write()
            .unwrap()
    }

    #[test]
    fn one_container_is_the_file_and_several_are_numbered() {
        let one = fatbin(PTX);
        let m = loadable_modules(&one).unwrap();
        assert_eq!(
            m,
            [LoadableModule {
                location: "file".into(),
                bytes: one.clone(),
                has_kernels: true
            }]
        );
        let no_kernel = fatbin(b".version 9.0\n.target sm_86\n.address_size 64\n");
        let mut two = one.clone();
        two.extend_from_slice(&no_kernel);
        let m = loadable_modules(&two).unwrap();
        let got: Vec<_> = m
            .iter()
            .map(|m| (m.location.as_str(), m.bytes.len(), m.has_kernels))
            .collect();
        assert_eq!(
            got,
            [
                ("container 0", one.len(), true),
                ("container 1", no_kernel.len(), false)
            ]
        );
    }

    #[test]
    fn a_lone_ptx_is_wrapped_and_garbage_is_the_files_error() {
        let m = loadable_modules(PTX).unwrap();
        assert_eq!((m.len(), m[0].location.as_str()), (1, "file"));
        assert_eq!(read_fatbin(&m[0].bytes).unwrap()[0].entries.len(), 1);
        assert!(matches!(
            loadable_modules(b"not a CUDA file at all"),
            Err(Error::UnknownFormat { .. })
        ));
    }

    #[test]
    fn a_container_outside_the_file_is_an_empty_slice_not_a_panic() {
        assert_eq!(slice(b"abc", usize::MAX, 2), b"");
        assert_eq!(slice(b"abc", 1, 5), b"");
        assert_eq!(slice(b"abc", 1, 2), b"bc");
    }
}
