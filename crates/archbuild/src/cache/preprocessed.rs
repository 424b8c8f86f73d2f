//! What of a preprocessed source (`nvcc -E` output) decides its PTX, for preprocessor mode
//! (`jobs/mod.rs`): a tokeniser over preprocessed C++ — string literals with their prefixes and
//! raw strings, character literals, escapes, comments (kept by `-C`), numbers with digit
//! separators, line markers — and the rules built on it. No I/O.
//!
//! Without line information in the PTX, line markers and blank lines outside literals do not
//! reach the PTX (`__LINE__` and `__FILE__` are already expanded), so they are dropped from
//! the hashed text and a comment-only edit keeps its key. Kept whole instead: when the flags
//! ask for line information, and when the text reads a location at compile time
//! (`__builtin_LINE()`, `std::source_location`, …), which the preprocessor leaves to the
//! compiler, except where each read's value is its own place (`located.rs`: glibc's `assert`
//! statements), whose places are keyed instead. Inputs naming `__DATE__`, `__TIME__` or `__TIMESTAMP__` are not cached at all.

use std::borrow::Cow;

/// Identifiers the compiler (not the preprocessor) replaces by the line, column, file or
/// function where they are used; `__builtin_FUNCTION` and `__builtin_FUNCSIG` only to be safe.
const LOCATION: &[&str] = &[
    "__builtin_LINE",
    "__builtin_COLUMN",
    "__builtin_FILE",
    "__builtin_FILE_NAME",
    "__builtin_FUNCTION",
    "__builtin_FUNCSIG",
    "__builtin_source_location",
];

/// Macros whose value is the time of the build, not a file's content.
pub(crate) const CLOCK: &[&str] = &["__DATE__", "__TIME__", "__TIMESTAMP__"];

/// What the flags ask the PTX to carry besides the code, least to most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum LineInfo {
    None,
    /// `.loc` lines: the preprocessed text decides the PTX only whole.
    Lines,
    /// The source's lines themselves, comments included (`-src-in-ptx`): not even the whole
    /// preprocessed text decides the PTX, the sources' content does.
    Source,
}

/// What the flags (nvcc's, then `NVCC_PREPEND_FLAGS`/`NVCC_APPEND_FLAGS` words) ask for, in
/// any spelling: nvcc's options (also with `=`), or cicc's through `-Xcicc`. An options file
/// (`-optf`) cannot be seen into, so it counts as the most.
pub(crate) fn line_info<'a>(flags: impl IntoIterator<Item = &'a String>) -> LineInfo {
    let mut most = LineInfo::None;
    let mut it = flags.into_iter();
    while let Some(flag) = it.next() {
        let (name, value) = match flag.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (flag.as_str(), None),
        };
        let this = match name {
            "-Xcicc" | "--Xcicc" => value
                .or_else(|| it.next().map(String::as_str))
                .unwrap_or_default()
                .split(',')
                .map(|w| word(w.trim()))
                .max()
                .unwrap_or(LineInfo::None),
            "-optf" | "--options-file" => LineInfo::Source,
            _ => word(name),
        };
        most = most.max(this);
    }
    most
}

/// One option, nvcc's or cicc's (`-Xcicc -generate-line-info`, `-show-src`, `-g`). `-g` asks
/// nvcc for host debug information only; it counts, to be safe.
fn word(w: &str) -> LineInfo {
    match w {
        "-lineinfo"
        | "--generate-line-info"
        | "-generate-line-info"
        | "-G"
        | "--device-debug"
        | "-g"
        | "--debug"
        | "--debug_mode" => LineInfo::Lines,
        "-src-in-ptx" | "--source-in-ptx" | "-show-src" | "--show-src" => LineInfo::Source,
        _ => LineInfo::None,
    }
}

/// The text preprocessor mode hashes: `ii` without its line markers and blank lines outside
/// literals and comments, or `ii` whole when `line_info` is asked for or the text reads a
/// location ([`reads_location`]). A marker's system-header flags (3, 4), which change how the
/// compiler reads what follows, stay, as one short line wherever they change.
pub(crate) fn key_text(ii: &[u8], line_info: bool) -> Cow<'_, [u8]> {
    if line_info {
        return Cow::Borrowed(ii);
    }
    let mut out = Vec::with_capacity(ii.len());
    if reads_location(ii).is_some() {
        // Reads whose value is their own place key on that place (`located.rs`); any other
        // keeps the text whole.
        let Ok(sites) = located::sites(ii, LOCATION) else {
            return Cow::Borrowed(ii);
        };
        // A leading NUL (no preprocessed source starts with one) and lengths keep the sites
        // apart from any text.
        out.extend_from_slice(b"\0located ");
        out.extend_from_slice(sites.len().to_string().as_bytes());
        for (file, line) in &sites {
            out.extend_from_slice(format!(" {}:", file.len()).as_bytes());
            out.extend_from_slice(file);
            out.extend_from_slice(format!(":{line}").as_bytes());
        }
        out.push(b'\n');
    }
    let mut system = 0u8;
    let mut lx = Lexer { s: ii, pos: 0 };
    // Each turn starts a line outside any literal or comment.
    while lx.pos < ii.len() {
        let rest = &ii[lx.pos..];
        let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        let line = &rest[..len];
        if line.iter().all(|&b| is_space(b)) {
            lx.pos += (len + 1).min(rest.len());
            continue;
        }
        if let Some(flags) = marker_flags(line) {
            if flags != system {
                out.extend_from_slice(b"# 0");
                for (bit, digit) in [(1, b" 3"), (2, b" 4")] {
                    if flags & bit != 0 {
                        out.extend_from_slice(digit);
                    }
                }
                out.push(b'\n');
                system = flags;
            }
            lx.pos += (len + 1).min(rest.len());
            continue;
        }
        let start = lx.pos;
        let _ = lx.by_ref().find(|(kind, _)| *kind == Kind::Newline);
        out.extend_from_slice(&ii[start..lx.pos]);
    }
    Cow::Owned(out)
}

/// The first identifier of `ii`, outside literals and comments, that the compiler replaces by
/// where it is used (`__builtin_LINE`, …).
pub(crate) fn reads_location(ii: &[u8]) -> Option<&'static str> {
    find_ident(ii, LOCATION)
}

/// The first of `__DATE__`, `__TIME__`, `__TIMESTAMP__` that a source or header (not yet
/// preprocessed) names outside literals and comments, also across a line splice.
pub(crate) fn uses_clock(source: &[u8]) -> Option<&'static str> {
    let found = find_ident(source, CLOCK);
    if found.is_some() || !source.contains(&b'\\') {
        return found;
    }
    find_ident(&join_lines(source), CLOCK)
}

/// `text` with every backslash-newline removed, as the preprocessor's first phase joins lines.
pub(crate) fn join_lines(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        match (text[i], text.get(i + 1), text.get(i + 2)) {
            (b'\\', Some(b'\n'), _) => i += 2,
            (b'\\', Some(b'\r'), Some(b'\n')) => i += 3,
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

fn find_ident(text: &[u8], names: &[&'static str]) -> Option<&'static str> {
    Lexer { s: text, pos: 0 }
        .filter(|(k, _)| *k == Kind::Ident)
        .find_map(|(_, t)| names.iter().find(|n| n.as_bytes() == t).copied())
}

/// A line marker's line number and file name (`# 12 "file" 1 3`, `#line 12`); `None` when the
/// line is no marker.
fn marker(line: &[u8]) -> Option<(u64, Option<&[u8]>)> {
    marker_flags(line)?;
    let t = trim_start(trim_start(line).strip_prefix(b"#")?);
    let t = trim_start(t.strip_prefix(b"line").unwrap_or(t));
    let digits = t.iter().take_while(|b| b.is_ascii_digit()).count();
    let n = std::str::from_utf8(&t[..digits]).ok()?.parse().ok()?;
    let rest = trim_start(&t[digits..]);
    let name = (rest.first() == Some(&b'"')).then(|| {
        let end = quoted(rest, 0, b'"').min(rest.len());
        &rest[1..end.saturating_sub(1).max(1)]
    });
    Some((n, name))
}

/// The system-header flags of a line marker (`# 12 "file" 1 3 4`, `#line 12 "file"`) as bits
/// (3: 1, 4: 2); `None` when the line is no marker.
fn marker_flags(line: &[u8]) -> Option<u8> {
    let t = trim_start(line).strip_prefix(b"#")?;
    let t = trim_start(t);
    let t = match t.strip_prefix(b"line") {
        Some(r) if r.first().is_none_or(|&b| is_space(b)) => trim_start(r),
        Some(_) => return None,
        None if t.first().is_some_and(u8::is_ascii_digit) => t,
        None => return None,
    };
    let digits = t.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut t = trim_start(&t[digits..]);
    if t.first() == Some(&b'"') {
        t = &t[quoted(t, 0, b'"').min(t.len())..];
    }
    let mut flags = 0;
    for w in t.split(|&b| is_space(b)) {
        match w {
            b"3" => flags |= 1,
            b"4" => flags |= 2,
            _ => {}
        }
    }
    Some(flags)
}

fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&b| is_space(b)).count();
    &s[n..]
}

/// Horizontal white space (and `\r`, so CRLF blank lines are blank).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Newline,
    Space,
    Ident,
    Number,
    /// A string or character literal, any prefix, raw or not.
    Literal,
    Comment,
    Punct,
}

/// Tokens of C++ text, each with its bytes. Newlines inside literals and comments belong to
/// them; an ordinary literal left open ends at its line's end, as the compiler reads it.
struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for Lexer<'a> {
    type Item = (Kind, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let s = self.s;
        let i = self.pos;
        let c = *s.get(i)?;
        let next = s.get(i + 1).copied();
        let (kind, end) = match c {
            b'\n' => (Kind::Newline, i + 1),
            _ if is_space(c) => {
                let n = s[i..].iter().take_while(|&&b| is_space(b)).count();
                (Kind::Space, i + n)
            }
            b'/' if next == Some(b'/') => {
                let n = s[i..].iter().position(|&b| b == b'\n');
                (Kind::Comment, n.map_or(s.len(), |n| i + n))
            }
            b'/' if next == Some(b'*') => {
                let n = s[i + 2..].windows(2).position(|w| w == b"*/");
                (Kind::Comment, n.map_or(s.len(), |n| i + 2 + n + 2))
            }
            b'"' | b'\'' => (Kind::Literal, quoted(s, i, c)),
            b'.' if next.is_some_and(|b| b.is_ascii_digit()) => (Kind::Number, number(s, i)),
            _ if c.is_ascii_digit() => (Kind::Number, number(s, i)),
            _ if is_ident(c) => {
                let e = i + s[i..].iter().take_while(|&&b| is_ident(b)).count();
                let prefix = &s[i..e];
                match s.get(e) {
                    Some(b'"') if matches!(prefix, b"R" | b"LR" | b"uR" | b"UR" | b"u8R") => {
                        let end = raw(s, e).unwrap_or_else(|| quoted(s, e, b'"'));
                        (Kind::Literal, end)
                    }
                    Some(&q @ (b'"' | b'\'')) if matches!(prefix, b"L" | b"u" | b"U" | b"u8") => {
                        (Kind::Literal, quoted(s, e, q))
                    }
                    _ => (Kind::Ident, e),
                }
            }
            _ => (Kind::Punct, i + 1),
        };
        let end = end.min(s.len());
        self.pos = end;
        Some((kind, &s[i..end]))
    }
}

/// The end of the literal whose quote `q` is at `open`: after the closing quote, or at the
/// line's end (or the text's) when it is left open.
fn quoted(s: &[u8], open: usize, q: u8) -> usize {
    let mut i = open + 1;
    while let Some(&b) = s.get(i) {
        match b {
            b'\\' => i += 2,
            b'\n' => return i,
            _ if b == q => return i + 1,
            _ => i += 1,
        }
    }
    s.len()
}

/// The end of the raw string whose `"` is at `quote` (`R"d(…)d"`); `None` when no valid
/// delimiter and `(` follow (then it is read as an ordinary string).
fn raw(s: &[u8], quote: usize) -> Option<usize> {
    let rest = &s[quote + 1..];
    let d = rest.iter().take(17).position(|&b| b == b'(')?;
    let delim = &rest[..d];
    let bad = |b: &u8| matches!(b, b' ' | b')' | b'\\' | b'\t' | b'\n' | 0x0b | 0x0c | b'"');
    if delim.iter().any(bad) {
        return None;
    }
    let body = quote + 1 + d + 1;
    let mut close = Vec::with_capacity(d + 2);
    close.push(b')');
    close.extend_from_slice(delim);
    close.push(b'"');
    Some(
        s[body..]
            .windows(close.len())
            .position(|w| w == close.as_slice())
            .map_or(s.len(), |n| body + n + close.len()),
    )
}

/// The end of the preprocessing number at `i`: digits, letters, `.`, exponent signs and digit
/// separators (`1'000`, which must not open a character literal).
fn number(s: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while let Some(&b) = s.get(j) {
        let after = s.get(j + 1).copied();
        j += match b {
            b'e' | b'E' | b'p' | b'P' if matches!(after, Some(b'+' | b'-')) => 2,
            b'\'' if after.is_some_and(|a| is_ident(a) && a < 0x80) => 2,
            b'.' => 1,
            _ if is_ident(b) => 1,
            _ => break,
        };
    }
    j
}

mod located;

#[cfg(test)]
mod tests;
