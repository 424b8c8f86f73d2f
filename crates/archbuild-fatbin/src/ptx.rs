//! PTX header reader: `.version`, `.target`, `.address_size` and the `.entry` (kernel) names.
//!
//! A small tokenizer over bytes that skips `//` and `/* */` comments and string literals, so
//! a directive name inside a comment is never taken for the directive.

use archbuild_arch::{Arch, PtxIsa, Target, TargetKind};

use crate::Error;

/// What a PTX module declares about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxInfo {
    /// `.version M.m`.
    pub isa: PtxIsa,
    /// `.target sm_XY[a|f]` (PTX names the real arch; the build target is `compute_XY`).
    pub target: Arch,
    /// `.address_size 32|64`, if present.
    pub address_size: Option<u32>,
    /// Kernel names from `.entry NAME`, in file order.
    pub entries: Vec<String>,
}

/// Parses the header directives and kernel names of PTX text (stops at the first NUL).
pub fn parse_ptx(bytes: &[u8]) -> Result<PtxInfo, Error> {
    let text = crate::compress::ptx_text(bytes);
    let mut tokens = Tokens { b: text, pos: 0 };
    let mut isa = None;
    let mut target = None;
    let mut address_size = None;
    let mut entries = Vec::new();
    let mut first = true;
    while let Some(tok) = tokens.next() {
        if first && tok != b".version" {
            return Err(Error::bad_ptx(format!(
                "the first directive is `{}`, PTX must begin with `.version`",
                show(tok)
            )));
        }
        first = false;
        match tok {
            b".version" => {
                let v = tokens.next().unwrap_or(b"");
                isa = Some(parse_version(v).ok_or_else(|| {
                    Error::bad_ptx(format!(
                        "`.version {}` is not `.version MAJOR.MINOR`",
                        show(v)
                    ))
                })?);
            }
            b".target" => {
                let t = tokens.next().unwrap_or(b"");
                let name = std::str::from_utf8(t).unwrap_or("");
                target = match Target::parse_nvcc_name(name) {
                    Some(Target {
                        arch,
                        kind: TargetKind::Cubin,
                    }) => Some(arch),
                    _ => {
                        return Err(Error::bad_ptx(format!(
                            "`.target {}` is not `sm_XY`, `sm_XYa` or `sm_XYf`",
                            show(t)
                        )))
                    }
                };
            }
            b".address_size" => {
                let t = tokens.next().unwrap_or(b"");
                address_size = match std::str::from_utf8(t).ok().and_then(|s| s.parse().ok()) {
                    Some(n @ (32 | 64)) => Some(n),
                    _ => {
                        return Err(Error::bad_ptx(format!(
                            "`.address_size {}` is not 32 or 64",
                            show(t)
                        )))
                    }
                };
            }
            b".entry" => {
                if let Some(name) = tokens.next() {
                    entries.push(String::from_utf8_lossy(name).into_owned());
                }
            }
            _ => {}
        }
    }
    let isa = isa.ok_or_else(|| Error::bad_ptx("there is no `.version` directive"))?;
    let target = target.ok_or_else(|| Error::bad_ptx("there is no `.target` directive"))?;
    Ok(PtxInfo {
        isa,
        target,
        address_size,
        entries,
    })
}

/// `9.5` → 9.5; both parts decimal, at most 3 digits each.
fn parse_version(v: &[u8]) -> Option<PtxIsa> {
    let s = std::str::from_utf8(v).ok()?;
    let (major, minor) = s.split_once('.')?;
    let ok = |p: &str| !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit());
    if !ok(major) || !ok(minor) {
        return None;
    }
    Some(PtxIsa::new(major.parse().ok()?, minor.parse().ok()?))
}

fn show(tok: &[u8]) -> String {
    let s = String::from_utf8_lossy(&tok[..tok.len().min(40)]).into_owned();
    if s.is_empty() {
        "<nothing>".into()
    } else {
        s
    }
}

/// Yields identifier-like tokens; punctuation separates tokens and is dropped.
struct Tokens<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let b = self.b;
        loop {
            let c = *b.get(self.pos)?;
            match c {
                b'/' if b.get(self.pos + 1) == Some(&b'/') => {
                    while self.pos < b.len() && b[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                b'/' if b.get(self.pos + 1) == Some(&b'*') => {
                    self.pos += 2;
                    while self.pos < b.len() && !b[self.pos..].starts_with(b"*/") {
                        self.pos += 1;
                    }
                    self.pos = (self.pos + 2).min(b.len());
                }
                b'"' => {
                    self.pos += 1;
                    while self.pos < b.len() && b[self.pos] != b'"' {
                        self.pos += if b[self.pos] == b'\\' { 2 } else { 1 };
                    }
                    self.pos = (self.pos + 1).min(b.len());
                }
                c if is_token_byte(c) => {
                    let start = self.pos;
                    while self.pos < b.len() && is_token_byte(b[self.pos]) {
                        self.pos += 1;
                    }
                    return Some(&b[start..self.pos]);
                }
                _ => self.pos += 1,
            }
        }
    }
}

fn is_token_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'$' | b'%')
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str =
        "//\n// Generated by NVIDIA NVVM Compiler\n// .entry fake(\n/* .target sm_10 */\n\
        .version 9.5\n.target sm_90a\n.address_size 64\n\n\t// .globl\tadd_one\n\
        .visible .entry add_one(\n\t.param .u64 add_one_param_0\n)\n{\n\tret;\n}\n\
        .pragma \".entry nope\";\n.entry _Z5scalePffi(\n)\n{\n ret;\n}\n";

    #[test]
    fn reads_header_and_entries() {
        let info = parse_ptx(PTX.as_bytes()).unwrap();
        assert_eq!(info.isa, PtxIsa::new(9, 5));
        assert_eq!(info.target.sm_name(), "90a");
        assert_eq!(info.address_size, Some(64));
        assert_eq!(info.entries, ["add_one", "_Z5scalePffi"]);
    }

    #[test]
    fn target_with_modifiers_and_nul_terminator() {
        let info = parse_ptx(b".version 8.0\n.target sm_52, debug\n\0garbage").unwrap();
        assert_eq!(info.target.sm_name(), "52");
        assert_eq!(info.address_size, None);
    }

    #[test]
    fn missing_or_bad_directives_are_named() {
        let e = parse_ptx(b".target sm_90\n").unwrap_err().to_string();
        assert!(e.contains("must begin with `.version`"), "{e}");
        let e = parse_ptx(b".version 9.5\n").unwrap_err().to_string();
        assert!(e.contains("no `.target`"), "{e}");
        let e = parse_ptx(b".version 9\n.target sm_90\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`.version 9`"), "{e}");
        let e = parse_ptx(b".version 9.5\n.target compute_90\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`.target compute_90`"), "{e}");
        let e = parse_ptx(b"").unwrap_err().to_string();
        assert!(e.contains("no `.version`"), "{e}");
    }
}
