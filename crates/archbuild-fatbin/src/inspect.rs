//! One listing for anything a user points at: a fat binary, a cubin, a PTX file, or a host ELF
//! (`.o`, executable, `.so`) with embedded fat binaries. Used by `cargo archbuild inspect`.

use archbuild_arch::{Arch, PtxIsa};

use crate::host::scan_host_elf;
use crate::layout::{hex_head, FATBIN_MAGIC};
use crate::model::{Compression, Container, EntryKind};
use crate::{cubin, ptx, read_fatbin, Error};

/// What a file is, judged from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A fat binary container (`.fatbin`).
    Fatbin,
    /// A CUDA device ELF (`e_machine` 190).
    Cubin,
    /// PTX text (first directive `.version`).
    Ptx,
    /// Any other ELF: object, executable or shared library that may embed fat binaries.
    HostElf,
    Unknown,
}

/// Classifies `bytes` without parsing them fully.
pub fn detect(bytes: &[u8]) -> FileKind {
    if bytes.len() >= 4 && bytes[..4] == FATBIN_MAGIC.to_le_bytes() {
        return FileKind::Fatbin;
    }
    if bytes.starts_with(b"\x7fELF") {
        let machine = match (bytes.get(5), bytes.get(18..20)) {
            (Some(1), Some(m)) => u16::from_le_bytes([m[0], m[1]]),
            (Some(2), Some(m)) => u16::from_be_bytes([m[0], m[1]]),
            _ => 0,
        };
        return if machine == 190 {
            FileKind::Cubin
        } else {
            FileKind::HostElf
        };
    }
    if looks_like_ptx(bytes) {
        return FileKind::Ptx;
    }
    FileKind::Unknown
}

/// True if, after whitespace and comments, the text starts with `.version`.
fn looks_like_ptx(bytes: &[u8]) -> bool {
    let mut rest = bytes;
    loop {
        let trimmed = rest.trim_ascii_start();
        if let Some(r) = trimmed.strip_prefix(b"//") {
            rest = r
                .iter()
                .position(|&b| b == b'\n')
                .map_or(&[][..], |n| &r[n..]);
        } else if let Some(r) = trimmed.strip_prefix(b"/*") {
            rest = r
                .windows(2)
                .position(|w| w == b"*/")
                .map_or(&[][..], |n| &r[n + 2..]);
        } else {
            return trimmed.starts_with(b".version");
        }
    }
}

/// One image found in a file, uniformly described.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageRecord {
    pub kind: EntryKind,
    pub arch: Arch,
    /// PTX ISA version (PTX images only).
    pub ptx_isa: Option<PtxIsa>,
    /// Bytes as stored (compressed size if compressed).
    pub stored_size: usize,
    /// Bytes of the image itself.
    pub size: usize,
    pub compression: Compression,
    /// Kernel names (cubin `STO_CUDA_ENTRY` symbols or PTX `.entry`); empty for LTO-IR.
    pub kernels: Vec<String>,
    /// Where: `"file"`, `"container 0 entry 2"`, or `".nv_fatbin container 1 entry 0"`.
    pub location: String,
    /// The entry's identifier (the source nvcc compiled, e.g. `a.cu`, with `-lineinfo`), if any.
    pub identifier: Option<String>,
}

/// Lists the images in a fat binary, cubin, PTX file or host ELF. Compressed images are
/// decompressed (bounded) to read their kernel names.
pub fn read_any(bytes: &[u8]) -> Result<Vec<ImageRecord>, Error> {
    match detect(bytes) {
        FileKind::Fatbin => {
            let containers = read_fatbin(bytes)?;
            list_containers(&containers, "")
        }
        FileKind::Cubin => {
            let info = cubin::parse_cubin(bytes)?;
            Ok(vec![ImageRecord {
                kind: EntryKind::Elf,
                arch: info.arch,
                ptx_isa: None,
                stored_size: bytes.len(),
                size: bytes.len(),
                compression: Compression::None,
                kernels: info.kernels,
                location: "file".into(),
                identifier: None,
            }])
        }
        FileKind::Ptx => {
            let info = ptx::parse_ptx(bytes)?;
            let size = crate::compress::ptx_text(bytes).len();
            Ok(vec![ImageRecord {
                kind: EntryKind::Ptx,
                arch: info.target,
                ptx_isa: Some(info.isa),
                stored_size: bytes.len(),
                size,
                compression: Compression::None,
                kernels: info.entries,
                location: "file".into(),
                identifier: None,
            }])
        }
        FileKind::HostElf => {
            let mut records = Vec::new();
            for embedded in scan_host_elf(bytes)? {
                records.extend(list_containers(&embedded.containers, &embedded.section)?);
            }
            Ok(records)
        }
        FileKind::Unknown => Err(Error::UnknownFormat {
            len: bytes.len(),
            head: hex_head(bytes),
        }),
    }
}

fn list_containers(containers: &[Container<'_>], section: &str) -> Result<Vec<ImageRecord>, Error> {
    let mut records = Vec::new();
    for (ci, c) in containers.iter().enumerate() {
        for (ei, e) in c.entries.iter().enumerate() {
            let location = if section.is_empty() {
                format!("container {ci} entry {ei}")
            } else {
                format!("{section} container {ci} entry {ei}")
            };
            // LTO-IR may be in NVIDIA's private encoding: list it without decoding.
            let (size, kernels) = match e.kind {
                EntryKind::LtoIr => (e.uncompressed_size as usize, Vec::new()),
                EntryKind::Elf => {
                    let data = e.data()?;
                    let info = cubin::parse_cubin(&data).map_err(|err| err.located(&location))?;
                    (data.len(), info.kernels)
                }
                EntryKind::Ptx => {
                    let data = e.data()?;
                    let info = ptx::parse_ptx(&data).map_err(|err| err.located(&location))?;
                    (data.len(), info.entries)
                }
            };
            records.push(ImageRecord {
                kind: e.kind,
                arch: e.arch,
                ptx_isa: e.ptx_isa(),
                stored_size: e.payload.len(),
                size,
                compression: e.compression,
                kernels,
                location,
                identifier: e.identifier.map(str::to_owned),
            });
        }
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_first_bytes() {
        assert_eq!(detect(&FATBIN_MAGIC.to_le_bytes()), FileKind::Fatbin);
        assert_eq!(detect(b"// comment\n/* x */ .version 9.5\n"), FileKind::Ptx);
        assert_eq!(
            detect(b"\x7fELF\x02\x01\x01\x41\x08\0\0\0\0\0\0\0\x02\0\xbe\0"),
            FileKind::Cubin
        );
        assert_eq!(
            detect(b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x01\0\x3e\0"),
            FileKind::HostElf
        );
        assert_eq!(detect(b"MZ"), FileKind::Unknown);
        assert_eq!(detect(b""), FileKind::Unknown);
        let e = read_any(b"MZ\x90\0").unwrap_err().to_string();
        assert!(e.contains("4d 5a 90 00"), "{e}");
    }
}
