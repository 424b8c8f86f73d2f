//! The tokeniser's rules on hand-written preprocessed text, and as properties: what lies
//! outside literals may lose its blank lines and line markers, what lies inside never changes.

use proptest::prelude::*;

use super::*;

fn key(ii: &str) -> String {
    String::from_utf8(key_text(ii.as_bytes(), false).into_owned()).unwrap()
}

fn flags(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

#[test]
fn markers_and_blank_lines_outside_literals_are_dropped() {
    let ii = "# 1 \"k.cu\"\n\n#line 4 \"k.cu\"\nint a;\n   \t\n\r\n  # 9 \"k.cu\" 2\nint b;";
    assert_eq!(key(ii), "int a;\nint b;");
}

#[test]
fn a_raw_string_keeps_its_blank_lines_and_marker_lines() {
    let ii = "const char s[] = R\"x(a\n\n# 1 \"x\"\n#line 2\n)x\";\n\nint c;\n";
    assert_eq!(
        key(ii),
        "const char s[] = R\"x(a\n\n# 1 \"x\"\n#line 2\n)x\";\nint c;\n"
    );
    for prefix in ["LR", "uR", "UR", "u8R"] {
        let ii = format!("auto s = {prefix}\"(\n\n)\";\n");
        assert_eq!(key(&ii), ii, "{prefix}");
    }
    // `)"` inside a delimited raw string does not end it.
    let ii = "auto s = R\"d()\"\n\n)d\";\n";
    assert_eq!(key(ii), ii);
}

#[test]
fn quotes_in_comments_numbers_and_char_literals_open_no_string() {
    // Were any of these read as an open literal, the blank line after it would stay.
    for line in [
        "// don't \"\n",
        "int n = 1'000'000;\n",
        "char q = '\"';\n",
        "const char *e = \"\\\"\";\n",
        "double d = 0x1.8p+3'0;\n",
        "int u = u8'a' + L'\\'';\n",
        "/* \" */ int z;\n",
    ] {
        let ii = format!("{line}\n# 3 \"k.cu\"\nint after;\n");
        assert_eq!(key(&ii), format!("{line}int after;\n"), "{line:?}");
    }
}

#[test]
fn a_block_comment_kept_by_dash_c_keeps_its_lines() {
    let ii = "/* one\n\n# 2 \"c\"\n*/ int a;\n\n";
    assert_eq!(key(ii), "/* one\n\n# 2 \"c\"\n*/ int a;\n");
}

#[test]
fn system_header_flags_stay_where_they_change() {
    let user = "# 1 \"h.cuh\" 1\nint a;\n# 2 \"k.cu\" 2\nint b;\n";
    let system = "# 1 \"h.cuh\" 1 3 4\nint a;\n# 2 \"k.cu\" 2\nint b;\n";
    assert_eq!(key(user), "int a;\nint b;\n");
    assert_eq!(key(system), "# 0 3 4\nint a;\n# 0\nint b;\n");
    // Markers that keep the state (gcc repeats the flags on every marker in a header) vanish.
    let repeated = "# 1 \"h.cuh\" 1 3 4\nint a;\n# 7 \"h.cuh\" 3 4\n# 2 \"k.cu\" 2\nint b;\n";
    assert_eq!(key(repeated), key(system));
}

#[test]
fn a_location_builtin_keeps_the_text_whole() {
    for name in LOCATION {
        let ii = format!("# 1 \"k.cu\"\n\nint l = {name}();\n");
        assert_eq!(reads_location(ii.as_bytes()), Some(*name));
        assert!(matches!(key_text(ii.as_bytes(), false), Cow::Borrowed(_)));
    }
    for quiet in [
        "const char *s = \"__builtin_LINE()\";\n",
        "// __builtin_FILE()\n",
        "int my__builtin_LINE = x__builtin_FILE;\n",
        "auto r = R\"(__builtin_source_location())\";\n",
    ] {
        assert_eq!(reads_location(quiet.as_bytes()), None, "{quiet}");
    }
}

/// glibc 2.38+'s C++ `assert(i < n)`, as `gcc -E` writes it.
const ASSERT: &str = "(static_cast <bool> (i < n) ? void (0) : __assert_fail (\"i < n\", \
                      __builtin_FILE (), __builtin_LINE (), __extension__ __PRETTY_FUNCTION__));";

/// A header with an inline function asserting, included by `k.cu` after `above` lines.
fn asserting(above: usize, header_line: usize) -> String {
    format!(
        "# 1 \"k.cu\"\n{}# 1 \"h.cuh\" 1\n# {header_line} \"h.cuh\"\n\
         __device__ inline void f(int i, int n) {{\n  {ASSERT}\n}}\n# {} \"k.cu\" 2\nint k;\n",
        "\n".repeat(above),
        above + 2
    )
}

#[test]
fn an_assert_statement_keys_on_its_place_not_on_every_line() {
    // Lines added above the include (a comment in k.cu): the assert's place is unchanged.
    assert_eq!(key(&asserting(0, 7)), key(&asserting(5, 7)));
    // The assert moved within its header: its line is its value, so the key differs.
    assert_ne!(key(&asserting(0, 7)), key(&asserting(0, 8)));
    // Every line from the function body's start to the read.
    assert!(key(&asserting(0, 7)).starts_with("\0located 2 5:h.cuh:7 5:h.cuh:8\n"));
    // The same place in another file differs too (`__builtin_FILE`).
    let other = asserting(0, 7).replace("h.cuh", "g.cuh");
    assert_ne!(key(&asserting(0, 7)), key(&other));
}

#[test]
fn a_location_read_whose_value_may_be_another_place_keeps_the_text_whole() {
    let whole = |ii: &str| matches!(key_text(ii.as_bytes(), false), Cow::Borrowed(_));
    assert!(!whole(&asserting(0, 7)));
    for ii in [
        // A default argument: the caller's place.
        "void f(int l = __builtin_LINE ());\n".to_owned(),
        // The assert shape as a default argument or member initializer.
        format!("void f(int l = ({}, 1));\n", ASSERT.trim_end_matches(';')),
        format!(
            "struct S {{ int m{{ ({}, 1) }}; }};\n",
            ASSERT.trim_end_matches(';')
        ),
        // A lambda's body or parameters, a local function's default argument.
        format!("void g() {{ auto l = [] {{ {ASSERT} }}; }}\n"),
        format!("void g() {{ auto l = [](int a) noexcept {{ {ASSERT} }}; }}\n"),
        format!(
            "void g() {{ void h(int l = ({}, 1)); }}\n",
            ASSERT.trim_end_matches(';')
        ),
        format!("struct S {{ int m = [] {{ {ASSERT} return 1; }}(); }};\n"),
        // The builtins out of glibc's order, or another builtin beside them.
        format!(
            "void g() {{ {} }}\n",
            ASSERT.replace("__builtin_FILE", "__builtin_FUNCTION")
        ),
        format!("void g() {{ {ASSERT} int c = __builtin_COLUMN (); }}\n"),
        // At namespace scope (a variable's initializer), or in an initializer list.
        format!("int v = ({}, 1);\n", ASSERT.trim_end_matches(';')),
        format!(
            "void g() {{ int a[] = {{ ({}, 1) }}; }}\n",
            ASSERT.trim_end_matches(';')
        ),
    ] {
        assert!(whole(&ii), "{ii}");
    }
    // Reads inside a function body, through blocks and expressions: their own places.
    for ii in [
        format!("void g() {{ {ASSERT} }}\n"),
        format!("void g() {{ int a; {ASSERT} }}\n"),
        format!("void g() {{ if (a) {ASSERT} else {ASSERT} }}\n"),
        format!("void g() {{ if constexpr (a) {ASSERT} }}\n"),
        format!("void g() {{ for (;;) {ASSERT} }}\n"),
        format!("void g() const noexcept(true) {{ {{ {ASSERT} }} }}\n"),
        format!("void g() {{ h({}); }}\n", ASSERT.trim_end_matches(';')),
        format!("void g() {{ (void){ASSERT} }}\n"),
        // cute's pointer_sparse: an operator's body.
        format!("int operator[](int i) const {{ {ASSERT} return i; }}\n"),
        format!("bool operator==(S o) const noexcept {{ {ASSERT} return true; }}\n"),
        // cute's bit_width: an assert inside a local constant's initializer.
        format!(
            "int g() {{ constexpr int n = (a ? 6 : ({}, 0)); return n; }}\n",
            ASSERT.trim_end_matches(';')
        ),
    ] {
        assert!(!whole(&ii), "{ii}");
    }
}

#[test]
fn line_info_in_every_spelling() {
    use LineInfo::*;
    for (words, want) in [
        (&["-O3", "--use_fast_math"][..], None),
        (&["-lineinfo"], Lines),
        (&["--generate-line-info"], Lines),
        (&["-G"], Lines),
        (&["--device-debug"], Lines),
        (&["-g"], Lines),
        (&["--debug"], Lines),
        (&["-src-in-ptx", "-lineinfo"], Source),
        (&["--source-in-ptx"], Source),
        (&["-Xcicc", "-generate-line-info"], Lines),
        (&["-Xcicc=-O3,-show-src"], Source),
        (&["--Xcicc", "-O3,-g"], Lines),
        (&["--Xcicc=-lineinfo"], Lines),
        (&["-optf", "more.txt"], Source),
        (&["--options-file=more.txt"], Source),
        (&["-Xcicc"], None),
        (&["-Xcompiler", "-O2"], None),
    ] {
        assert_eq!(line_info(&flags(words)), want, "{words:?}");
    }
}

#[test]
fn clock_macros_outside_literals_and_comments() {
    assert_eq!(uses_clock(b"const char *d = __DATE__;"), Some("__DATE__"));
    assert_eq!(uses_clock(b"int t = f(__TIME__);"), Some("__TIME__"));
    assert_eq!(
        uses_clock(b"#define S __TIMESTAMP__\n"),
        Some("__TIMESTAMP__")
    );
    assert_eq!(uses_clock(b"int t = f(__TI\\\nME__);"), Some("__TIME__"));
    assert_eq!(uses_clock(b"int t = f(__TI\\\r\nME__);"), Some("__TIME__"));
    for quiet in [
        "// __TIME__\n",
        "/* __DATE__ */",
        "const char *s = \"__TIME__\";",
        "int __TIME__x, y__DATE__;",
        "auto r = R\"(__TIMESTAMP__)\";",
    ] {
        assert_eq!(uses_clock(quiet.as_bytes()), None, "{quiet}");
    }
}

#[test]
fn odd_text_never_panics() {
    for s in [
        "R\"", "R\"abc", "\"", "'", "/*", "u8\"", "#", "# ", "#line", "1'", "0x1p", "\\", "R\"(",
    ] {
        let _ = key_text(s.as_bytes(), false);
        let _ = uses_clock(s.as_bytes());
    }
    // A raw string with an invalid delimiter is an ordinary string, closed by its line's end.
    assert_eq!(key("R\"a b(\n\nint x;\n"), "R\"a b(\nint x;\n");
}

/// Text in a raw string: blank lines, marker-like lines, quotes.
fn raw_body() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("\n"),
        Just("\n\n"),
        Just("# 1 \"x\"\n"),
        Just("#line 3\n"),
        Just("  \n"),
        Just(" "),
        Just("a"),
        Just("\""),
        Just("'"),
        Just("//"),
    ];
    proptest::collection::vec(piece, 0..8).prop_map(|v| v.concat())
}

/// Text in an ordinary string: escapes, quotes of the other kind, `#`.
fn plain_body() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("a"),
        Just(" "),
        Just("\\\""),
        Just("\\n"),
        Just("\\\\"),
        Just("#"),
        Just("'"),
    ];
    proptest::collection::vec(piece, 0..8).prop_map(|v| v.concat())
}

/// A literal, one of each kind, around `body`.
fn literal(kind: usize, raw: &str, plain: &str) -> String {
    match kind % 4 {
        0 => format!("const char s[] = R\"xy({raw})xy\";\n"),
        1 => format!("auto t = u8R\"({raw})\";\n"),
        2 => format!("const char p[] = \"{plain}\" \"x\";\n"),
        _ => format!("auto w = L\"{plain}\";\n"),
    }
}

/// Complete lines of preprocessed text (none reads a location), each starting outside any
/// literal.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("int a = 1'000;\n".to_owned()),
        Just("x = f(y) / 2; // \"\n".to_owned()),
        Just("#pragma unroll\n".to_owned()),
        Just("char c = '\"';\n".to_owned()),
        Just("/* block\n\n# 2 \"c\"\n*/ int b;\n".to_owned()),
        Just("# 12 \"k.cu\"\n".to_owned()),
        Just("# 1 \"h.cuh\" 1\n".to_owned()),
        Just("\n".to_owned()),
        (0..4usize, raw_body(), plain_body()).prop_map(|(k, r, p)| literal(k, &r, &p)),
    ]
}

/// What the preprocessor inserts when lines move: blank lines and markers without flags.
fn filler() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("\n"),
        Just(" \t\n"),
        Just("\r\n"),
        Just("# 40 \"k.cu\"\n"),
        Just("# 2 \"/abs/path/h.cuh\" 2\n"),
        Just("#line 9\n"),
    ]
}

proptest! {
    #[test]
    fn blank_lines_and_markers_outside_literals_never_change_the_key(
        lines in proptest::collection::vec(line(), 0..8),
        at in any::<prop::sample::Index>(),
        fill in filler(),
    ) {
        let mut with = lines.clone();
        with.insert(at.index(lines.len() + 1), fill.to_owned());
        prop_assert_eq!(key(&lines.concat()), key(&with.concat()));
    }

    #[test]
    fn any_change_inside_a_literal_changes_the_key(
        before in proptest::collection::vec(line(), 0..4),
        after in proptest::collection::vec(line(), 0..4),
        kind in 0..4usize,
        (raw_a, raw_b) in (raw_body(), raw_body()),
        (plain_a, plain_b) in (plain_body(), plain_body()),
    ) {
        let a = literal(kind, &raw_a, &plain_a);
        let b = literal(kind, &raw_b, &plain_b);
        prop_assume!(a != b);
        let (pre, post) = (before.concat(), after.concat());
        prop_assert_ne!(key(&format!("{pre}{a}{post}")), key(&format!("{pre}{b}{post}")));
    }
}
