//! One listing for anything a user points at: a fat binary, a cubin, a PTX file, or a host ELF
//! (`.o`, executable, `.so`) with fat binaries in `.nv_fatbin` sections or embedded as bytes
//! (`include_bytes!`; any other file is searched for those too). Used by `cargo archbuild inspect`.

use archbuild_arch::{Arch, PtxIsa};

use crate::host::scan_host_elf;
use crate::layout::{hex_head, FATBIN_MAGIC};
use crate::model::{Compression, Container, Entry, EntryKind};
use crate::scan::scan_embedded;
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

/// How much of each embedded image a listing reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Container and entry headers only: no image is decompressed or parsed, so `kernels` is
    /// empty and `size` is the header's uncompressed size. What a listing of targets needs
    /// (`cuobjdump --list-elf --list-ptx`), at the speed of reading headers.
    Headers,
    /// [`Detail::Headers`] of what `cuobjdump` reads: a host ELF's fat binary sections
    /// (`.nv_fatbin`, `__nv_relfatbin`), its other bytes searched only when it has none. The
    /// CUDA libraries keep thousands of LTO-IR containers in data sections that cuobjdump does
    /// not list; this skips reading them.
    Sections,
    /// Every image decompressed (bounded) and parsed for its kernel names.
    Contents,
}

/// Lists the images in a fat binary, cubin, PTX file or host ELF. Compressed images are
/// decompressed (bounded) to read their kernel names.
pub fn read_any(bytes: &[u8]) -> Result<Vec<ImageRecord>, Error> {
    read_any_with(bytes, Detail::Contents)
}

/// [`read_any`], reading only as much of each embedded image as `detail` asks for. Images are
/// decoded on several threads when there are many (the CUDA math libraries hold thousands).
pub fn read_any_with(bytes: &[u8], detail: Detail) -> Result<Vec<ImageRecord>, Error> {
    match detect(bytes) {
        FileKind::Fatbin => {
            let containers = read_fatbin(bytes)?;
            let labelled: Vec<_> = containers
                .iter()
                .enumerate()
                .map(|(i, c)| (format!("container {i}"), c))
                .collect();
            list_containers(&labelled, detail)
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
            let sections = scan_host_elf(bytes)?;
            let mut labelled = Vec::new();
            for s in &sections {
                for (i, c) in s.containers.iter().enumerate() {
                    labelled.push((format!("{} container {i}", s.section), c));
                }
            }
            let embedded = match detail {
                Detail::Sections if !sections.is_empty() => Vec::new(),
                _ => scan_embedded(bytes),
            };
            labelled.extend(embedded.iter().map(|c| (embedded_label(c), c)));
            list_containers(&labelled, detail)
        }
        // Not ELF: a PE or Mach-O program, or any file, may still hold fat binaries as bytes.
        FileKind::Unknown => {
            let embedded = scan_embedded(bytes);
            if embedded.is_empty() {
                return Err(Error::UnknownFormat {
                    len: bytes.len(),
                    head: hex_head(bytes),
                });
            }
            let labelled: Vec<_> = embedded.iter().map(|c| (embedded_label(c), c)).collect();
            list_containers(&labelled, detail)
        }
    }
}

/// How a fat binary embedded as bytes is named: by its file offset, `embedded at 0x1f40`.
pub(crate) fn embedded_label(c: &Container<'_>) -> String {
    format!("embedded at {:#x}", c.offset)
}

/// Below this many entries one thread decodes them all (spawning costs more than it saves).
const PARALLEL_FROM: usize = 64;

/// The records of the entries of `containers`, each labelled with where its container is
/// (`container 1`, `.nv_fatbin container 0`, `embedded at 0x1f40`).
fn list_containers(
    containers: &[(String, &Container<'_>)],
    detail: Detail,
) -> Result<Vec<ImageRecord>, Error> {
    let entries: Vec<(String, &Entry<'_>)> = containers
        .iter()
        .flat_map(|(label, c)| {
            c.entries
                .iter()
                .enumerate()
                .map(move |(ei, e)| (format!("{label} entry {ei}"), e))
        })
        .collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if detail != Detail::Contents || entries.len() < PARALLEL_FROM || threads == 1 {
        return entries.iter().map(|(l, e)| record(l, e, detail)).collect();
    }
    // Contiguous chunks, one per thread, so the records keep the file's order.
    let chunk = entries.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = entries
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|(l, e)| record(l, e, detail))
                        .collect::<Result<Vec<_>, Error>>()
                })
            })
            .collect();
        let mut records = Vec::with_capacity(entries.len());
        for h in handles {
            match h.join() {
                Ok(part) => records.extend(part?),
                // A decoder panicking is a bug; its message is the best report there is.
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        Ok(records)
    })
}

/// One entry's record.
fn record(location: &str, e: &Entry<'_>, detail: Detail) -> Result<ImageRecord, Error> {
    // LTO-IR may be in NVIDIA's private encoding: list it without decoding.
    let (size, kernels) = match (e.kind, detail) {
        // A compressed PTX's uncompressed size counts its NUL; the listing counts the text.
        (EntryKind::Ptx, Detail::Headers | Detail::Sections)
            if e.compression != Compression::None =>
        {
            ((e.uncompressed_size as usize).saturating_sub(1), Vec::new())
        }
        (EntryKind::LtoIr, _) | (_, Detail::Headers | Detail::Sections) => {
            (e.uncompressed_size as usize, Vec::new())
        }
        (EntryKind::Elf, Detail::Contents) => {
            let data = e.data()?;
            let info = cubin::parse_cubin(&data).map_err(|err| err.located(location))?;
            (data.len(), info.kernels)
        }
        (EntryKind::Ptx, Detail::Contents) => {
            let data = e.data()?;
            let info = ptx::parse_ptx(&data).map_err(|err| err.located(location))?;
            (data.len(), info.entries)
        }
    };
    Ok(ImageRecord {
        kind: e.kind,
        arch: e.arch,
        ptx_isa: e.ptx_isa(),
        stored_size: e.payload.len(),
        size,
        compression: e.compression,
        kernels,
        location: location.to_owned(),
        identifier: e.identifier.map(str::to_owned),
    })
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

#[cfg(test)]
mod detail_tests {
    use super::*;
    use crate::{CompressionChoice, FatbinWriter};

    fn ptx(sm: u32, kernel: &str) -> String {
        format!(
            ".version 8.0\n.target sm_{sm}\n.address_size 64\n\n.visible .entry {kernel}()\n{{\n\tret;\n}}\n"
        )
    }

    #[test]
    fn a_header_listing_is_the_full_listing_without_contents_in_the_same_order() {
        // Enough entries for the threaded path: 16 concatenated containers of 5 archs each, as
        // a linker concatenates the fat binaries of its objects.
        let archs = [75, 80, 86, 89, 90];
        let mut bytes = Vec::new();
        for c in 0..16 {
            let mut w = FatbinWriter::new();
            w.compression(match c % 3 {
                // zstd where this build writes it (`c-writers`).
                0 if crate::writers() == crate::Writers::C => CompressionChoice::all_zstd(),
                0 | 1 => CompressionChoice::all_lz4(),
                _ => CompressionChoice::stored(),
            });
            for (j, sm) in archs.iter().enumerate() {
                let arch = Arch::new(
                    archbuild_arch::ComputeCapability::from_sm(*sm),
                    Default::default(),
                );
                let text = ptx(*sm, &format!("k{}", c * archs.len() + j));
                w.add_ptx(text.as_bytes(), arch).unwrap();
            }
            bytes.extend(w.write().unwrap());
        }
        let full = read_any(&bytes).unwrap();
        let heads = read_any_with(&bytes, Detail::Headers).unwrap();
        assert_eq!(full.len(), 80);
        assert_eq!(heads.len(), 80);
        for (i, (f, h)) in full.iter().zip(&heads).enumerate() {
            assert_eq!(
                f.kernels,
                [format!("k{i}")],
                "file order kept by the threads"
            );
            assert!(h.kernels.is_empty());
            assert_eq!(
                (
                    f.kind,
                    f.arch,
                    f.ptx_isa,
                    f.stored_size,
                    &f.location,
                    f.size
                ),
                (
                    h.kind,
                    h.arch,
                    h.ptx_isa,
                    h.stored_size,
                    &h.location,
                    h.size
                )
            );
        }
    }
}
