//! The kernels a source declares, read from its text: what a build that compiles nothing
//! (docs.rs, with no toolkit and no usable shipped fat binary) gives its generated module, so
//! that the module has the items a real build's has and documentation that names a kernel
//! constant builds. `extern "C"` kernels are exact (the name is the symbol); a C++ kernel is
//! listed by its unqualified name (its symbol is mangled by the compiler); a template's
//! instantiations are not known without the compiler and are left out.

/// A token of C++ source, as far as finding kernel declarations needs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Punct(char),
}

/// Tokens of `text` with comments, preprocessor lines and literals left out.
fn tokens(text: &str) -> Vec<Tok> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let rest = &b[i..];
        if line_start && c == b'#' {
            // A directive, with its continuation lines.
            while i < b.len() && !(b[i] == b'\n' && b[i - 1] != b'\\') {
                i += 1;
            }
            continue;
        }
        line_start = false;
        if rest.starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            i += rest
                .windows(2)
                .skip(2)
                .position(|w| w == b"*/")
                .map_or(rest.len(), |p| p + 4);
        } else if c == b'"' || c == b'\'' {
            let mut j = i + 1;
            while j < b.len() && b[j] != c && b[j] != b'\n' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            i = j + 1;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let len = rest
                .iter()
                .position(|&x| !(x.is_ascii_alphanumeric() || x == b'_'))
                .unwrap_or(rest.len());
            out.push(Tok::Ident(String::from_utf8_lossy(&rest[..len]).into()));
            i += len;
        } else {
            out.push(Tok::Punct(c as char));
            i += 1;
        }
    }
    out
}

/// The kernels `text` declares or defines, in order, each once: the name after each
/// `__global__` outside a template declaration.
pub(crate) fn kernels(text: &str) -> Vec<String> {
    let toks = tokens(text);
    let mut found = Vec::new();
    // Where the current declaration started (after the last `;`, `{` or `}`).
    let mut decl = 0usize;
    for (k, tok) in toks.iter().enumerate() {
        match tok {
            Tok::Punct('{' | '}' | ';') => decl = k + 1,
            Tok::Ident(g) if g == "__global__" => {
                let template = toks[decl..k]
                    .iter()
                    .any(|t| *t == Tok::Ident("template".into()));
                if let Some(name) = name_after(&toks, k + 1).filter(|_| !template) {
                    if !found.contains(&name) {
                        found.push(name);
                    }
                }
            }
            _ => {}
        }
    }
    found
}

/// The declarations of the `extern "C"` kernels of `text`, each once, for the typed launchers
/// of a build that compiles nothing: parameter types as written, in the form the launch stub's
/// mangled names give a real build (`const float*` is `float const*`, `size_t` is
/// `unsigned long`). A parameter whose type is not spelled with C's own words or the CUDA types
/// the launchers know (a typedef of the project's, a struct) stays unmapped, as it would in a
/// real build for a struct; C++ kernels are left out (their symbols are mangled by the
/// compiler).
pub(crate) fn declarations(text: &str) -> Vec<crate::report::signature::Declared> {
    let toks = tokens(text);
    let mut found: Vec<crate::report::signature::Declared> = Vec::new();
    let mut decl = 0usize;
    // Whether each open brace is an `extern "C" {` block.
    let mut braces: Vec<bool> = Vec::new();
    for (k, tok) in toks.iter().enumerate() {
        match tok {
            Tok::Punct('{') => {
                let extern_block = k > 0 && toks[k - 1] == Tok::Ident("extern".into());
                braces.push(extern_block);
                decl = k + 1;
            }
            Tok::Punct('}') => {
                braces.pop();
                decl = k + 1;
            }
            Tok::Punct(';') => decl = k + 1,
            Tok::Ident(g) if g == "__global__" => {
                let head = &toks[decl..k];
                let extern_c =
                    head.contains(&Tok::Ident("extern".into())) || braces.last() == Some(&true);
                if !extern_c || head.contains(&Tok::Ident("template".into())) {
                    continue;
                }
                let Some((name, open)) = name_and_paren(&toks, k + 1) else {
                    continue;
                };
                if found.iter().any(|d| d.entry == name) {
                    continue;
                }
                let params = split_params(&toks[open + 1..past_parens(&toks, open) - 1]);
                let params: Vec<crate::report::signature::Param> = params
                    .iter()
                    .map(|p| crate::report::signature::Param::of_c(&c_type(p)))
                    .collect();
                let shown: Vec<&str> = params.iter().map(|p| p.c.as_str()).collect();
                found.push(crate::report::signature::Declared {
                    shown: format!("{name}({})", shown.join(", ")),
                    entry: name,
                    params,
                });
            }
            _ => {}
        }
    }
    found
}

/// The declared name after `__global__` (the identifier before the first parenthesis that is
/// not an attribute's) and the index of its parameter list's parenthesis.
fn name_and_paren(toks: &[Tok], mut k: usize) -> Option<(String, usize)> {
    let mut last: Option<&str> = None;
    while k < toks.len() {
        match &toks[k] {
            Tok::Ident(s) => last = Some(s),
            Tok::Punct('(') => match last {
                Some("__launch_bounds__" | "__attribute__" | "__declspec" | "alignas") => {
                    k = past_parens(toks, k);
                    last = None;
                    continue;
                }
                Some(name) => return Some((name.to_owned(), k)),
                None => return None,
            },
            Tok::Punct(';' | '{' | '}' | '=') => return None,
            _ => {}
        }
        k += 1;
    }
    None
}

/// A parameter list's tokens split at its top-level commas; `()` and `(void)` are empty.
fn split_params(toks: &[Tok]) -> Vec<&[Tok]> {
    if toks.is_empty() || toks == [Tok::Ident("void".into())] {
        return Vec::new();
    }
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::Punct('(' | '<' | '[') => depth += 1,
            Tok::Punct(')' | '>' | ']') => depth -= 1,
            Tok::Punct(',') if depth == 0 => {
                out.push(&toks[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&toks[start..]);
    out
}

/// One parameter's type as the launch stub's demangled name writes it, or its tokens joined
/// when it is not a scalar or a pointer to one.
fn c_type(param: &[Tok]) -> String {
    let words = |ts: &[Tok]| -> Vec<String> {
        ts.iter()
            .filter_map(|t| match t {
                Tok::Ident(s) => Some(s.clone()),
                Tok::Punct(_) => None,
            })
            .filter(|w| !matches!(w.as_str(), "__restrict__" | "__restrict" | "restrict"))
            .collect()
    };
    let raw = || {
        param
            .iter()
            .map(|t| match t {
                Tok::Ident(s) => s.clone(),
                Tok::Punct(c) => c.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let stars = param.iter().filter(|t| **t == Tok::Punct('*')).count();
    let other_punct = param
        .iter()
        .any(|t| matches!(t, Tok::Punct(c) if *c != '*'));
    if stars > 1 || other_punct {
        return raw();
    }
    let (before, _) = match param.iter().position(|t| *t == Tok::Punct('*')) {
        Some(star) => (&param[..star], &param[star + 1..]),
        None => (param, &param[param.len()..]),
    };
    let mut base = words(before);
    let constant = base.iter().any(|w| w == "const");
    base.retain(|w| w != "const" && w != "volatile");
    const TYPE_WORDS: [&str; 9] = [
        "unsigned", "signed", "int", "long", "short", "char", "float", "double", "bool",
    ];
    // Without a pointer, a last word that is not a type word is the parameter's name.
    if stars == 0 && base.len() > 1 && !TYPE_WORDS.contains(&base[base.len() - 1].as_str()) {
        base.pop();
    }
    if words(before).iter().any(|w| w == "volatile") {
        return raw();
    }
    let Some(canonical) = canonical(&base) else {
        // A struct or a typedef by value: named as the demangler names it.
        return if stars == 0 { base.join(" ") } else { raw() };
    };
    match (stars, constant) {
        (0, _) => canonical.to_owned(),
        (_, true) => format!("{canonical} const*"),
        (_, false) => format!("{canonical}*"),
    }
}

/// C's spellings of one scalar type, and the typedefs CUDA code uses for them (LP64), as the
/// demangler names them.
fn canonical(words: &[String]) -> Option<&'static str> {
    let w: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| *w != "int" || words.len() == 1)
        .collect();
    Some(match w.as_slice() {
        ["int"] | ["signed"] => "int",
        ["unsigned"] => "unsigned int",
        ["char"] => "char",
        ["signed", "char"] | ["int8_t"] => "signed char",
        ["unsigned", "char"] | ["uint8_t"] => "unsigned char",
        ["short"] | ["signed", "short"] | ["short", "signed"] | ["int16_t"] => "short",
        ["unsigned", "short"] | ["short", "unsigned"] | ["uint16_t"] => "unsigned short",
        ["int32_t"] => "int",
        ["uint32_t"] => "unsigned int",
        ["long"] | ["signed", "long"] | ["int64_t"] | ["ptrdiff_t"] | ["ssize_t"] => "long",
        ["unsigned", "long"] | ["uint64_t"] | ["size_t"] => "unsigned long",
        ["long", "long"] | ["signed", "long", "long"] => "long long",
        ["unsigned", "long", "long"] => "unsigned long long",
        ["float"] => "float",
        ["double"] => "double",
        ["bool"] => "bool",
        ["__half"] | ["half"] => "__half",
        ["__nv_bfloat16"] | ["nv_bfloat16"] => "__nv_bfloat16",
        _ => return None,
    })
}

/// The declared name after `__global__`: the identifier before the first parenthesis that is
/// not an attribute's (`__launch_bounds__(256)`, `__attribute__((…))`).
fn name_after(toks: &[Tok], k: usize) -> Option<String> {
    name_and_paren(toks, k).map(|(name, _)| name)
}

/// The index after the parenthesis that closes the one at `open`.
fn past_parens(toks: &[Tok], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(open) {
        match t {
            Tok::Punct('(') => depth += 1,
            Tok::Punct(')') => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
    }
    toks.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_are_found_in_their_declarations() {
        let text = r#"
#include "common.cuh"
#define GRID(x) __global__ void not_me(x)
// __global__ void commented(float*);
/* __global__ void also_commented(); */
extern "C" __global__ void scale(float* data, float factor, unsigned int n) {
    const char* s = "__global__ void in_a_string()";
}
extern "C" {
__global__ void __launch_bounds__(256, 2) bounded(int* p) {}
}
namespace ops { __global__ void cpp_kernel(int* p); }
template <typename T> __global__ void templated(T* p) {}
static __global__ __attribute__((unused)) void attributed(int) {}
extern "C" __global__ void scale(float*, float, unsigned int);
"#;
        assert_eq!(
            kernels(text),
            ["scale", "bounded", "cpp_kernel", "attributed"]
        );
        let shown: Vec<String> = declarations(text).into_iter().map(|d| d.shown).collect();
        assert_eq!(
            shown,
            ["scale(float*, float, unsigned int)", "bounded(int*)"]
        );
    }

    #[test]
    fn declarations_read_as_a_real_build_s_launch_stub() {
        let text = "extern \"C\" __global__ void k(const float* __restrict__ a, float const *b, \
                    unsigned n, size_t m, const __half* h, __nv_bfloat16 v, bool f, \
                    long long int q, unsigned char c, int8_t s, Pair p, float** pp, void* raw) {}\n\
                    extern \"C\" __global__ void none(void);";
        let d = declarations(text);
        assert_eq!(
            d[0].shown,
            "k(float const*, float const*, unsigned int, unsigned long, __half const*, \
             __nv_bfloat16, bool, long long, unsigned char, signed char, Pair, float * * pp, void * \
             raw)"
        );
        assert_eq!(d[1].shown, "none()");
        let unmapped: Vec<usize> = (0..d[0].params.len())
            .filter(|&i| d[0].params[i].rust.is_none())
            .collect();
        assert_eq!(unmapped, [10, 11, 12]);
    }
}
