//! Kernel parameter layouts from PTX `.entry` declarations: what the driver copies for each
//! argument of a launch (its count, and each one's size and alignment).
//!
//! A kernel's arguments are laid out by these declarations, not by the C signature the host
//! code believes in, so a build compares them across the images of one fat binary (a `-D` or
//! `#if __CUDA_ARCH__` that changes a parameter on one arch makes a launch that is right on one
//! GPU and undefined on another).

use crate::Error;

/// One kernel's parameters, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryParams {
    /// The `.entry` name (mangled for C++ kernels).
    pub name: String,
    /// Its parameters, in declaration order.
    pub params: Vec<ParamLayout>,
}

/// One `.param` of a kernel.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ParamLayout {
    /// The PTX type: `.u64`, `.f32`, `.b8` (bytes of an aggregate), …
    pub ty: String,
    /// Bytes the argument occupies: the type's size times the array length.
    pub size: u32,
    /// Its alignment: `.align N` when given, else the type's size.
    pub align: u32,
}

impl std::fmt::Display for ParamLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` ({} bytes, align {})",
            self.ty, self.size, self.align
        )
    }
}

/// Every `.entry` of PTX text with its parameter layout, in file order.
pub fn entry_params(bytes: &[u8]) -> Result<Vec<EntryParams>, Error> {
    let text = blank_comments_and_strings(crate::compress::ptx_text(bytes));
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(at) = find_directive(&text, b".entry", pos) {
        pos = at + b".entry".len();
        let name_start = skip_space(&text, pos);
        let name_end = name_start
            + text[name_start..]
                .iter()
                .take_while(|&&c| is_ident_byte(c))
                .count();
        let name = String::from_utf8_lossy(&text[name_start..name_end]).into_owned();
        if name.is_empty() {
            return Err(Error::bad_ptx("an `.entry` directive has no kernel name"));
        }
        pos = skip_space(&text, name_end);
        let mut params = Vec::new();
        if text.get(pos) == Some(&b'(') {
            let close = text[pos..]
                .iter()
                .position(|&c| c == b')')
                .map(|i| pos + i)
                .ok_or_else(|| {
                    Error::bad_ptx(format!(
                        "the parameter list of `.entry {name}` is not closed"
                    ))
                })?;
            for (i, decl) in text[pos + 1..close].split(|&c| c == b',').enumerate() {
                let decl = String::from_utf8_lossy(decl);
                if decl.trim().is_empty() && i == 0 {
                    continue; // `()`
                }
                params.push(param(&decl).ok_or_else(|| {
                    Error::bad_ptx(format!(
                        "parameter {i} of `.entry {name}` is not `.param [.align N] .TYPE \
                         NAME[[N]]`: `{}`",
                        decl.trim()
                    ))
                })?);
            }
            pos = close + 1;
        }
        out.push(EntryParams { name, params });
    }
    Ok(out)
}

/// `.param [.align N] .TYPE [.ptr [.SPACE] [.align M]] NAME[[N]]`. After `.ptr`, `.align M` is
/// the alignment of the memory the pointer points to (nvcc writes `.ptr .align 1` for pointer
/// parameters of sm_100 and newer), not the parameter's own.
fn param(decl: &str) -> Option<ParamLayout> {
    let mut words = decl.split_whitespace();
    if words.next()? != ".param" {
        return None;
    }
    let mut align = None;
    let mut ty = None;
    let mut name = None;
    let mut pointee = false;
    while let Some(w) = words.next() {
        match w {
            ".ptr" => pointee = true,
            ".global" | ".const" | ".shared" | ".local" => {}
            ".align" if pointee => {
                words.next()?.parse::<u32>().ok()?;
            }
            ".align" => align = Some(words.next()?.parse::<u32>().ok()?),
            w if w.starts_with('.') => ty = Some(w),
            w => name = Some(w),
        }
    }
    let ty = ty?;
    let unit = type_size(ty)?;
    let name = name?;
    // `name[16]` or `name [16]`: the array length, else 1.
    let count = match name.split_once('[') {
        Some((_, rest)) => rest.trim_end_matches(']').trim().parse::<u32>().ok()?,
        None => 1,
    };
    Some(ParamLayout {
        ty: ty.to_string(),
        size: unit.checked_mul(count)?,
        align: align.unwrap_or(unit),
    })
}

fn type_size(ty: &str) -> Option<u32> {
    Some(match ty {
        ".b8" | ".u8" | ".s8" | ".pred" => 1,
        ".b16" | ".u16" | ".s16" | ".f16" | ".bf16" => 2,
        ".b32" | ".u32" | ".s32" | ".f32" | ".f16x2" | ".bf16x2" => 4,
        ".b64" | ".u64" | ".s64" | ".f64" => 8,
        ".b128" => 16,
        _ => return None,
    })
}

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'%' | b'.')
}

fn skip_space(b: &[u8], mut pos: usize) -> usize {
    while b.get(pos).is_some_and(u8::is_ascii_whitespace) {
        pos += 1;
    }
    pos
}

/// The next `word` at `from` or later that stands alone (not part of a longer token).
fn find_directive(b: &[u8], word: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i + word.len() <= b.len() {
        let at = i + b[i..].windows(word.len()).position(|w| w == word)?;
        let before = at.checked_sub(1).map(|p| b[p]);
        let after = b.get(at + word.len()).copied();
        if !before.is_some_and(is_ident_byte) && !after.is_some_and(is_ident_byte) {
            return Some(at);
        }
        i = at + 1;
    }
    None
}

/// The text with `//` and `/* */` comments and string literals turned into spaces, so that a
/// directive inside one (`.pragma ".entry …"`) is never read.
fn blank_comments_and_strings(b: &[u8]) -> Vec<u8> {
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        let end = if b[i..].starts_with(b"//") {
            b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |n| i + n)
        } else if b[i..].starts_with(b"/*") {
            find(b, b"*/", i + 2).map_or(b.len(), |n| n + 2)
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            (j + 1).min(b.len())
        } else {
            i += 1;
            continue;
        };
        out[i..end].fill(b' ');
        i = end;
    }
    out
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What nvcc 13.5 writes for `ka(const float*, float*, int, size_t, bool, __half, double,
    /// char, struct {float; int;})` and a template instantiation, with comments and a pragma.
    const PTX: &str = "//\n// .entry fake(.param .u8 x)\n.version 9.5\n.target sm_80\n\
        .address_size 64\n.pragma \".entry nope(\";\n\
        .visible .entry ka(\n\t.param .u64 ka_param_0,\n\t.param .u64 .ptr .global .align 4 \
        ka_param_1,\n\t.param .u32 ka_param_2,\n\t.param .u64 ka_param_3,\n\t.param .u8 \
        ka_param_4,\n\t.param .align 2 .b8 ka_param_5[2],\n\t.param .f64 ka_param_6,\n\t\
        .param .u8 ka_param_7, /* a comment, with a comma */\n\t.param .align 4 .b8 \
        ka_param_8[8]\n)\n.maxntid 256, 1, 1\n{\n\tret;\n}\n\
        .visible .entry _Z2ktIfEvPKT_PS0_y(\n\t.param .u64 _Z2ktIfEvPKT_PS0_y_param_0\n)\n{\n\
        ret;\n}\n.visible .entry none()\n{\n}\n.entry bare\n{\n}\n";

    fn layout(ty: &str, size: u32, align: u32) -> ParamLayout {
        ParamLayout {
            ty: ty.into(),
            size,
            align,
        }
    }

    #[test]
    fn reads_every_entry_and_parameter() {
        let e = entry_params(PTX.as_bytes()).unwrap();
        let names: Vec<&str> = e.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["ka", "_Z2ktIfEvPKT_PS0_y", "none", "bare"]);
        assert_eq!(
            e[0].params,
            [
                layout(".u64", 8, 8),
                layout(".u64", 8, 8),
                layout(".u32", 4, 4),
                layout(".u64", 8, 8),
                layout(".u8", 1, 1),
                layout(".b8", 2, 2),
                layout(".f64", 8, 8),
                layout(".u8", 1, 1),
                layout(".b8", 8, 4),
            ]
        );
        assert_eq!(e[1].params, [layout(".u64", 8, 8)]);
        // sm_100's form of the same pointer parameter: the same layout.
        let sm100 =
            ".version 9.0\n.target sm_100\n.entry v(\n.param .u64 .ptr .align 1 v_param_0\n)\n{}\n";
        assert_eq!(
            entry_params(sm100.as_bytes()).unwrap()[0].params,
            [layout(".u64", 8, 8)]
        );
        assert!(e[2].params.is_empty() && e[3].params.is_empty());
    }

    #[test]
    fn a_malformed_parameter_is_named_and_nothing_panics() {
        let bad = ".version 9.5\n.target sm_80\n.entry k(\n.param .x99 p\n)\n{}\n";
        let err = entry_params(bad.as_bytes()).unwrap_err().to_string();
        assert!(err.contains("parameter 0 of `.entry k`"), "{err}");
        let open = ".version 9.5\n.target sm_80\n.entry k(\n.param .u32 p\n";
        let err = entry_params(open.as_bytes()).unwrap_err().to_string();
        assert!(err.contains("not closed"), "{err}");
        for cut in 0..PTX.len() {
            let _ = entry_params(&PTX.as_bytes()[..cut]);
        }
    }
}
