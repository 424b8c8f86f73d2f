//! A stand-in for `nvcc` and `ptxas` (by the name it is invoked as) for archbuild's planning
//! tests: it appends its arguments as one JSON line to `$ARCHBUILD_FAKE_LOG` and writes
//! plausible outputs — PTX with the source's `__global__` kernels as `.entry`s and a
//! dependency file listing its `#include "…"` headers for `nvcc -ptx`, a minimal valid cubin
//! ELF (EM_CUDA, the SM in `e_flags`, kernel symbols; an `a` target in CUDA 12's layout) for
//! `ptxas`. The outputs carry a hash of
//! the inputs, so content changes propagate like with the real tools.
//!
//! Controls: a source line containing `#error` fails every arch with `file(line): error: …`;
//! `fake-fail-arch compute_XY` in a source fails only that arch; `ARCHBUILD_FAKE_SLEEP_MS`
//! delays every compile (interrupt tests); `ARCHBUILD_FAKE_VERSION` (default `13.5.37`) is the
//! release it reports, which sets the targets it lists (a 12.x one lists sm_50–sm_72) and the
//! PTX ISA it writes (13.x: 9.x, 12.x: 8.x).

// A stand-in compiler reads its environment like the real one, not through archbuild's Env.
#![allow(clippy::disallowed_methods)]

use std::io::Write;
use std::path::{Path, PathBuf};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let tool = Path::new(&args[0])
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let rest = &args[1..];
    // The build's question for the ptxas flags (`prepare/ptxas_line.rs`): a plan with no ptxas
    // line, so the table stands in, as for any nvcc that does not say. Not logged: it is no
    // compile.
    if rest.first().map(String::as_str) == Some("--dryrun")
        && rest.get(1).map(String::as_str) == Some("-cubin")
    {
        std::process::exit(0);
    }
    log(&tool, rest);
    let code = if tool.starts_with("ptxas") {
        ptxas(rest)
    } else {
        nvcc(rest)
    };
    std::process::exit(code);
}

/// A control variable: from the environment, else from `fake.env` (`NAME=VALUE` lines) beside
/// the program as invoked. archbuild runs compilers in an environment of its own making
/// (`config/compiler_env.rs`), so a test's controls reach compiles through that file.
fn setting(name: &str) -> Option<String> {
    if let Ok(v) = std::env::var(name) {
        return Some(v);
    }
    let argv0 = std::env::args_os().next()?;
    let file = std::path::Path::new(&argv0).parent()?.join("fake.env");
    let text = std::fs::read_to_string(file).ok()?;
    text.lines()
        .filter_map(|l| l.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_owned())
}

fn log(tool: &str, args: &[String]) {
    let Some(path) = setting("ARCHBUILD_FAKE_LOG").map(std::ffi::OsString::from) else {
        return;
    };
    let line = serde_json::json!({ "tool": tool, "args": args, "pid": std::process::id() })
        .to_string()
        + "\n";
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = f.write_all(line.as_bytes());
    }
}

fn value<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    let prefixed = format!("{flag}=");
    args.iter().enumerate().find_map(|(i, a)| {
        if a == flag {
            args.get(i + 1).map(String::as_str)
        } else {
            a.strip_prefix(&prefixed)
        }
    })
}

fn nvcc(args: &[String]) -> i32 {
    let release = setting("ARCHBUILD_FAKE_VERSION")
        .ok_or(())
        .unwrap_or_else(|_| "13.5.37".into());
    // A CUDA 12 stand-in lists what CUDA 12.9 does: Maxwell to Volta (which CUDA 13 dropped),
    // sm_101 (which 13.0 renamed sm_110), no sm_88.
    let sms: &[&str] = if major(&release) < 13 {
        &[
            "50", "52", "53", "60", "61", "62", "70", "72", "75", "80", "86", "87", "89", "90",
            "100", "101", "103", "120", "121",
        ]
    } else {
        &[
            "75", "80", "86", "87", "88", "89", "90", "100", "110", "103", "120", "121", "107",
        ]
    };
    match args.first().map(String::as_str) {
        Some("--version") => {
            let mm: Vec<&str> = release.split('.').collect();
            println!("nvcc: NVIDIA (R) Cuda compiler driver");
            println!(
                "Cuda compilation tools, release {}.{}, V{release}",
                mm[0],
                mm.get(1).unwrap_or(&"0")
            );
            println!("Build fake_{release}");
            return 0;
        }
        Some("--list-gpu-code") => sms.iter().for_each(|s| println!("sm_{s}")),
        Some("--list-gpu-arch") => sms.iter().for_each(|s| println!("compute_{s}")),
        _ => return compile(args),
    }
    0
}

/// The major version of a release, `13` of `13.5.37`.
fn major(release: &str) -> u32 {
    release
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(13)
}

/// The PTX ISA a release writes, as the real ones do: 13.x writes 9.x, 12.x writes 8.x.
fn ptx_isa() -> String {
    let release = setting("ARCHBUILD_FAKE_VERSION").unwrap_or_else(|| "13.5.37".into());
    let mut parts = release.split('.');
    let ma: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(13);
    let mi: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(5);
    format!("{}.{mi}", ma.saturating_sub(4))
}

fn compile(args: &[String]) -> i32 {
    if let Some(ms) = setting("ARCHBUILD_FAKE_SLEEP_MS")
        .ok_or(())
        .ok()
        .and_then(|v| v.parse().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
    let arch = value(args, "-arch").unwrap_or("compute_52").to_owned();
    let sm = arch.trim_start_matches("compute_").to_owned();
    let (Some(out), Some(src)) = (value(args, "-o"), args.last()) else {
        eprintln!("fake nvcc: need -o and a source");
        return 2;
    };
    // `-include FILE`s come first in the translation unit, as with nvcc (module groups).
    let mut text = String::new();
    let pre: Vec<&str> = args
        .windows(2)
        .filter(|w| w[0] == "-include")
        .map(|w| w[1].as_str())
        .collect();
    for f in pre.iter().copied().chain(std::iter::once(src.as_str())) {
        let Ok(t) = std::fs::read_to_string(f) else {
            eprintln!("fake nvcc: cannot read {f}");
            return 1;
        };
        text.push_str(&t);
    }
    for (i, line) in text.lines().enumerate() {
        if line.contains("#error") {
            eprintln!("{src}({}): error: #error directive: {}", i + 1, line.trim());
            eprintln!("1 error detected in the compilation of \"{src}\".");
            return 1;
        }
        if line.contains("fake-oom") {
            // What the out-of-memory killer does: SIGKILL, nothing printed.
            // SAFETY: kill and getpid have no preconditions.
            unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
        }
        if let Some(rest) = line.split("fake-exit ").nth(1) {
            // How nvcc ends when a tool it runs is missing (127), killed (137), or a write
            // fails: `fake-exit CODE MESSAGE`.
            let (code, message) = rest.split_once(' ').unwrap_or((rest, ""));
            eprintln!("{message}");
            return code.parse().unwrap_or(1);
        }
        if line.contains(&format!("fake-fail-arch {arch}")) {
            eprintln!(
                "{src}({}): error: this code does not compile for {arch}",
                i + 1
            );
            return 1;
        }
    }
    let includes: Vec<PathBuf> = args
        .iter()
        .filter_map(|a| a.strip_prefix("-I"))
        .map(PathBuf::from)
        .collect();
    let mut deps: Vec<PathBuf> = pre.iter().map(PathBuf::from).collect();
    deps.push(PathBuf::from(src));
    let mut hash = fnv(0, text.as_bytes());
    let mut all_text = text.clone();
    collect_headers(
        Path::new(src),
        &text,
        &includes,
        &mut deps,
        &mut hash,
        &mut all_text,
    );
    for a in args
        .iter()
        .filter(|a| a.starts_with("-D") || a.starts_with("-O"))
    {
        hash = fnv(hash, a.as_bytes());
    }
    // What nvcc's device preprocessing would print: defines applied, comments gone.
    let mut preprocessed = String::new();
    for a in args.iter().filter(|a| a.starts_with("-D")) {
        preprocessed.push_str(&format!("#define {}\n", &a[2..]));
    }
    preprocessed.push_str(&format!("// arch {arch}\n"));
    for line in all_text.lines() {
        if !line.trim_start().starts_with("//") {
            preprocessed.push_str(line);
            preprocessed.push('\n');
        }
    }
    if args.iter().any(|a| a == "-E") {
        if std::fs::write(out, &preprocessed).is_err() {
            return 1;
        }
        write_depfile(args, out, &deps);
        return 0;
    }
    if let Some(keep) = value(args, "--keep-dir") {
        let stem = Path::new(src)
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy();
        let _ = std::fs::write(
            Path::new(keep).join(format!("{stem}.cpp1.ii")),
            &preprocessed,
        );
    }
    let mut ptx = format!("//\n// Generated by archbuild-fake-nvcc, inputs {hash:016x}\n//\n\n.version {}\n.target sm_{sm}\n.address_size 64\n\n", ptx_isa());
    for k in kernels(&all_text) {
        ptx.push_str(&format!(".visible .entry {k}(\n)\n{{\n\tret;\n}}\n"));
    }
    if std::fs::write(out, ptx).is_err() {
        return 1;
    }
    write_depfile(args, out, &deps);
    0
}

/// nvcc's `-MD -MF FILE`, or the host compiler's through `-Xcompiler -MD,-MF,FILE`.
fn write_depfile(args: &[String], out: &str, deps: &[PathBuf]) {
    // Several `-Xcompiler` options may come (the arch list, the dependency file).
    let xcompiler_mf = args
        .windows(2)
        .filter(|w| w[0] == "-Xcompiler")
        .find_map(|w| w[1].split(',').skip_while(|f| *f != "-MF").nth(1))
        // Quoted for the shell nvcc runs the host compiler through.
        .map(|f| f.trim_matches('\'').replace("'\\''", "'"));
    if let Some(depfile) = value(args, "-MF").or(xcompiler_mf.as_deref()) {
        let mut d = format!("{out} :");
        for p in deps {
            d.push_str(&format!(" \\\n    {}", p.display()));
        }
        d.push('\n');
        let _ = std::fs::write(depfile, d);
    }
}

fn collect_headers(
    file: &Path,
    text: &str,
    includes: &[PathBuf],
    deps: &mut Vec<PathBuf>,
    hash: &mut u64,
    all_text: &mut String,
) {
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("#include \"") else {
            continue;
        };
        let Some(name) = rest.split('"').next() else {
            continue;
        };
        let dir = file.parent().unwrap_or(Path::new("."));
        let found = std::iter::once(dir.to_path_buf())
            .chain(includes.iter().cloned())
            .map(|d| d.join(name))
            .find(|p| p.is_file());
        if let Some(p) = found {
            if !deps.contains(&p) {
                let t = std::fs::read_to_string(&p).unwrap_or_default();
                *hash = fnv(*hash, t.as_bytes());
                all_text.push_str(&t);
                deps.push(p.clone());
                collect_headers(&p, &t, includes, deps, hash, all_text);
            }
        }
    }
}

/// Names after `__global__ … NAME(`.
fn kernels(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in text.split("__global__").skip(1) {
        let before_paren = part.split('(').next().unwrap_or("");
        if let Some(name) = before_paren.split_whitespace().last() {
            out.push(name.trim_start_matches('*').to_owned());
        }
    }
    out
}

fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    if h == 0 {
        h = 0xcbf29ce484222325;
    }
    for b in bytes {
        h = (h ^ u64::from(*b)).wrapping_mul(0x100000001b3);
    }
    h
}

fn ptxas(args: &[String]) -> i32 {
    if let Some(ms) = setting("ARCHBUILD_FAKE_SLEEP_MS")
        .ok_or(())
        .ok()
        .and_then(|v| v.parse().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
    // An `a` cubin is written in CUDA 12's layout (ELF ABI 7, `0x800` in `e_flags`), which
    // says `a` without a `.nv.compat` section.
    let arch_specific = value(args, "-arch").is_some_and(|a| a.ends_with('a'));
    let sm: u32 = value(args, "-arch")
        .and_then(|a| {
            a.trim_start_matches("sm_")
                .trim_end_matches(['a', 'f'])
                .parse()
                .ok()
        })
        .unwrap_or(52);
    let (Some(out), Some(input)) = (value(args, "-o"), args.iter().find(|a| a.ends_with(".ptx")))
    else {
        eprintln!("ptxas fatal   : need an input .ptx and -o");
        return 2;
    };
    let ptx = std::fs::read_to_string(input).unwrap_or_default();
    let names: Vec<&str> = ptx
        .lines()
        .filter_map(|l| l.strip_prefix(".visible .entry "))
        .map(|l| l.trim_end_matches('('))
        .collect();
    if std::fs::write(out, cubin(sm, arch_specific, &names)).is_err() {
        return 1;
    }
    0
}

/// A minimal cubin: ELF header, `.shstrtab`, `.strtab`, `.symtab` with one FUNC symbol per
/// kernel marked `STO_CUDA_ENTRY`, section headers last.
fn cubin(sm: u32, arch_specific: bool, kernels: &[&str]) -> Vec<u8> {
    let shstr = b"\0.shstrtab\0.strtab\0.symtab\0".to_vec();
    let mut strtab = vec![0u8];
    let mut syms = vec![0u8; 24];
    for k in kernels {
        let name_off = strtab.len() as u32;
        strtab.extend_from_slice(k.as_bytes());
        strtab.push(0);
        let mut s = Vec::with_capacity(24);
        s.extend_from_slice(&name_off.to_le_bytes());
        s.push(0x12); // STB_GLOBAL | STT_FUNC
        s.push(0x10); // STO_CUDA_ENTRY
        s.extend_from_slice(&1u16.to_le_bytes());
        s.extend_from_slice(&[0; 16]);
        syms.extend_from_slice(&s);
    }
    let align = |v: &mut Vec<u8>| v.resize(v.len().div_ceil(8) * 8, 0);
    let mut body = vec![0u8; 64];
    let shstr_off = body.len();
    body.extend_from_slice(&shstr);
    let str_off = body.len();
    body.extend_from_slice(&strtab);
    align(&mut body);
    let sym_off = body.len();
    body.extend_from_slice(&syms);
    align(&mut body);
    let shoff = body.len();
    let sh = |name: u32,
              ty: u32,
              off: usize,
              size: usize,
              link: u32,
              info: u32,
              align: u64,
              entsize: u64| {
        let mut h = Vec::with_capacity(64);
        h.extend_from_slice(&name.to_le_bytes());
        h.extend_from_slice(&ty.to_le_bytes());
        h.extend_from_slice(&0u64.to_le_bytes()); // flags
        h.extend_from_slice(&0u64.to_le_bytes()); // addr
        h.extend_from_slice(&(off as u64).to_le_bytes());
        h.extend_from_slice(&(size as u64).to_le_bytes());
        h.extend_from_slice(&link.to_le_bytes());
        h.extend_from_slice(&info.to_le_bytes());
        h.extend_from_slice(&align.to_le_bytes());
        h.extend_from_slice(&entsize.to_le_bytes());
        h
    };
    body.extend_from_slice(&[0u8; 64]);
    body.extend_from_slice(&sh(1, 3, shstr_off, shstr.len(), 0, 0, 1, 0));
    body.extend_from_slice(&sh(11, 3, str_off, strtab.len(), 0, 0, 1, 0));
    body.extend_from_slice(&sh(19, 2, sym_off, syms.len(), 2, 1, 8, 24));
    let low = if sm >= 100 { 0x02 } else { 0x04 };
    let (abi, e_flags): (u8, u32) = if arch_specific {
        (7, sm | 0x800)
    } else {
        (8, 0x0600_0000 | (sm << 8) | low)
    };
    let mut h = vec![
        0x7f, b'E', b'L', b'F', 2, 1, 1, 0x41, abi, 0, 0, 0, 0, 0, 0, 0,
    ];
    h.extend_from_slice(&2u16.to_le_bytes()); // ET_EXEC
    h.extend_from_slice(&190u16.to_le_bytes()); // EM_CUDA
    h.extend_from_slice(&1u32.to_le_bytes());
    h.extend_from_slice(&0u64.to_le_bytes()); // entry
    h.extend_from_slice(&0u64.to_le_bytes()); // phoff
    h.extend_from_slice(&(shoff as u64).to_le_bytes());
    h.extend_from_slice(&e_flags.to_le_bytes());
    h.extend_from_slice(&64u16.to_le_bytes()); // ehsize
    h.extend_from_slice(&56u16.to_le_bytes()); // phentsize
    h.extend_from_slice(&0u16.to_le_bytes()); // phnum
    h.extend_from_slice(&64u16.to_le_bytes()); // shentsize
    h.extend_from_slice(&4u16.to_le_bytes()); // shnum
    h.extend_from_slice(&1u16.to_le_bytes()); // shstrndx
    body[..64].copy_from_slice(&h);
    body
}
