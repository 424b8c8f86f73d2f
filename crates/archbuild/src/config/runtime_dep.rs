//! Whether the generated module gets typed launchers: they name archbuild-runtime's `launch`
//! module, so they are generated only for a package that depends on archbuild-runtime (under
//! whatever name its Cargo.toml gives it), and never for one that would fail to compile them.

use std::path::Path;

/// The generated module's launchers, decided once per build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Launchers {
    /// Kernel name constants only: the package does not depend on archbuild-runtime.
    Off,
    /// Typed launchers, naming archbuild-runtime by this path (`::archbuild_runtime`).
    Typed { krate: String },
}

impl Launchers {
    /// Reads the package's Cargo.toml: a non-optional dependency on archbuild-runtime (in
    /// `[dependencies]` or a `[target.*.dependencies]`), renamed or not.
    pub(crate) fn of_manifest(manifest: &Path) -> Self {
        let Ok(text) = std::fs::read_to_string(manifest) else {
            return Self::Off;
        };
        Self::of_text(&text)
    }

    fn of_text(text: &str) -> Self {
        let Ok(doc) = text.parse::<toml::Table>() else {
            return Self::Off;
        };
        let mut tables: Vec<&toml::Table> = Vec::new();
        if let Some(t) = doc.get("dependencies").and_then(toml::Value::as_table) {
            tables.push(t);
        }
        if let Some(targets) = doc.get("target").and_then(toml::Value::as_table) {
            tables.extend(
                targets
                    .values()
                    .filter_map(|t| t.get("dependencies"))
                    .filter_map(toml::Value::as_table),
            );
        }
        for deps in tables {
            for (key, spec) in deps {
                let package = spec
                    .get("package")
                    .and_then(toml::Value::as_str)
                    .unwrap_or(key);
                let optional = spec
                    .get("optional")
                    .and_then(toml::Value::as_bool)
                    .unwrap_or(false);
                if package == "archbuild-runtime" && !optional {
                    return Self::Typed {
                        krate: format!("::{}", key.replace('-', "_")),
                    };
                }
            }
        }
        Self::Off
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dependency_on_archbuild_runtime_turns_launchers_on_under_its_name() {
        let typed = |k: &str| Launchers::Typed { krate: k.into() };
        assert_eq!(
            Launchers::of_text("[dependencies]\narchbuild-runtime = \"0.1\"\n"),
            typed("::archbuild_runtime")
        );
        assert_eq!(
            Launchers::of_text(
                "[dependencies]\nrt = { package = \"archbuild-runtime\", version = \"0.1\" }\n"
            ),
            typed("::rt")
        );
        assert_eq!(
            Launchers::of_text(
                "[target.'cfg(unix)'.dependencies]\narchbuild-runtime = { workspace = true }\n"
            ),
            typed("::archbuild_runtime")
        );
        assert_eq!(
            Launchers::of_text("[build-dependencies]\narchbuild-runtime = \"0.1\"\n"),
            Launchers::Off
        );
        assert_eq!(
            Launchers::of_text(
                "[dependencies]\narchbuild-runtime = { version = \"0.1\", optional = true }\n"
            ),
            Launchers::Off
        );
        assert_eq!(Launchers::of_text("not toml ["), Launchers::Off);
    }
}
