//! Builds small but well-formed ELF files for tests that must not need the CUDA toolkit:
//! cubins shaped like nvcc's (EM_CUDA, `e_flags` per ELF ABI version, `.nv.compat`, kernels as
//! `STO_CUDA_ENTRY` function symbols in `.text.<name>` sections) and host objects that embed fat
//! binaries in `.nv_fatbin` / `__nv_relfatbin`.

/// One section to lay out.
pub struct Section {
    pub name: String,
    pub sh_type: u32,
    pub data: Vec<u8>,
    pub link: u32,
    pub info: u32,
    pub entsize: u64,
}

impl Section {
    pub fn progbits(name: &str, data: &[u8]) -> Self {
        Section {
            name: name.into(),
            sh_type: 1,
            data: data.to_vec(),
            link: 0,
            info: 0,
            entsize: 0,
        }
    }
}

/// A 64-bit little-endian ELF with the given header fields and sections (a null section and
/// `.shstrtab` are added).
pub fn elf(
    machine: u16,
    osabi: u8,
    abi_version: u8,
    e_flags: u32,
    sections: Vec<Section>,
) -> Vec<u8> {
    let mut shstrtab = vec![0u8];
    let mut name_offs = Vec::new();
    for s in sections
        .iter()
        .map(|s| s.name.as_str())
        .chain([".shstrtab"])
    {
        name_offs.push(shstrtab.len() as u32);
        shstrtab.extend_from_slice(s.as_bytes());
        shstrtab.push(0);
    }
    let mut out = vec![0u8; 64];
    let mut headers = vec![[0u8; 64]]; // null section
    let mut all = sections;
    all.push(Section {
        sh_type: 3,
        ..Section::progbits(".shstrtab", &shstrtab)
    });
    for (sec, name) in all.iter().zip(name_offs) {
        let Section {
            sh_type,
            data,
            link,
            info,
            entsize,
            ..
        } = sec;
        while !out.len().is_multiple_of(8) {
            out.push(0);
        }
        let offset = out.len() as u64;
        out.extend_from_slice(data);
        let mut h = [0u8; 64];
        h[0..4].copy_from_slice(&name.to_le_bytes());
        h[4..8].copy_from_slice(&sh_type.to_le_bytes());
        h[24..32].copy_from_slice(&offset.to_le_bytes());
        h[32..40].copy_from_slice(&(data.len() as u64).to_le_bytes());
        h[40..44].copy_from_slice(&link.to_le_bytes());
        h[44..48].copy_from_slice(&info.to_le_bytes());
        h[48..56].copy_from_slice(&8u64.to_le_bytes());
        h[56..64].copy_from_slice(&entsize.to_le_bytes());
        headers.push(h);
    }
    while !out.len().is_multiple_of(8) {
        out.push(0);
    }
    let shoff = out.len() as u64;
    for h in &headers {
        out.extend_from_slice(h);
    }
    out[0..4].copy_from_slice(b"\x7fELF");
    out[4] = 2; // ELFCLASS64
    out[5] = 1; // little-endian
    out[6] = 1; // EV_CURRENT
    out[7] = osabi;
    out[8] = abi_version;
    out[16..18].copy_from_slice(&1u16.to_le_bytes()); // ET_REL
    out[18..20].copy_from_slice(&machine.to_le_bytes());
    out[20..24].copy_from_slice(&1u32.to_le_bytes());
    out[40..48].copy_from_slice(&shoff.to_le_bytes());
    out[48..52].copy_from_slice(&e_flags.to_le_bytes());
    out[52..54].copy_from_slice(&64u16.to_le_bytes());
    out[58..60].copy_from_slice(&64u16.to_le_bytes());
    out[60..62].copy_from_slice(&(headers.len() as u16).to_le_bytes());
    out[62..64].copy_from_slice(&(headers.len() as u16 - 1).to_le_bytes()); // shstrndx: last
    out
}

/// `.nv.compat` records as nvcc 13.5 writes them; attribute 9 is 1 for `a` targets.
pub fn nv_compat(arch_specific: bool) -> Vec<u8> {
    let mut v = vec![
        2,
        9,
        arch_specific as u8,
        0,
        2,
        0x0c,
        0,
        0,
        2,
        2,
        1,
        0,
        3,
        0x0d,
        1,
        1,
    ];
    v.extend_from_slice(&[4, 0x0b, 8, 0, 9, 0, 0, 0, 0, 0, 0, 0, 3, 0x0e, 0x40, 4]);
    v
}

/// A cubin for SM `sm` with the given kernels; `text` fills each kernel's code section.
/// ABI version 8 (CUDA 13) records `a` only in `.nv.compat`; version 7 (CUDA 12) also in
/// `e_flags` bit 0x800.
pub fn cubin(
    sm: u32,
    abi_version: u8,
    arch_specific: bool,
    kernels: &[String],
    text: &[u8],
) -> Vec<u8> {
    let e_flags = if abi_version >= 8 {
        0x0600_0000 | (sm << 8) | if sm >= 100 { 2 } else { 4 }
    } else {
        (sm << 16) | 0x500 | sm | if arch_specific { 0x800 } else { 0 }
    };
    // Section indices: 1 .strtab, 2 .symtab, 3 .nv.compat, 4.. .text.<kernel>
    let mut strtab = vec![0u8];
    let mut syms = vec![0u8; 24];
    let mut sections = Vec::new();
    for (i, k) in kernels.iter().enumerate() {
        let mut sym = [0u8; 24];
        sym[0..4].copy_from_slice(&(strtab.len() as u32).to_le_bytes());
        sym[4] = 0x12; // STB_GLOBAL, STT_FUNC
        sym[5] = 0x10; // STO_CUDA_ENTRY
        sym[6..8].copy_from_slice(&(4 + i as u16).to_le_bytes());
        sym[16..24].copy_from_slice(&(text.len() as u64).to_le_bytes());
        syms.extend_from_slice(&sym);
        strtab.extend_from_slice(k.as_bytes());
        strtab.push(0);
        sections.push(Section {
            sh_type: 1,
            ..Section::progbits(&format!(".text.{k}"), text)
        });
    }
    let mut all = vec![
        Section {
            sh_type: 3,
            ..Section::progbits(".strtab", &strtab)
        },
        Section {
            sh_type: 2,
            link: 1,
            info: 1,
            entsize: 24,
            ..Section::progbits(".symtab", &syms)
        },
        Section {
            sh_type: 0x7000_0086,
            ..Section::progbits(".nv.compat", &nv_compat(arch_specific))
        },
    ];
    all.extend(sections);
    elf(190, 0x41, abi_version, e_flags, all)
}

/// A host (x86-64) relocatable object whose named sections hold `data`.
pub fn host_object(sections: &[(&str, &[u8])]) -> Vec<u8> {
    let secs = sections
        .iter()
        .map(|(n, d)| Section::progbits(n, d))
        .collect();
    elf(62, 0, 0, 0, secs)
}

/// PTX text like nvcc's for `target` (e.g. `sm_90a`) with the given kernels.
pub fn ptx(version: (u32, u32), target: &str, kernels: &[String], body: &str) -> Vec<u8> {
    let mut s = format!(
        "//\n// Generated by a test\n//\n\n.version {}.{}\n.target {target}\n.address_size 64\n\n",
        version.0, version.1
    );
    for k in kernels {
        s.push_str(&format!(
            ".visible .entry {k}(\n\t.param .u64 {k}_param_0\n)\n{{\n{body}\n\tret;\n}}\n\n"
        ));
    }
    s.into_bytes()
}
