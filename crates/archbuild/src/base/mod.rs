//! What every other folder uses, none of it about one stage of a build: environment variables
//! (`env.rs`, every read through one `Env`), a setting from its layers by the one precedence
//! (`layered.rs`), archbuild's home and atomic file writes
//! (`paths.rs`), tool processes (`process.rs`: argument vectors, captured output, no orphans),
//! and the build cache's store (`store.rs`).

pub(crate) mod env;
pub(crate) mod layered;
pub(crate) mod paths;
pub(crate) mod process;
pub(crate) mod pypi;
pub(crate) mod store;

/// The text of `## heading` in `docs/<file>` (up to the next `## `), for tests that hold a page
/// to the code it describes.
#[cfg(test)]
pub(crate) fn doc_section(file: &str, heading: &str) -> String {
    let path = format!("{}/../../docs/{file}", env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let section = doc
        .split(&format!("## {heading}"))
        .nth(1)
        .unwrap_or_else(|| panic!("docs/{file} has no section `## {heading}`"));
    section.split("\n## ").next().unwrap_or(section).to_owned()
}
