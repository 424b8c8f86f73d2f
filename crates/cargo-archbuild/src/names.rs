//! Kernel names as people read them: the symbol the driver loads (what `load_function` takes)
//! and, beside it, the C++ signature that cpp_demangle reads from an Itanium-mangled symbol.

/// The C++ signature of a mangled symbol (`_Z5scalePff` → `scale(float*, float)`); `None` for
/// an `extern "C"` name or anything that does not demangle.
pub fn demangle(symbol: &str) -> Option<String> {
    if !symbol.starts_with("_Z") {
        return None;
    }
    let demangled = cpp_demangle::Symbol::new(symbol).ok()?.demangle().ok()?;
    (demangled != symbol).then_some(demangled)
}

/// `symbol (signature)` for a mangled symbol, the symbol alone otherwise.
pub fn shown(symbol: &str) -> String {
    match demangle(symbol) {
        Some(d) => format!("{symbol} ({d})"),
        None => symbol.to_string(),
    }
}

/// Several kernels, each as [`shown`], separated by spaces.
pub fn list(symbols: &[String]) -> String {
    symbols
        .iter()
        .map(|s| shown(s))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mangled_names_get_their_signature_beside_them() {
        assert_eq!(shown("vector_add"), "vector_add");
        assert_eq!(shown("_Z5scalePff"), "_Z5scalePff (scale(float*, float))");
        assert_eq!(
            shown("_Z5scaleIfEvPT_S0_i"),
            "_Z5scaleIfEvPT_S0_i (void scale<float>(float*, float, int))"
        );
        // Not a valid mangling: shown as it is, never a panic.
        assert_eq!(shown("_Z"), "_Z");
        assert_eq!(shown("_Zzz"), "_Zzz");
    }
}
