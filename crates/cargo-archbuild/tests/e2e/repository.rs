//! The repository's own rules, checked on its tracked files: source files and functions of a
//! readable size, and text that speaks to a reader of the repository (no run records named by
//! an internal counter, no machine's absolute paths).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The longest source file in `crates/*/src`, test-only files excluded.
const MAX_FILE_LINES: usize = 800;
/// The longest function there, from its `fn` line to its closing brace, test modules excluded.
const MAX_FN_LINES: usize = 120;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The repository's tracked files, relative to its root; `None` outside a git checkout (a
/// crate's package verification), where there is nothing to check.
fn tracked() -> Option<Vec<PathBuf>> {
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(
        out.stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| PathBuf::from(String::from_utf8_lossy(p).into_owned()))
            .filter(|p| root().join(p).is_file())
            .collect(),
    )
}

/// A source file of a crate's library or binaries that is not only tests.
fn checked_source(p: &Path) -> bool {
    let s = p.to_string_lossy();
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    s.starts_with("crates/")
        && s.contains("/src/")
        && s.ends_with(".rs")
        && name != "tests.rs"
        && !name.ends_with("_tests.rs")
}

/// `src` with comments blanked and string and character literals emptied, lines kept, so
/// braces can be counted.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let keep_newlines = |seg: &[u8], out: &mut String| {
        out.extend(seg.iter().filter(|&&c| c == b'\n').map(|_| '\n'));
    };
    while i < b.len() {
        let rest = &b[i..];
        let ident_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if rest.starts_with(b"//") {
            i += rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
        } else if rest.starts_with(b"/*") {
            let end = find(rest, b"*/", 2).map_or(rest.len(), |e| e + 2);
            keep_newlines(&rest[..end], &mut out);
            i += end;
        } else if let Some(open) = raw_string_open(rest).filter(|_| !ident_before) {
            let hashes = open - rest.iter().position(|&c| c == b'r').unwrap_or(0) - 2;
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let end = find(rest, &close, open).map_or(rest.len(), |e| e + close.len());
            out.push_str("\"\"");
            keep_newlines(&rest[..end], &mut out);
            i += end;
        } else if rest[0] == b'"' {
            let mut j = 1;
            while j < rest.len() && rest[j] != b'"' {
                j += if rest[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(rest.len());
            out.push_str("\"\"");
            keep_newlines(&rest[..end], &mut out);
            i += end;
        } else if rest[0] == b'\'' && char_literal_len(rest).is_some() {
            out.push_str("''");
            i += char_literal_len(rest).unwrap_or(1);
        } else {
            let len = std::str::from_utf8(&rest[..rest.len().min(4)]).map_or_else(
                |e| e.valid_up_to().max(1),
                |s| s.chars().next().map_or(1, char::len_utf8),
            );
            out.push_str(std::str::from_utf8(&rest[..len]).unwrap_or(" "));
            i += len;
        }
    }
    out
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    (from..hay.len().saturating_sub(needle.len() - 1)).find(|&i| hay[i..].starts_with(needle))
}

/// The length of `r"`, `r#"`, `br"`… at the start of `s`, when it opens a raw string.
fn raw_string_open(s: &[u8]) -> Option<usize> {
    let s2 = s.strip_prefix(b"b").unwrap_or(s);
    let skip = s.len() - s2.len();
    let s3 = s2.strip_prefix(b"r")?;
    let hashes = s3.iter().take_while(|&&c| c == b'#').count();
    (s3.get(hashes) == Some(&b'"')).then_some(skip + 1 + hashes + 1)
}

/// The length of a character literal at the start of `s` (`'a'`, `'\n'`, `'\u{1F600}'`), or
/// `None` for a lifetime.
fn char_literal_len(s: &[u8]) -> Option<usize> {
    let text = std::str::from_utf8(&s[..s.len().min(12)])
        .ok()
        .or_else(|| {
            let n = (1..s.len().min(12))
                .rev()
                .find(|&n| std::str::from_utf8(&s[..n]).is_ok())?;
            std::str::from_utf8(&s[..n]).ok()
        })?;
    let mut chars = text.char_indices().skip(1);
    let (_, c) = chars.next()?;
    if c == '\\' {
        let close = text[2..].find('\'')?;
        return Some(2 + close + 1);
    }
    let (at, next) = chars.next()?;
    (next == '\'').then_some(at + 1)
}

/// The functions of `code` (comments and literals already blanked) longer than `max` lines,
/// outside `#[cfg(test)]` items: `(line, name, lines)`.
fn long_functions(code: &str, max: usize) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_start();
        if line.starts_with("#[cfg(test)]") {
            i = item_end(&lines, i + 1) + 1;
            continue;
        }
        if let Some(name) = fn_name(line) {
            let end = item_end(&lines, i);
            if lines[i..=end.min(lines.len() - 1)]
                .iter()
                .any(|l| l.contains('{'))
                && end + 1 - i > max
            {
                found.push((i + 1, name, end + 1 - i));
            }
        }
        i += 1;
    }
    found
}

/// The name of the function a line declares, if it does.
fn fn_name(line: &str) -> Option<String> {
    let mut words = line.split_whitespace().peekable();
    while let Some(w) = words.next() {
        match w {
            "fn" => {
                let name = words.next()?;
                let end = name.find(['(', '<']).unwrap_or(name.len());
                return Some(name[..end].to_owned());
            }
            w if w.starts_with("pub") => {}
            "const" | "async" | "unsafe" | "extern" | "\"\"" | "default" => {}
            _ => return None,
        }
    }
    None
}

/// The line where the item starting at `start` ends: its braces closed, or its `;`.
fn item_end(lines: &[&str], start: usize) -> usize {
    let mut depth = 0i64;
    let mut opened = false;
    for (k, line) in lines.iter().enumerate().skip(start) {
        for c in line.chars() {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => depth -= 1,
                ';' if !opened && depth == 0 => return k,
                _ => {}
            }
        }
        if opened && depth <= 0 {
            return k;
        }
    }
    lines.len().saturating_sub(1)
}

#[test]
fn no_source_file_or_function_is_too_long() {
    let Some(files) = tracked() else {
        eprintln!("skipped: not a git checkout, so no tracked files to check");
        return;
    };
    let mut over = Vec::new();
    for rel in files.iter().filter(|p| checked_source(p)) {
        let text = std::fs::read_to_string(root().join(rel)).unwrap();
        let n = text.lines().count();
        if n > MAX_FILE_LINES {
            over.push(format!("{}: {n} lines", rel.display()));
        }
        for (line, name, len) in long_functions(&code_only(&text), MAX_FN_LINES) {
            over.push(format!(
                "{}:{line}: fn {name} is {len} lines",
                rel.display()
            ));
        }
    }
    assert!(
        over.is_empty(),
        "source files over {MAX_FILE_LINES} lines or functions over {MAX_FN_LINES} (split them \
         by subject: a file into a folder's modules, a function into named steps):\n{}",
        over.join("\n")
    );
}

#[test]
fn the_checker_finds_long_functions_and_ignores_tests_and_literals() {
    let body = "    let x = 1;\n".repeat(5);
    let src = format!(
        "pub(crate) fn long(a: u8) -> u8 {{\n{body}    let s = \"}}}}\"; let c = '}}';\n    a\n}}\n\
         #[cfg(test)]\nmod tests {{\n    fn also_long() {{\n{body}    }}\n}}\n\
         fn short<'a>(x: &'a str) -> &'a str {{ x }}\n"
    );
    let found = long_functions(&code_only(&src), 5);
    assert_eq!(found, [(1, "long".to_owned(), 9)]);
}

/// Words that name a run by an internal counter (a session's number, a numbered run or call)
/// and paths of one machine's home or work directories.
fn reader_problems(line: &str) -> Option<&'static str> {
    let lower = line.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .filter(|w| !w.is_empty())
        .collect();
    let numbered = |stem: &str, w: &str, next: Option<&&str>| {
        let rest = w.strip_prefix(stem)?;
        let rest = rest.trim_start_matches(['_', '-']);
        let digits = if rest.is_empty() { *next? } else { rest };
        let n = digits.split(['-', '_']).next()?;
        (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(())
    };
    for (k, w) in words.iter().enumerate() {
        let next = words.get(k + 1);
        if numbered("session", w, next).is_some() {
            return Some("a run named by a session counter");
        }
        if (w.starts_with("run") && w.len() > 3 || w.starts_with("call") && w.len() > 4)
            && numbered(if w.starts_with("run") { "run" } else { "call" }, w, None).is_some()
        {
            return Some("a run named by a counter");
        }
    }
    for home in ["/home/", "/root/", "/work/", "/users/"] {
        if let Some(at) = lower.find(home) {
            let after = lower[at + home.len()..].chars().next();
            let before = lower[..at].chars().last();
            // Absolute only where a path starts: `[TMP]/home/…` and `url.com/users/…` are not.
            let starts = before.is_none_or(|c| " \t\"'`(=:,".contains(c));
            if after.is_some_and(|c| c.is_ascii_alphabetic()) && starts {
                return Some("a machine's absolute path");
            }
        }
    }
    None
}

#[test]
fn tracked_text_names_no_counter_and_no_machine_path() {
    let Some(files) = tracked() else {
        eprintln!("skipped: not a git checkout, so no tracked files to check");
        return;
    };
    let mut found = Vec::new();
    for rel in &files {
        let Ok(text) = std::fs::read_to_string(root().join(rel)) else {
            continue; // binary
        };
        for (n, line) in text.lines().enumerate() {
            if let Some(why) = reader_problems(line) {
                found.push(format!(
                    "{}:{}: {why}: {}",
                    rel.display(),
                    n + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "tracked text a reader of the repository cannot follow (name a record by its date and \
         commit, and a path relative to the repository or by a variable such as $HOME):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_reader_check_knows_counters_from_ordinary_words() {
    // Put together here, so that this file passes its own check.
    let (s, r, c) = ("Sess", "ru", "cal");
    for bad in [
        format!("## {s}ion 14"),
        format!("docs/gpu-results/{}ion16-crate-{r}n1.log", s.to_lowercase()),
        format!("see {r}n12 and {c}l2"),
        format!("p.add_argument(\"--root\", default=\"/{}/cfa\")", "root"),
        format!("cd /{}/alice/src", "home"),
    ] {
        assert!(reader_problems(&bad).is_some(), "{bad}");
    }
    for good in [
        "a session's device time",
        "the build runs 2 jobs at once",
        "the 2026-11-20 record at 54222d0",
        "cargo run -- build",
        "~/.cache/archbuild or $HOME/.cache",
        "/nonexistent/bin",
        "[TMP]/home/toolkits/cuda-*",
    ] {
        assert!(reader_problems(good).is_none(), "{good}");
    }
}
