//! Every kernel's declared C signature, read from the launch stub cicc writes beside its PTX,
//! mapped to Rust types for the typed launchers (`launchers.rs`) and checked against each
//! image's `.entry`.
//!
//! The stub defines one host function per kernel, `__device_stub_<mangled>`, named by the
//! Itanium mangling of the kernel's declaration — `extern "C"` kernels included, whose PTX names
//! carry no types. Mangled types are canonical (typedefs such as `size_t` or `half` resolved),
//! so demangling (cpp_demangle) gives the exact C types. A C++ kernel's `.entry` is the mangled
//! name itself; an `extern "C"` one is its unqualified base name.

use std::collections::BTreeMap;

use archbuild_arch::Arch;
use archbuild_fatbin::ptx_params::{EntryParams, ParamLayout};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The version of how declarations are read and mapped, in the pack stamp's key.
pub(crate) const FORMAT: &str = "1";

/// One kernel's declaration (kept in build records, `archbuild::record::Declared`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declared {
    /// Its `.entry` name, as the driver finds it.
    pub entry: String,
    /// The declaration, demangled: `vadd(float const*, float const*, float*, unsigned int)`.
    pub shown: String,
    pub params: Vec<Param>,
}

/// One parameter: its C type and, when it maps, its Rust form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Param {
    pub c: String,
    pub rust: Option<RustParam>,
}

/// How a parameter reaches a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RustParam {
    /// A scalar by value.
    Value(Scalar),
    /// `const T*`: a device buffer the kernel reads.
    In(Scalar),
    /// `T*`: a device buffer the kernel may write.
    Out(Scalar),
}

/// The scalar types a launcher passes by their exact width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scalar {
    I8,
    U8,
    /// C's `char`, whose sign is the platform's (`c_char`).
    Char,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
    Bool,
    /// `__half`, as archbuild-runtime's `launch::Half`.
    Half,
    /// `__nv_bfloat16`, as archbuild-runtime's `launch::Bf16`.
    Bf16,
}

impl Scalar {
    fn of(c: &str) -> Option<Self> {
        Some(match c {
            "signed char" => Self::I8,
            "unsigned char" => Self::U8,
            "char" => Self::Char,
            "short" => Self::I16,
            "unsigned short" => Self::U16,
            "int" => Self::I32,
            "unsigned int" => Self::U32,
            // LP64 (Linux): `long` is 64 bits; the `.entry` check below holds that.
            "long" | "long long" => Self::I64,
            "unsigned long" | "unsigned long long" => Self::U64,
            "float" => Self::F32,
            "double" => Self::F64,
            "bool" => Self::Bool,
            "__half" => Self::Half,
            "__nv_bfloat16" => Self::Bf16,
            _ => return None,
        })
    }

    /// The Rust type, `krate` naming archbuild-runtime in the generated code.
    pub(crate) fn rust(self, krate: &str) -> String {
        match self {
            Self::I8 => "i8".into(),
            Self::U8 => "u8".into(),
            Self::Char => "::std::ffi::c_char".into(),
            Self::I16 => "i16".into(),
            Self::U16 => "u16".into(),
            Self::I32 => "i32".into(),
            Self::U32 => "u32".into(),
            Self::I64 => "i64".into(),
            Self::U64 => "u64".into(),
            Self::F32 => "f32".into(),
            Self::F64 => "f64".into(),
            Self::Bool => "bool".into(),
            Self::Half => format!("{krate}::launch::Half"),
            Self::Bf16 => format!("{krate}::launch::Bf16"),
        }
    }

    /// Bytes and alignment as a kernel parameter.
    fn size(self) -> u32 {
        match self {
            Self::I8 | Self::U8 | Self::Char | Self::Bool => 1,
            Self::I16 | Self::U16 | Self::Half | Self::Bf16 => 2,
            Self::I32 | Self::U32 | Self::F32 => 4,
            Self::I64 | Self::U64 | Self::F64 => 8,
        }
    }
}

impl RustParam {
    /// `(size, align)` the `.entry` must declare for it.
    fn layout(self) -> (u32, u32) {
        match self {
            Self::Value(s) => (s.size(), s.size()),
            Self::In(_) | Self::Out(_) => (8, 8),
        }
    }
}

impl Param {
    /// A parameter of C type `c` (as the demangler writes it), mapped when it can be.
    pub(crate) fn of_c(c: &str) -> Self {
        Self {
            c: c.to_owned(),
            rust: map(c),
        }
    }
}

impl Declared {
    /// Why the kernel gets no typed launcher, or `None` when every parameter maps.
    pub(crate) fn unmapped(&self) -> Option<String> {
        let (i, p) = self
            .params
            .iter()
            .enumerate()
            .find(|(_, p)| p.rust.is_none())?;
        let what = if p.c.contains("(*)") {
            "a function pointer"
        } else if p.c.ends_with('*') {
            "a pointer to a type with no Rust counterpart here"
        } else {
            "a type passed by value that is not a scalar (a struct or a vector type)"
        };
        Some(format!("parameter {i} is `{}`, {what}", p.c))
    }
}

/// Maps one C parameter type as cpp_demangle writes it (`float const*`, `unsigned long`).
fn map(c: &str) -> Option<RustParam> {
    let Some(pointee) = c.strip_suffix('*') else {
        return Scalar::of(c).map(RustParam::Value);
    };
    let pointee = pointee.trim_end().trim_end_matches(" restrict").trim_end();
    if pointee.contains(['*', '(', '&']) || pointee.contains("volatile") {
        return None;
    }
    match pointee.strip_suffix(" const") {
        Some(t) => Scalar::of(t.trim()).map(RustParam::In),
        None => Scalar::of(pointee).map(RustParam::Out),
    }
}

/// The declarations in a launch stub of the kernels among `entries` (one image's `.entry`
/// names), in stub order.
pub(crate) fn from_stub(stub: &[u8], entries: &[String]) -> Vec<Declared> {
    let text = String::from_utf8_lossy(stub);
    let mut out: Vec<Declared> = Vec::new();
    // Every kernel has a stub function named `__device_stub_` and its mangling
    // (`__device_stub__Z4vaddPKfS0_Pfj`), declared, defined (over one or several lines) and
    // called; a template's wrapper (`__wrapper__device_stub_fill<double>`) is not mangled.
    let mut names: Vec<&str> = Vec::new();
    for (at, _) in text.match_indices("__device_stub__Z") {
        let rest = &text[at + "__device_stub_".len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if !names.contains(&&rest[..end]) {
            names.push(&rest[..end]);
        }
    }
    for mangled in names {
        let mangled = mangled.to_owned();
        let Some(shown) = demangle(&mangled) else {
            continue;
        };
        let Some((name, params)) = split_declaration(&shown) else {
            continue;
        };
        let base = name.rsplit("::").next().unwrap_or(&name).to_owned();
        let entry = if entries.contains(&mangled) {
            mangled
        } else if entries.contains(&base) {
            base
        } else {
            continue; // compiled out of this image
        };
        if out.iter().any(|d| d.entry == entry) {
            continue;
        }
        let params: Vec<Param> = params
            .into_iter()
            .map(|c| Param { rust: map(&c), c })
            .collect();
        out.push(Declared {
            entry,
            shown: format!("{name}({})", list(&params_c(&params))),
            params,
        });
    }
    out
}

fn params_c(params: &[Param]) -> Vec<&str> {
    params.iter().map(|p| p.c.as_str()).collect()
}

fn list(items: &[&str]) -> String {
    items.join(", ")
}

fn demangle(mangled: &str) -> Option<String> {
    let symbol = cpp_demangle::Symbol::new(mangled).ok()?;
    symbol.demangle().ok()
}

/// `void fill<double>(double*, double, unsigned long)` → (`fill<double>`, its parameter types).
fn split_declaration(shown: &str) -> Option<(String, Vec<String>)> {
    let body = shown.trim_end();
    if !body.ends_with(')') {
        return None;
    }
    // The parameter list is the last top-level parenthesised group.
    let mut depth = 0i32;
    let mut open = None;
    for (i, c) in body.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    open = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let open = open?;
    let head = &body[..open];
    // A template's return type comes first (`void fill<double>`): the name is the last
    // top-level word.
    let name = last_word(head);
    let inner = &body[open + 1..body.len() - 1];
    let mut params = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                params.push(inner[start..i].trim().to_owned());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = inner[start..].trim();
    if !last.is_empty() {
        params.push(last.to_owned());
    }
    Some((name, params))
}

fn last_word(head: &str) -> String {
    let mut depth = 0i32;
    for (i, c) in head.char_indices().rev() {
        match c {
            '>' | ')' => depth += 1,
            '<' | '(' => depth -= 1,
            ' ' if depth == 0 => return head[i + 1..].to_owned(),
            _ => {}
        }
    }
    head.to_owned()
}

/// Checks each arch's declarations against the other archs' and against its own PTX's `.entry`
/// layouts; returns the module's declarations (each kernel once, in entry order).
pub(crate) fn check(
    module: &str,
    by_arch: &[(Arch, Vec<Declared>, Vec<EntryParams>)],
) -> Result<Vec<Declared>> {
    let refuse = |kernel: &str, detail: String| Error::KernelDeclarationDiffers {
        module: module.to_owned(),
        kernel: kernel.to_owned(),
        detail,
    };
    // kernel → declaration → archs declaring it so.
    let mut seen: BTreeMap<&str, Vec<(&Declared, Vec<Arch>)>> = BTreeMap::new();
    for (arch, declared, layouts) in by_arch {
        for d in declared {
            let ptx = layouts.iter().find(|e| e.name == d.entry);
            if let Some(ptx) = ptx {
                against_ptx(d, &ptx.params, *arch).map_err(|detail| refuse(&d.entry, detail))?;
            }
            let forms = seen.entry(&d.entry).or_default();
            match forms
                .iter_mut()
                .find(|(f, _)| params_c(&f.params) == params_c(&d.params))
            {
                Some((_, archs)) => archs.push(*arch),
                None => forms.push((d, vec![*arch])),
            }
        }
    }
    let mut out = Vec::new();
    for (kernel, forms) in seen {
        if forms.len() > 1 {
            let first = &forms[0].0.params;
            let other = &forms[1].0.params;
            let i = (0..first.len().max(other.len()))
                .find(|&i| first.get(i).map(|p| &p.c) != other.get(i).map(|p| &p.c))
                .unwrap_or(0);
            let parts: Vec<String> = forms
                .iter()
                .map(|(d, archs)| match d.params.get(i) {
                    Some(p) => format!("`{}` in {}", p.c, images(archs)),
                    None => format!("absent in {}", images(archs)),
                })
                .collect();
            return Err(refuse(
                kernel,
                format!("parameter {i} declared as {}", parts.join(" but ")),
            ));
        }
        out.push(forms[0].0.clone());
    }
    Ok(out)
}

/// The declaration against one image's `.entry`: the count, and each mapped parameter's size
/// and alignment.
fn against_ptx(d: &Declared, ptx: &[ParamLayout], arch: Arch) -> std::result::Result<(), String> {
    let image = images(&[arch]);
    if ptx.len() != d.params.len() {
        return Err(format!(
            "{} parameter(s) in its declaration `{}` but {} in the `.entry` of {image}",
            d.params.len(),
            d.shown,
            ptx.len()
        ));
    }
    for (i, (p, l)) in d.params.iter().zip(ptx).enumerate() {
        let Some(r) = p.rust else { continue };
        if r.layout() != (l.size, l.align) {
            return Err(format!(
                "parameter {i} declared as `{}` ({} bytes, align {}) but {l} in the `.entry` of \
                 {image}",
                p.c,
                r.layout().0,
                r.layout().1
            ));
        }
    }
    Ok(())
}

/// The images of `archs` as a message names them: `sm_80, sm_86`.
pub(crate) fn images(archs: &[Arch]) -> String {
    let names: Vec<String> = archs
        .iter()
        .map(|a| format!("sm_{}", a.sm_name()))
        .collect();
    names.join(", ")
}

#[cfg(test)]
#[path = "signature_tests.rs"]
mod tests;
