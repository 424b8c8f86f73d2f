//! Pieces shared by the human and JSON reports: aligned text tables, and the serialisable
//! description of a build target and of a GPU generation that several subcommands print.

use archbuild_arch::{device_names, ComputeCapability, Target, TargetKind, Variant};
use serde::Serialize;

/// Lays out rows as left-aligned columns separated by two spaces; the last column is not
/// padded. Widths count characters, so cells must not contain colour codes.
pub(crate) fn table(rows: &[Vec<String>]) -> Vec<String> {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; cols];
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    rows.iter()
        .map(|row| {
            let mut line = String::new();
            for (i, cell) in row.iter().enumerate() {
                if i + 1 == row.len() {
                    line.push_str(cell);
                } else {
                    line.push_str(cell);
                    line.push_str(&" ".repeat(widths[i] - cell.chars().count() + 2));
                }
            }
            line.trim_end().to_string()
        })
        .collect()
}

/// `cubin` / `PTX` / `LTO-IR`.
pub(crate) fn kind_name(kind: TargetKind) -> &'static str {
    match kind {
        TargetKind::Cubin => "cubin",
        TargetKind::Ptx => "PTX",
        TargetKind::LtoIr => "LTO-IR",
    }
}

/// `plain` / `arch-specific` / `family-specific`.
pub(crate) fn variant_name(variant: Variant) -> &'static str {
    match variant {
        Variant::Plain => "plain",
        Variant::Arch => "arch-specific",
        Variant::Family => "family-specific",
    }
}

/// "RTX 2060, RTX 2070, RTX 2080, …" — the first few device names of a CC.
pub(crate) fn some_devices(cc: ComputeCapability, max: usize) -> String {
    let names = device_names(cc);
    let mut s = names
        .iter()
        .take(max)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > max {
        s.push_str(", …");
    }
    s
}

/// A build target as JSON reports describe it.
#[derive(Debug, Serialize)]
pub(crate) struct TargetJson {
    /// nvcc's name: `sm_86`, `compute_90a`.
    pub target: String,
    /// `cubin` or `PTX`.
    pub kind: &'static str,
    /// Dotted arch with suffix: `8.6`, `9.0a`.
    pub arch: String,
    pub variant: &'static str,
}

impl From<Target> for TargetJson {
    fn from(t: Target) -> Self {
        Self {
            target: t.to_string(),
            kind: kind_name(t.kind),
            arch: t.arch.to_string(),
            variant: variant_name(t.arch.variant),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align() {
        let rows = vec![
            vec!["a".to_string(), "bb".to_string(), "c".to_string()],
            vec!["aaa".to_string(), "b".to_string(), "".to_string()],
        ];
        assert_eq!(table(&rows), vec!["a    bb  c", "aaa  b"]);
    }
}
