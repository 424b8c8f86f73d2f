//! "Did you mean" for entries that match no form. Two strategies, tried in order:
//! 1. one-character repairs of the entry (delete, insert, substitute) that make it parse, so
//!    `8.6x` → `8.6`, `sm86` → `sm_86`, `9.0b` → `9.0`;
//! 2. edit distance to the names (`Amper` → `Ampere`, `nativ` → `native`), ignoring case.
//!
//! A suggestion is only offered if it parses, so following it always gets past the error.

use crate::parse::{self, GENERATION_NAMES, WORDS};

/// Characters tried when inserting or substituting; `_` and `.` first because missing
/// separators are the common typo.
const REPAIR_ALPHABET: &[char] = &[
    '_', '.', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'f',
];

/// A corrected spelling of `token`, or `None` when nothing is close.
pub(crate) fn suggest_arch(token: &str) -> Option<String> {
    let lower = token.trim().to_ascii_lowercase();
    if lower.is_empty() || lower.len() > 40 {
        return None;
    }
    if let Some(fixed) = special_cases(&lower) {
        return Some(fixed);
    }
    if let Some(fixed) = one_edit_repairs(&lower).find(|c| parses(c)) {
        return Some(present(&fixed));
    }
    let names = GENERATION_NAMES
        .iter()
        .map(|(n, _)| *n)
        .chain(WORDS.iter().copied());
    closest(&lower, names).map(str::to_string)
}

/// A corrected policy name.
pub(crate) fn suggest_from(input: &str, candidates: &[&'static str]) -> Option<String> {
    closest(
        &input.trim().to_ascii_lowercase(),
        candidates.iter().copied(),
    )
    .map(str::to_string)
}

/// Frequent mistakes that are more than one edit away.
fn special_cases(lower: &str) -> Option<String> {
    // `Ampere+PTX`: generation names already carry PyTorch's PTX choice.
    if let Some(name) = lower.strip_suffix("+ptx") {
        if let Some((n, _)) = GENERATION_NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            return Some((*n).to_string());
        }
    }
    // `8.6-ptx`, `8.6ptx`, `sm_86_ptx`: the PyTorch suffix misspelled.
    for bad in ["-ptx", "_ptx", "ptx", " ptx"] {
        if let Some(base) = lower.strip_suffix(bad) {
            let candidate = format!("{base}+ptx");
            if parses(&candidate) {
                return Some(present(&candidate));
            }
        }
    }
    // A lone digit, `8`: the user meant the `.0` of that major.
    if lower.len() == 1 && lower.as_bytes()[0].is_ascii_digit() {
        let candidate = format!("{lower}.0");
        if parses(&candidate) {
            return Some(candidate);
        }
    }
    // `sm-86`, `sm.86`, `sm86`, `compute86`: the underscore.
    for prefix in ["sm", "compute"] {
        if let Some(rest) = lower.strip_prefix(prefix) {
            let rest = rest.trim_start_matches(['-', '.', ' ', ':', '=']);
            let candidate = format!("{prefix}_{rest}");
            if parses(&candidate) {
                return Some(present(&candidate));
            }
        }
    }
    None
}

fn parses(candidate: &str) -> bool {
    parse::parse_token(candidate, &[]).is_ok()
}

/// Lowercased input back to the conventional spelling: `+PTX` in capitals.
fn present(candidate: &str) -> String {
    match candidate.strip_suffix("+ptx") {
        Some(base) => format!("{base}+PTX"),
        None => candidate.to_string(),
    }
}

/// Every string one edit away, deletions first (the usual stray character), then insertions,
/// then substitutions; each in position order so the result is deterministic.
fn one_edit_repairs(s: &str) -> impl Iterator<Item = String> {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len();
    // `splice(i, j, c)`: chars[..i] + c + chars[j..].
    let splice = |i: usize, j: usize, c: Option<char>| -> String {
        chars[..i]
            .iter()
            .chain(c.iter())
            .chain(chars[j..].iter())
            .collect()
    };
    let mut out: Vec<String> = (0..n).map(|i| splice(i, i + 1, None)).collect();
    for i in 0..=n {
        out.extend(REPAIR_ALPHABET.iter().map(|c| splice(i, i, Some(*c))));
    }
    for i in 0..n {
        out.extend(REPAIR_ALPHABET.iter().map(|c| splice(i, i + 1, Some(*c))));
    }
    out.into_iter()
}

/// The candidate with the smallest edit distance, if that distance is small for its length
/// (at most 1 for short words, 2 from five characters, 3 from nine).
fn closest<'a>(input: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let limit = match input.chars().count() {
        0..=3 => 1,
        4..=8 => 2,
        _ => 3,
    };
    candidates
        .map(|c| (edit_distance(input, &c.to_ascii_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// The Levenshtein distance between two words, in characters: the fewest insertions,
/// deletions and substitutions that turn one into the other. The words archbuild compares are
/// a few characters long (arch names, keys), so the textbook row-by-row table is all it needs.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distances() {
        for (a, b, d) in [
            ("", "", 0),
            ("", "abc", 3),
            ("abc", "", 3),
            ("sm_86", "sm_86", 0),
            ("sm86", "sm_86", 1),
            ("kitten", "sitting", 3),
            ("flaw", "lawn", 2),
            ("archs", "arch", 1),
            ("ptx", "xtp", 2),
            ("größe", "grosse", 3),
        ] {
            assert_eq!(edit_distance(a, b), d, "{a} {b}");
            assert_eq!(edit_distance(b, a), d, "{b} {a}");
        }
    }

    #[test]
    fn suggestions_for_common_typos() {
        let cases = [
            ("Amper", Some("Ampere")),
            ("ampre", Some("Ampere")),
            ("Hoper", Some("Hopper")),
            ("blackwel", Some("Blackwell")),
            ("Ampere+PTX", Some("Ampere")),
            ("nativ", Some("native")),
            ("allmajor", Some("all-major")),
            ("8.6x", Some("8.6")),
            ("sm86", Some("sm_86")),
            ("SM-90a", Some("sm_90a")),
            ("compute86", Some("compute_86")),
            ("8.6-ptx", Some("8.6+PTX")),
            ("8.6+ptxx", Some("8.6+PTX")),
            ("9.0b", Some("9.0")),
            ("8", Some("8.0")),
            ("86-reall", Some("86-real")),
            ("completely-wrong", None),
            ("", None),
        ];
        for (input, want) in cases {
            assert_eq!(suggest_arch(input).as_deref(), want, "{input}");
        }
    }
}
