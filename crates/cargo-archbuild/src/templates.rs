//! The files `cargo archbuild new` and `cargo archbuild ci` write, embedded in the binary (so an
//! installed CLI needs no checkout), and their one substitution rule: `{{name}}` placeholders
//! replaced by values that were checked to be safe where they go.

/// The kernel crate `new` scaffolds: `(path in the crate, text)`. The manifest template is
/// `Cargo.toml.in`: a directory holding a `Cargo.toml` would be left out of this crate's package.
pub(crate) const KERNEL_CRATE: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        include_str!("../templates/kernel-crate/Cargo.toml.in"),
    ),
    (
        "build.rs",
        include_str!("../templates/kernel-crate/build.rs"),
    ),
    (
        "kernels/ops.cu",
        include_str!("../templates/kernel-crate/kernels/ops.cu"),
    ),
    (
        "src/lib.rs",
        include_str!("../templates/kernel-crate/src/lib.rs"),
    ),
    (
        "src/main.rs",
        include_str!("../templates/kernel-crate/src/main.rs"),
    ),
    (
        ".gitignore",
        include_str!("../templates/kernel-crate/gitignore"),
    ),
];

/// The GitHub Actions workflow `ci` writes.
pub(crate) const WORKFLOW: &str = include_str!("../templates/github-actions/archbuild.yml");

/// `text` with every `{{key}}` replaced by its value; a placeholder left over is a bug in the
/// template or the caller, reported by name.
pub(crate) fn render(text: &str, values: &[(&str, &str)]) -> Result<String, String> {
    let mut out = text.to_owned();
    for (key, value) in values {
        out = out.replace(&format!("{{{{{key}}}}}"), value);
    }
    // `${{ … }}` is GitHub Actions' own expression syntax, not a placeholder.
    let left = out
        .match_indices("{{")
        .find(|(i, _)| !out[..*i].ends_with('$'));
    match left {
        Some((i, _)) => Err(format!(
            "unfilled placeholder {}",
            out[i..].split("}}").next().unwrap_or(&out[i..])
        )),
        None => Ok(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_and_actions_expressions_kept() {
        let t = "name = \"{{project-name}}\"\nrun: ${{ matrix.archs }}\n";
        assert_eq!(
            render(t, &[("project-name", "demo")]).unwrap(),
            "name = \"demo\"\nrun: ${{ matrix.archs }}\n"
        );
        assert_eq!(
            render("{{missing}}", &[]).unwrap_err(),
            "unfilled placeholder {{missing"
        );
    }

    #[test]
    fn every_template_placeholder_is_known() {
        for (path, text) in KERNEL_CRATE {
            let filled = render(
                text,
                &[
                    ("project-name", "p"),
                    ("crate_name", "p"),
                    ("archbuild-dependency", ""),
                    ("archbuild-runtime-dependency", ""),
                    ("archs-line", ""),
                ],
            );
            assert!(filled.is_ok(), "{path}: {filled:?}");
        }
    }
}
