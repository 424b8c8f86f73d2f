//! Location builtins whose value is their own place, so that preprocessor mode can key on that
//! place instead of on every line of the text.
//!
//! glibc 2.38 and newer expand C++'s `assert(e)` to
//! `(static_cast <bool> (e) ? void (0) : __assert_fail ("e", __builtin_FILE (), __builtin_LINE (), __extension__ __PRETTY_FUNCTION__))`,
//! and CUDA's own headers (`cuda_fp8.hpp`, CUTLASS, CCCL) assert in inline functions, so on
//! Ubuntu 24.04 nearly every preprocessed CUDA source reads `__builtin_LINE`. Keyed whole,
//! such a text misses on any edit that moves a line (a comment at the top of a header). An
//! assert inside a function body evaluates the builtins where it stands, so their values come
//! from the presumed files and lines between the body's start and the read: the key holds
//! those, and a comment elsewhere keeps it. Any other read (a default argument or member
//! initializer, whose value is the caller's place; a lambda's body; any other builtin; any
//! context not certain) keeps the text whole, as before.

use super::{marker, Kind, Lexer};

/// A significant token with the presumed file (an index into the files seen) and line.
struct Tok<'a> {
    kind: Kind,
    text: &'a [u8],
    file: usize,
    line: u64,
}

/// Where `ii` reads a location builtin (`names`): `Ok` with the places that can decide each
/// read's value when every read is a glibc assert's inside a function body, `Err` with the
/// builtin of the first read that is not.
pub(super) fn sites(
    ii: &[u8],
    names: &[&'static str],
) -> Result<Vec<(Vec<u8>, u64)>, &'static str> {
    let (toks, files) = tokens(ii);
    let nest = Nesting::of(&toks);
    let is = |i: usize, t: &[u8]| toks.get(i).is_some_and(|k| k.text == t);
    let mut out: Vec<(Vec<u8>, u64)> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        let Some(name) = (t.kind == Kind::Ident)
            .then(|| names.iter().find(|n| n.as_bytes() == t.text))
            .flatten()
        else {
            i += 1;
            continue;
        };
        // `__assert_fail ( "e" , __builtin_FILE ( ) , __builtin_LINE ( ) , …`, i at
        // __builtin_FILE.
        let shape = i >= 4
            && t.text == b"__builtin_FILE"
            && is(i - 4, b"__assert_fail")
            && is(i - 3, b"(")
            && toks[i - 2].kind == Kind::Literal
            && is(i - 1, b",")
            && is(i + 1, b"(")
            && is(i + 2, b")")
            && is(i + 3, b",")
            && is(i + 4, b"__builtin_LINE")
            && is(i + 5, b"(")
            && is(i + 6, b")")
            && is(i + 7, b",");
        let Some(block) = shape.then(|| nest.body_of(&toks, i - 4)).flatten() else {
            return Err(name);
        };
        // Whichever place the compiler takes (the builtin's token, the call's, the
        // statement's), it lies between the block's start and the read: key every line there.
        for tok in &toks[block..=i + 4] {
            let place = (files[tok.file], tok.line);
            if out.last().is_none_or(|(f, l)| (f.as_slice(), *l) != place) {
                out.push((place.0.to_vec(), place.1));
            }
        }
        i += 8;
    }
    Ok(out)
}

/// Each token's innermost enclosing `(` or `{`, each opener's matching closer and each
/// closer's opener.
struct Nesting {
    parent: Vec<Option<usize>>,
    close: Vec<Option<usize>>,
    open: Vec<Option<usize>>,
}

impl Nesting {
    fn of(toks: &[Tok<'_>]) -> Self {
        let mut parent = Vec::with_capacity(toks.len());
        let mut close = vec![None; toks.len()];
        let mut open = vec![None; toks.len()];
        let mut stack: Vec<usize> = Vec::new();
        for (k, t) in toks.iter().enumerate() {
            match t.text {
                b")" | b"}" => {
                    let want: &[u8] = if t.text == b")" { b"(" } else { b"{" };
                    if stack.last().is_some_and(|&o| toks[o].text == want) {
                        let o = stack.pop().unwrap_or_default();
                        close[o] = Some(k);
                        open[k] = Some(o);
                    }
                    parent.push(stack.last().copied());
                }
                _ => {
                    parent.push(stack.last().copied());
                    if matches!(t.text, b"(" | b"{") {
                        stack.push(k);
                    }
                }
            }
        }
        Self {
            parent,
            close,
            open,
        }
    }

    /// The innermost block holding token `at` when `at` is evaluated where it stands: inside a
    /// function body, through compound statements only, and not in a parenthesised group that
    /// may be a parameter list (a lambda's, or one with a default argument: a lone `=` before
    /// `at`), whose reads take the caller's place. `None` when that is not certain.
    fn body_of(&self, toks: &[Tok<'_>], at: usize) -> Option<usize> {
        let mut innermost = None;
        let mut child = at;
        let mut e = self.parent[at]?;
        loop {
            let before = e.checked_sub(1).map(|b| toks[b].text);
            if toks[e].text == b"(" {
                if matches!(before, Some(b"]" | b">")) || self.lone_assign(toks, e, child) {
                    return None;
                }
            } else {
                innermost.get_or_insert(e);
                match self.block_kind(toks, e)? {
                    Block::Compound => {}
                    Block::Function => {
                        // A function body is never inside parentheses.
                        let outer = self.parent[e];
                        return outer
                            .is_none_or(|o| toks[o].text == b"{")
                            .then_some(innermost?);
                    }
                }
            }
            child = e;
            e = self.parent[e]?;
        }
    }

    /// Whether group `open` holds, at its own level before `child`, a `=` that is no part of
    /// `==`, `<=`, `!=`, `+=` …: an assignment, or a default argument.
    fn lone_assign(&self, toks: &[Tok<'_>], open: usize, child: usize) -> bool {
        let mut k = open + 1;
        while k < child {
            let t = toks[k].text;
            if matches!(t, b"(" | b"{") {
                k = self.close[k].map_or(child, |c| c + 1);
                continue;
            }
            if t == b"=" {
                let prev = toks[k - 1].text;
                let next = toks.get(k + 1).map(|n| n.text);
                let op = |b: &[u8]| {
                    matches!(
                        b,
                        b"=" | b"!"
                            | b"<"
                            | b">"
                            | b"+"
                            | b"-"
                            | b"*"
                            | b"/"
                            | b"%"
                            | b"&"
                            | b"|"
                            | b"^"
                    )
                };
                if !op(prev) && !next.is_some_and(op) {
                    return true;
                }
            }
            k += 1;
        }
        false
    }

    /// What the `{` at `open` starts, when it is a block; `None` for anything else (a class,
    /// namespace or enum body, an initializer list, a lambda's body, or not certain).
    fn block_kind(&self, toks: &[Tok<'_>], open: usize) -> Option<Block> {
        let before = open.checked_sub(1)?;
        match toks[before].text {
            b"{" | b"}" | b";" | b"else" | b"do" | b"try" => return Some(Block::Compound),
            b")" => {
                let o = self.open[before]?;
                if matches!(
                    toks[o.checked_sub(1)?].text,
                    b"if" | b"for" | b"while" | b"switch" | b"catch"
                ) {
                    return Some(Block::Compound);
                }
            }
            _ => {}
        }
        // A function's body: its declarator's `)`, then qualifiers (`const`, `&`, `noexcept`,
        // `noexcept(…)`, `override`); a lambda's (`](…)`, `>(…)`) is not taken.
        let mut p = before;
        loop {
            match toks[p].text {
                b"const" | b"volatile" | b"noexcept" | b"override" | b"&" => {
                    p = p.checked_sub(1)?
                }
                b")" => {
                    let o = self.open[p]?;
                    let name = toks.get(o.checked_sub(1)?)?;
                    if name.text == b"noexcept" {
                        p = o.checked_sub(2)?;
                        continue;
                    }
                    let keyword = matches!(
                        name.text,
                        b"if" | b"for" | b"while" | b"switch" | b"catch" | b"mutable"
                    );
                    // `operator[](…)`, `operator()(…)`, `operator==(…)`: punctuation after
                    // `operator`.
                    let operator = (2..=4).any(|back| {
                        o.checked_sub(back).is_some_and(|k| {
                            toks[k].text == b"operator"
                                && toks[k + 1..o].iter().all(|t| t.kind == Kind::Punct)
                        })
                    });
                    let named = name.kind == Kind::Ident && !keyword;
                    return (named || operator).then_some(Block::Function);
                }
                _ => return None,
            }
        }
    }
}

enum Block {
    /// A compound statement (or an `if`/`for`/… body) inside whatever holds it.
    Compound,
    /// A function's body, after its declarator.
    Function,
}

/// The significant tokens of `ii` (no spaces, comments or line markers), each with its presumed
/// file and line as the line markers set them, and the files seen.
fn tokens(ii: &[u8]) -> (Vec<Tok<'_>>, Vec<&[u8]>) {
    let mut files: Vec<&[u8]> = vec![b""];
    let mut file = 0;
    let mut line = 1u64;
    let mut toks = Vec::new();
    let mut lx = Lexer { s: ii, pos: 0 };
    let mut at_line_start = true;
    while lx.pos < ii.len() {
        if at_line_start {
            let rest = &ii[lx.pos..];
            let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            if let Some((n, name)) = marker(&rest[..len]) {
                if let Some(name) = name {
                    file = files.iter().position(|f| *f == name).unwrap_or_else(|| {
                        files.push(name);
                        files.len() - 1
                    });
                }
                line = n;
                lx.pos += (len + 1).min(rest.len());
                continue;
            }
        }
        let Some((kind, text)) = lx.next() else { break };
        at_line_start = kind == Kind::Newline;
        match kind {
            Kind::Newline => line += 1,
            Kind::Space => {}
            Kind::Comment | Kind::Literal => {
                if kind == Kind::Literal {
                    toks.push(Tok {
                        kind,
                        text,
                        file,
                        line,
                    });
                }
                line += text.iter().filter(|&&b| b == b'\n').count() as u64;
            }
            _ => toks.push(Tok {
                kind,
                text,
                file,
                line,
            }),
        }
    }
    (toks, files)
}
