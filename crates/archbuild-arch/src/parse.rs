//! Parsing of one arch-list entry in any of the dialects users bring along: PyTorch
//! (`8.6`, `8.6+PTX`, `Ampere`), nvcc (`sm_86`, `compute_86`), CMake (`86`, `86-real`,
//! `86-virtual`) and the `a`/`f` variants (`9.0a`, `sm_90a`, `100f`). The words `native`,
//! `all` and `all-major` are recognised here but resolved by `list`, which has the context.
//!
//! A bare number (`8.6` or `86`) means a cubin only, as in PyTorch and nvcc's `-arch=sm_86`
//! spirit; CMake's bare `86` (cubin *and* PTX) is spelled `86-real 86-virtual` or `8.6+PTX` here.

use crate::cc::{Arch, ComputeCapability, Target, TargetKind, Variant};
use crate::tables;

/// PyTorch's `named_arches` from `torch/utils/cpp_extension.py` (2.15), verbatim. Order matters
/// only for documentation; lookup is by exact (case-insensitive) name.
pub(crate) const GENERATION_NAMES: &[(&str, &str)] = &[
    ("Kepler+Tesla", "3.7"),
    ("Kepler", "3.5+PTX"),
    ("Maxwell+Tegra", "5.3"),
    ("Maxwell", "5.0;5.2+PTX"),
    ("Pascal", "6.0;6.1+PTX"),
    ("Volta+Tegra", "7.2"),
    ("Volta", "7.0+PTX"),
    ("Turing", "7.5+PTX"),
    ("Ampere+Tegra", "8.7"),
    ("Ampere", "8.0;8.6+PTX"),
    ("Ada", "8.9+PTX"),
    ("Hopper", "9.0+PTX"),
    ("Blackwell+Tegra", "11.0"),
    ("Blackwell", "10.0;10.3;12.0;12.1+PTX"),
    ("Rubin", "10.7+PTX"),
];

/// PyTorch's generation names with their expansions (`("Ampere", "8.0;8.6+PTX")`, …).
pub fn generation_names() -> impl Iterator<Item = (&'static str, &'static str)> {
    GENERATION_NAMES.iter().copied()
}

/// The words resolved against context.
pub(crate) const WORDS: &[&str] = &["native", "all", "all-major"];

/// What one entry means before context is applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    Targets(Vec<Target>),
    Native,
    All,
    AllMajor,
}

/// Why one entry did not parse; `list` turns this into an [`crate::Error`] with origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TokenError {
    /// Matches no form.
    Unknown,
    /// Well formed, but no GPU has this CC. `nearest` is the closest shipped CC of the same
    /// major, written the way the entry wrote its number (`8.6` or `86`).
    UnknownCc {
        cc: ComputeCapability,
        nearest: Option<String>,
    },
    /// `a` below 9.0 or `f` below 10.0.
    Variant {
        cc: ComputeCapability,
        variant: Variant,
    },
}

/// Parses one entry. `extra_known` lists archs the caller's toolkit reports, so a CC newer than
/// this crate's tables is still accepted when the toolkit can build it.
pub(crate) fn parse_token(token: &str, extra_known: &[Arch]) -> Result<Token, TokenError> {
    let lower = token.trim().to_ascii_lowercase();
    match lower.as_str() {
        "native" => return Ok(Token::Native),
        "all" => return Ok(Token::All),
        "all-major" => return Ok(Token::AllMajor),
        _ => {}
    }
    if let Some((_, expansion)) = GENERATION_NAMES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(&lower))
    {
        let mut out = Vec::new();
        for part in expansion.split(';') {
            // The table is ours and well formed; a failure here would be a bug in the table.
            if let Ok(t) = parse_spec(&part.to_ascii_lowercase(), extra_known) {
                out.extend(t);
            }
        }
        return Ok(Token::Targets(out));
    }
    parse_spec(&lower, extra_known).map(Token::Targets)
}

/// How the number was written, so suggestions can answer in the same syntax.
#[derive(Clone, Copy)]
enum Spelling {
    Dotted,
    Sm,
}

/// `[sm_|compute_|lto_](X.Y|XY)[a|f][-real|-virtual][+ptx][+lto]`, already lowercased.
fn parse_spec(s: &str, extra_known: &[Arch]) -> Result<Vec<Target>, TokenError> {
    // `+PTX` and `+LTO` in either order: each adds that image of the entry's arch.
    let (mut s, mut plus_ptx, mut plus_lto) = (s, false, false);
    loop {
        if let Some(rest) = s.strip_suffix("+ptx") {
            (s, plus_ptx) = (rest, true);
        } else if let Some(rest) = s.strip_suffix("+lto") {
            (s, plus_lto) = (rest, true);
        } else {
            break;
        }
    }
    let (s, prefix) = if let Some(r) = s.strip_prefix("sm_") {
        (r, Some(TargetKind::Cubin))
    } else if let Some(r) = s.strip_prefix("compute_") {
        (r, Some(TargetKind::Ptx))
    } else if let Some(r) = s.strip_prefix("lto_") {
        (r, Some(TargetKind::LtoIr))
    } else {
        (s, None)
    };
    let (s, cmake_kind) = if prefix.is_some() {
        (s, None)
    } else if let Some(r) = s.strip_suffix("-real") {
        (r, Some(TargetKind::Cubin))
    } else if let Some(r) = s.strip_suffix("-virtual") {
        (r, Some(TargetKind::Ptx))
    } else {
        (s, None)
    };
    let (number, variant) = match s.as_bytes().last() {
        Some(b'a') => (&s[..s.len() - 1], Variant::Arch),
        Some(b'f') => (&s[..s.len() - 1], Variant::Family),
        _ => (s, Variant::Plain),
    };
    let (cc, spelling) = parse_number(number, prefix.is_none()).ok_or(TokenError::Unknown)?;
    let arch = Arch::new(cc, variant);
    let known = tables::is_known_cc(cc) || extra_known.iter().any(|a| a.cc == cc);
    if !known {
        let nearest = nearest_known(cc).map(|n| respell(n, spelling));
        return Err(TokenError::UnknownCc { cc, nearest });
    }
    let min_major = match variant {
        Variant::Plain => 0,
        Variant::Arch => 9,
        Variant::Family => 10,
    };
    if cc.major < min_major {
        return Err(TokenError::Variant { cc, variant });
    }
    // The entry's own image: PTX for `compute_` and `-virtual`, LTO-IR for `lto_`, else a
    // cubin; then PTX for `+PTX` and LTO-IR for `+LTO`.
    let own = prefix.or(cmake_kind).unwrap_or(TargetKind::Cubin);
    let mut out = vec![Target { arch, kind: own }];
    if plus_ptx && own != TargetKind::Ptx {
        out.push(Target::ptx(arch));
    }
    if plus_lto && own != TargetKind::LtoIr {
        out.push(Target::lto(arch));
    }
    Ok(out)
}

/// `8.6` (only where `dotted_ok`), `86`, `100`, `121`.
fn parse_number(s: &str, dotted_ok: bool) -> Option<(ComputeCapability, Spelling)> {
    if let Some((major, minor)) = s.split_once('.') {
        let digits = |t: &str, max: usize| {
            !t.is_empty() && t.len() <= max && t.bytes().all(|b| b.is_ascii_digit())
        };
        if !dotted_ok || !digits(major, 2) || !digits(minor, 1) {
            return None;
        }
        let cc = ComputeCapability::new(major.parse().ok()?, minor.parse().ok()?);
        return Some((cc, Spelling::Dotted));
    }
    if s.len() < 2 || s.len() > 3 || !s.bytes().all(|b| b.is_ascii_digit()) || s.starts_with('0') {
        return None;
    }
    Some((ComputeCapability::from_sm(s.parse().ok()?), Spelling::Sm))
}

/// The closest shipped CC of the same major (ties go to the lower one), else none.
fn nearest_known(cc: ComputeCapability) -> Option<ComputeCapability> {
    tables::shipped_ccs()
        .filter(|k| k.major == cc.major)
        .min_by_key(|k| (k.minor.abs_diff(cc.minor), k.minor))
}

fn respell(cc: ComputeCapability, spelling: Spelling) -> String {
    match spelling {
        Spelling::Dotted => cc.to_string(),
        Spelling::Sm => cc.sm().to_string(),
    }
}

/// Rewrites `original` with its number replaced by `replacement`, keeping prefix and suffixes:
/// `sm_85` → `sm_86`, `8.5+PTX` → `8.6+PTX`.
pub(crate) fn replace_number(original: &str, replacement: &str) -> String {
    let lower = original.to_ascii_lowercase();
    let start = if lower.starts_with("sm_") {
        3
    } else if lower.starts_with("lto_") {
        4
    } else if lower.starts_with("compute_") {
        8
    } else {
        0
    };
    let end = original[start..]
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map_or(original.len(), |i| start + i);
    format!("{}{}{}", &original[..start], replacement, &original[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(s: &str) -> Vec<String> {
        match parse_token(s, &[]) {
            Ok(Token::Targets(t)) => t.iter().map(|t| t.to_string()).collect(),
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn every_spelling_of_one_arch() {
        for s in ["8.6", "86", "sm_86", "SM_86", "86-real", "86-REAL"] {
            assert_eq!(targets(s), ["sm_86"], "{s}");
        }
        for s in ["compute_86", "86-virtual", "Compute_86"] {
            assert_eq!(targets(s), ["compute_86"], "{s}");
        }
        for s in ["8.6+PTX", "8.6+ptx", "86+PTX", "sm_86+PTX"] {
            assert_eq!(targets(s), ["sm_86", "compute_86"], "{s}");
        }
        assert_eq!(targets("9.0a"), ["sm_90a"]);
        assert_eq!(targets("sm_90A"), ["sm_90a"]);
        assert_eq!(targets("100f"), ["sm_100f"]);
        assert_eq!(targets("compute_100f"), ["compute_100f"]);
        assert_eq!(targets("12.1a+PTX"), ["sm_121a", "compute_121a"]);
        assert_eq!(targets("90a-virtual"), ["compute_90a"]);
    }

    #[test]
    fn lto_ir_has_nvccs_name_and_a_suffix() {
        // nvcc's `-arch=lto_90` is the LTO-IR alone; `-arch=sm_90 -dlto` is the cubin and the
        // LTO-IR, written `9.0+LTO` here.
        assert_eq!(targets("lto_90"), ["lto_90"]);
        assert_eq!(targets("LTO_100f"), ["lto_100f"]);
        for s in ["9.0+LTO", "90+lto", "sm_90+LTO"] {
            assert_eq!(targets(s), ["sm_90", "lto_90"], "{s}");
        }
        for s in ["9.0+PTX+LTO", "9.0+LTO+PTX"] {
            assert_eq!(targets(s), ["sm_90", "compute_90", "lto_90"], "{s}");
        }
        assert_eq!(targets("compute_80+LTO"), ["compute_80", "lto_80"]);
        assert_eq!(targets("lto_80+PTX"), ["lto_80", "compute_80"]);
        assert_eq!(parse_token("lto_8.0", &[]), Err(TokenError::Unknown));
        assert_eq!(parse_token("lto_90-real", &[]), Err(TokenError::Unknown));
        assert_eq!(replace_number("lto_85", "86"), "lto_86");
    }

    #[test]
    fn rejects_with_reasons() {
        assert_eq!(parse_token("8.6x", &[]), Err(TokenError::Unknown));
        assert_eq!(parse_token("sm_8.6", &[]), Err(TokenError::Unknown));
        assert_eq!(parse_token("086", &[]), Err(TokenError::Unknown));
        let cc85 = ComputeCapability::new(8, 5);
        assert_eq!(
            parse_token("8.5", &[]),
            Err(TokenError::UnknownCc {
                cc: cc85,
                nearest: Some("8.6".into())
            })
        );
        let e = parse_token("8.6a", &[]);
        assert_eq!(
            e,
            Err(TokenError::Variant {
                cc: ComputeCapability::new(8, 6),
                variant: Variant::Arch
            })
        );
        // A CC newer than the tables is accepted when the toolkit lists it.
        let future = [Arch::plain(13, 0)];
        assert!(parse_token("13.0", &[]).is_err());
        assert!(parse_token("13.0", &future).is_ok());
    }

    #[test]
    fn number_replacement_keeps_the_rest() {
        assert_eq!(replace_number("sm_85", "86"), "sm_86");
        assert_eq!(replace_number("8.5+PTX", "8.6"), "8.6+PTX");
        assert_eq!(replace_number("85-real", "86"), "86-real");
    }
}
