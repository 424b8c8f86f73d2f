//! Cubin (CUDA device ELF) reader: the target SM from `e_flags`, the `a` variant from the
//! `.nv.compat` section, and the kernel names, via the `object` crate.
//!
//! The `e_flags` layout depends on the ELF ABI version (`e_ident[EI_ABIVERSION]`):
//! - version 8 (CUDA 13): `0x06000000 | SM << 8 | low`; base, `a` and `f` cubins have the same
//!   flags, so `a` is read from `.nv.compat` (attribute 9, `EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET`)
//!   and `f` is not recorded in the cubin at all;
//! - version 7 and older (CUDA 12 and earlier): SM in the low byte, `0x800` = `a`.

use archbuild_arch::{Arch, ComputeCapability, Variant};
use object::elf;
use object::read::elf::{ElfFile64, FileHeader, Sym};
use object::{LittleEndian, Object, ObjectSection};

use crate::layout::u16_at;
use crate::Error;

/// `e_machine` of CUDA device code.
const EM_CUDA: u16 = 190;
/// `st_other` bit marking a kernel (`__global__`) symbol.
const STO_CUDA_ENTRY: u8 = 0x10;
/// ABI version 7 (CUDA 12): `e_flags` bit for the arch-specific (`a`) target.
const EF_CUDA_ACCELERATORS_V7: u32 = 0x800;
/// `.nv.compat` attribute that is 1 for `a` targets.
const COMPAT_ATTR_ACCELERATOR_TARGET: u8 = 9;

/// What a cubin says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CubinInfo {
    /// The target: SM from `e_flags`, `Arch` variant when `a`; `f` cannot be seen in a cubin.
    pub arch: Arch,
    /// `e_ident[EI_ABIVERSION]`: 8 for CUDA 13, 7 for CUDA 12.
    pub abi_version: u8,
    /// Kernel (`__global__`, `STO_CUDA_ENTRY`) names in symbol-table order, as mangled.
    pub kernels: Vec<String>,
}

/// Parses a cubin's target and kernel names.
pub fn parse_cubin(bytes: &[u8]) -> Result<CubinInfo, Error> {
    if bytes.len() < 20 || &bytes[..4] != b"\x7fELF" {
        return Err(Error::bad_cubin("it does not start with the ELF magic"));
    }
    if bytes[4] != 2 || bytes[5] != 1 {
        // ELFCLASS64, ELFDATA2LSB
        return Err(Error::bad_cubin(
            "only 64-bit little-endian device ELF files are cubins",
        ));
    }
    let machine = u16_at(bytes, 18, "ELF header")?;
    if machine != EM_CUDA {
        return Err(Error::bad_cubin(format!(
            "e_machine is {machine}, not 190 (EM_CUDA), so this is a host ELF (list it with `read_any`)"
        )));
    }
    let file = ElfFile64::<LittleEndian>::parse(bytes)
        .map_err(|e| Error::bad_cubin(format!("malformed ELF: {e}")))?;
    let abi_version = bytes[8]; // e_ident[EI_ABIVERSION]
    let e_flags = file.elf_header().e_flags(LittleEndian).0;
    let (sm, mut arch_specific) = if abi_version >= 8 {
        ((e_flags >> 8) & 0xffff, false)
    } else {
        (e_flags & 0xff, e_flags & EF_CUDA_ACCELERATORS_V7 != 0)
    };
    if sm < 10 {
        return Err(Error::bad_cubin(format!(
            "e_flags {e_flags:#x} (ELF ABI version {abi_version}) names no SM"
        )));
    }
    if let Some(compat) = compat_section(&file)? {
        arch_specific |= compat_is_arch_specific(compat);
    }
    let variant = if arch_specific {
        Variant::Arch
    } else {
        Variant::Plain
    };
    Ok(CubinInfo {
        arch: Arch::new(ComputeCapability::from_sm(sm), variant),
        abi_version,
        kernels: kernels(&file)?,
    })
}

/// The raw `.nv.compat` section of a cubin, if it has one.
pub(crate) fn nv_compat(bytes: &[u8]) -> Result<Option<&[u8]>, Error> {
    let file = ElfFile64::<LittleEndian>::parse(bytes)
        .map_err(|e| Error::bad_cubin(format!("malformed ELF: {e}")))?;
    compat_section(&file)
}

fn compat_section<'d>(file: &ElfFile64<'d, LittleEndian>) -> Result<Option<&'d [u8]>, Error> {
    match file.section_by_name(".nv.compat") {
        None => Ok(None),
        Some(s) => s
            .data()
            .map(Some)
            .map_err(|e| Error::bad_cubin(format!("`.nv.compat` section out of bounds: {e}"))),
    }
}

/// Walks `.nv.compat` records (`u8 format, u8 attribute, value`; format 4 = `u16 size` + data,
/// others a 2-byte value) looking for the accelerator-target attribute set to 1.
fn compat_is_arch_specific(mut rec: &[u8]) -> bool {
    while rec.len() >= 4 {
        let (format, attr) = (rec[0], rec[1]);
        if format == 4 {
            let size = u16::from_le_bytes([rec[2], rec[3]]) as usize;
            rec = rec.get(4 + size..).unwrap_or(&[]);
            continue;
        }
        if attr == COMPAT_ATTR_ACCELERATOR_TARGET && rec[2] != 0 {
            return true;
        }
        rec = &rec[4..];
    }
    false
}

fn kernels(file: &ElfFile64<'_, LittleEndian>) -> Result<Vec<String>, Error> {
    let endian = LittleEndian;
    let data = file.data();
    let sections = file.elf_section_table();
    let mut names = Vec::new();
    let table = sections
        .symbols(endian, data, elf::SHT_SYMTAB)
        .map_err(|e| Error::bad_cubin(format!("bad symbol table: {e}")))?;
    for sym in table.iter() {
        if sym.st_type() == elf::STT_FUNC
            && sym.st_other().0 & STO_CUDA_ENTRY != 0
            && !sym.is_undefined(endian)
        {
            let name = sym
                .name(endian, table.strings())
                .map_err(|e| Error::bad_cubin(format!("bad symbol name: {e}")))?;
            names.push(String::from_utf8_lossy(name).into_owned());
        }
    }
    Ok(names)
}

/// The exact length of a 64-bit little-endian ELF image at the start of `bytes`: the furthest
/// end of its headers, section contents and segments. `None` if the headers do not fit.
///
/// Needed because a stored ELF entry's payload is padded and its real size is not recorded.
pub(crate) fn elf_extent(bytes: &[u8]) -> Option<usize> {
    if bytes.len() < 64 || &bytes[..4] != b"\x7fELF" || bytes[4] != 2 || bytes[5] != 1 {
        return None;
    }
    let u16_ = |o: usize| -> Option<u64> {
        Some(u16::from_le_bytes(bytes.get(o..o + 2)?.try_into().ok()?) as u64)
    };
    let u32_ = |o: usize| -> Option<u64> {
        Some(u32::from_le_bytes(bytes.get(o..o + 4)?.try_into().ok()?) as u64)
    };
    let u64_ = |o: u64| -> Option<u64> {
        let o = usize::try_from(o).ok()?;
        Some(u64::from_le_bytes(
            bytes.get(o..o.checked_add(8)?)?.try_into().ok()?,
        ))
    };
    let (phoff, shoff) = (u64_(32)?, u64_(40)?);
    let (ehsize, phentsize, phnum, shentsize, shnum) =
        (u16_(52)?, u16_(54)?, u16_(56)?, u16_(58)?, u16_(60)?);
    let mut end = ehsize.max(64);
    if phnum > 0 {
        end = end.max(phoff.checked_add(phentsize * phnum)?);
    }
    if shnum > 0 {
        end = end.max(shoff.checked_add(shentsize * shnum)?);
    }
    if end > bytes.len() as u64 {
        return None;
    }
    for i in 0..shnum {
        let sh = shoff + i * shentsize;
        let sh_type = u32_(usize::try_from(sh + 4).ok()?)?;
        if sh_type != 8 && sh_type != 0 {
            // not SHT_NOBITS / SHT_NULL
            end = end.max(u64_(sh + 24)?.checked_add(u64_(sh + 32)?)?);
        }
    }
    for i in 0..phnum {
        let ph = phoff + i * phentsize;
        end = end.max(u64_(ph + 8)?.checked_add(u64_(ph + 32)?)?);
    }
    usize::try_from(end).ok().filter(|&e| e <= bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compat_records() {
        // sm_90a and sm_90 `.nv.compat` as nvcc 13.5 writes them.
        let a = hex("02090100020c0000020201000 30d0101020300000 40b08000000000000000000030e4004");
        let plain = hex("02090000020c000002020100030d010102030000040b08000000000000000000030e4004");
        assert!(compat_is_arch_specific(&a));
        assert!(!compat_is_arch_specific(&plain));
        assert!(!compat_is_arch_specific(&[4, 0, 0xff, 0xff]));
    }

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn rejects_non_cubins() {
        assert!(parse_cubin(b"").is_err());
        assert!(parse_cubin(b".version 9.5\n.target sm_90\n").is_err());
        let mut host = vec![0u8; 64];
        host[..4].copy_from_slice(b"\x7fELF");
        host[4] = 2;
        host[5] = 1;
        host[18] = 62; // EM_X86_64
        let e = parse_cubin(&host).unwrap_err().to_string();
        assert!(e.contains("e_machine is 62"), "{e}");
        assert_eq!(elf_extent(&host), Some(64));
    }
}
