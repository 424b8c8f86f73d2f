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

/// The declared name after `__global__`: the identifier before the first parenthesis that is
/// not an attribute's (`__launch_bounds__(256)`, `__attribute__((…))`).
fn name_after(toks: &[Tok], mut k: usize) -> Option<String> {
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
                Some(name) => return Some(name.to_owned()),
                None => return None,
            },
            Tok::Punct(';' | '{' | '}' | '=') => return None,
            _ => {}
        }
        k += 1;
    }
    None
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
    }
}
