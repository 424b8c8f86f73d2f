//! A fat binary as the C source nvcc compiles into a host object (`fatbinary
//! --embedded-fatbin=FILE.fatbin.c`): the bytes as `.quad` words in the `.nv_fatbin` section,
//! and the `__fatDeviceText` wrapper that the stub's `__cudaRegisterFatBinary` call registers.
//! The CUDA runtime finds a program's kernels through this wrapper, and `cuobjdump` and
//! [`crate::host::scan_host_elf`] find the images through the section.

use std::fmt::Write as _;

/// The C source embedding `fatbin`, byte for byte the text `fatbinary --embedded-fatbin`
/// writes for the same container. Trailing bytes short of a word are zero-padded (a
/// container's size is a multiple of 8, so this only happens for foreign input).
pub fn embedded_c_source(fatbin: &[u8]) -> String {
    embedded(fatbin, Embedding::Whole)
}

/// [`embedded_c_source`] for an object of relocatable device code (`nvcc -rdc=true -c`): the
/// bytes in `__nv_relfatbin`, where `nvlink` (`nvcc -dlink`) finds them, and the wrapper
/// named `__fatbinwrap<module ID>`, which the device link's registration code refers to.
pub fn embedded_relocatable_c_source(fatbin: &[u8]) -> String {
    embedded(fatbin, Embedding::Relocatable)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Embedding {
    Whole,
    Relocatable,
}

fn embedded(fatbin: &[u8], how: Embedding) -> String {
    let section = match how {
        Embedding::Whole => ".nv_fatbin",
        Embedding::Relocatable => "__nv_relfatbin",
    };
    let words: Vec<u64> = fatbin
        .chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect();
    let mut s = String::with_capacity(words.len() * 20 + 1024);
    let _ = write!(
        s,
        "#ifndef __SKIP_INTERNAL_FATBINARY_HEADERS\n\
         #include \"fatbinary_section.h\"\n\
         #endif\n\
         #define __CUDAFATBINSECTION  \".nvFatBinSegment\"\n\
         #define __CUDAFATBINDATASECTION  \"{section}\"\n\
         asm(\n\
         \".section {section}, \\\"a\\\"\\n\"\n\
         \".align 8\\n\"\n\
         \"fatbinData:\\n\"\n",
    );
    for line in words.chunks(4) {
        s.push_str("\".quad ");
        for (i, w) in line.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            let _ = write!(s, "0x{w:016x}");
        }
        s.push_str("\\n\"\n");
    }
    let _ = write!(
        s,
        "\".text\\n\");\n\
         #ifdef __cplusplus\n\
         extern \"C\" {{\n\
         #endif\n\
         extern const unsigned long long fatbinData[{n}];\n\
         #ifdef __cplusplus\n\
         }}\n\
         #endif\n\
         #ifdef __cplusplus\n\
         extern \"C\" {{\n\
         #endif\n\
         {wrapper} __attribute__ ((aligned (8))) \
         __attribute__ ((section (__CUDAFATBINSECTION)))= \n\
         \t{{ 0x466243b1, 1, fatbinData, 0 }};\n\
         #undef __CUDAFATBINDATASECTION\n\
         #undef __CUDAFATBINSECTION\n\
         #ifdef __cplusplus\n\
         }}\n\
         #endif\n",
        n = words.len(),
        wrapper = match how {
            Embedding::Whole => "static const __fatBinC_Wrapper_t __fatDeviceText",
            Embedding::Relocatable =>
                "#undef __FATIDNAME_CORE\n\
                 #undef __FATIDNAME\n\
                 #define __FATIDNAME_CORE(x) __fatbinwrap##x\n\
                 #define __FATIDNAME(x) __FATIDNAME_CORE(x)\n\
                 extern const __fatBinC_Wrapper_t __FATIDNAME(__NV_MODULE_ID)",
        }
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_little_endian_four_to_a_line_and_counted() {
        let bytes: Vec<u8> = (0u8..40).collect();
        let c = embedded_c_source(&bytes);
        assert!(c.contains(
            "\".quad 0x0706050403020100,0x0f0e0d0c0b0a0908,0x1716151413121110,0x1f1e1d1c1b1a1918\\n\"\n\
             \".quad 0x2726252423222120\\n\"\n\".text\\n\");"
        ));
        assert!(c.contains("fatbinData[5];"));
        // A short tail is padded, never dropped.
        let c = embedded_c_source(&[1, 2, 3]);
        assert!(c.contains(".quad 0x0000000000030201\\n") && c.contains("fatbinData[1];"));
    }
}
