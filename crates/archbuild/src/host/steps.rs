//! The host half of `nvcc -c`, as this toolkit runs it: the steps `nvcc --dryrun -c` prints,
//! minus the device ones archbuild's job graph runs itself.
//!
//! For a `.cu` file with host code nvcc runs (CUDA 12 and 13): the host preprocessor (`gcc -E`,
//! `__CUDACC__`, `-include cuda_runtime.h`, `__CUDA_ARCH_LIST__` of the whole list) into
//! `.cpp4.ii`; `cudafe++`, which splits off the host side into `.cudafe1.cpp` (it `#include`s
//! the stub cicc writes, which `#include`s the embedded fat binary) and writes the module ID;
//! per arch the device steps; then the host compiler on `.cudafe1.cpp`. Rather than rebuild
//! those command lines (flags that differ with the toolkit, host compiler and user flags),
//! archbuild asks nvcc for them with the same flags and runs them with its own file names.
//!
//! One change: nvcc has `cudafe++` generate the module ID and cicc read it; archbuild's cicc
//! jobs generate it (as `nvcc -ptx` does, so their PTX is the cache's) and `cudafe++` reads
//! theirs (`--module_id_file_name` without `--gen_module_id_file`). Host and device then agree
//! on the ID that names internal symbols by construction.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::base::process::Cmd;
use crate::plan::{relative, Module, Settings};
use crate::toolkit::nvcc::Toolkit;

/// The three host steps of one source file, with archbuild's file names in `dir`.
#[derive(Debug, Clone)]
pub(crate) struct HostSteps {
    /// Host preprocessing into `files.ii`, writing its dependency list to `files.deps`.
    pub preprocess: Cmd,
    /// `cudafe++` from `files.ii` to `files.cpp`, reading `files.module_id`.
    pub cudafe: Cmd,
    /// The host compiler from `files.cpp` (with the stub and `.fatbin.c` beside it) to
    /// `files.object`.
    pub compile: Cmd,
}

/// The files of one source's host steps, all in one directory (the stub and the embedded fat
/// binary are found by `#include "…"` relative to `cpp`).
#[derive(Debug, Clone)]
pub(crate) struct HostFiles {
    pub ii: PathBuf,
    pub deps: PathBuf,
    pub cpp: PathBuf,
    /// The stub's name as `.cudafe1.cpp` includes it (relative to its directory).
    pub stub_name: String,
    /// The embedded fat binary's name as the stub includes it.
    pub fatbin_c_name: String,
    pub module_id: PathBuf,
    pub object: PathBuf,
}

impl HostFiles {
    /// Names from the source's file stem, so objects and line markers do not carry temp names.
    pub(crate) fn new(dir: &Path, source: &Path) -> Self {
        let stem = source
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "source".into());
        Self {
            ii: dir.join(format!("{stem}.cpp4.ii")),
            deps: dir.join(format!("{stem}.cpp4.d")),
            cpp: dir.join(format!("{stem}.cudafe1.cpp")),
            stub_name: format!("{stem}.cudafe1.stub.c"),
            fatbin_c_name: format!("{stem}.fatbin.c"),
            module_id: dir.join(format!("{stem}.module_id")),
            object: dir.join(format!("{stem}.o")),
        }
    }
}

/// The `nvcc --dryrun -c` command for a module: the device command's flags, every target of
/// its list as `-gencode`, and the host-only flags.
pub(crate) fn dryrun_command(
    tk: &Toolkit,
    s: &Settings,
    m: &Module,
    host_flags: &[String],
    object: &Path,
) -> Cmd {
    let mut args: Vec<OsString> = vec!["--dryrun".into(), "-c".into()];
    // Relocatable code: `cudafe++ --device-c`, and a stub that registers with the device link.
    if m.device_code == crate::plan::DeviceCode::Relocatable {
        args.push("-rdc=true".into());
    }
    args.extend(s.nvcc_flags.iter().map(OsString::from));
    args.extend(host_flags.iter().map(OsString::from));
    // The host side reads the same headers as the device side: header libraries too.
    args.extend(crate::plan::include_flags(s));
    args.extend(s.defines.iter().map(|d| OsString::from(format!("-D{d}"))));
    for f in crate::plan::preincludes(m) {
        args.extend(["-include".into(), relative(&s.base_dir, f).into_os_string()]);
    }
    args.extend(m.archs.list.gencode_flags().into_iter().map(OsString::from));
    args.extend([
        "-o".into(),
        object.as_os_str().to_owned(),
        relative(&s.base_dir, &m.source).into_os_string(),
    ]);
    let mut cmd = Cmd::new(tk.nvcc())
        .args(args)
        .hermetic(s.compiler_env.vars());
    cmd.cwd = Some(s.base_dir.clone());
    cmd
}

/// Why nvcc's plan could not be used.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct StepsError(pub String);

/// The host steps from `nvcc --dryrun -c` output (its stderr), run in `cwd` with `env`.
pub(crate) fn parse(
    dryrun: &str,
    files: &HostFiles,
    source_path_name: &str,
    cwd: &Path,
    env: &[(OsString, OsString)],
) -> Result<HostSteps, StepsError> {
    let (lines, vars) = plan_lines(dryrun);
    let program = |w: &[String]| {
        Path::new(&w[0])
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let output_of = |w: &[String]| {
        w.iter()
            .position(|a| a == "-o")
            .and_then(|i| w.get(i + 1))
            .cloned()
            .unwrap_or_default()
    };
    let preprocess = lines
        .iter()
        .find(|w| w.iter().any(|a| a == "-E") && output_of(w).ends_with(".cpp4.ii"))
        .ok_or_else(|| StepsError("no host preprocessing step (`-E … .cpp4.ii`)".into()))?;
    let cudafe = lines
        .iter()
        .find(|w| program(w) == "cudafe++")
        .ok_or_else(|| StepsError("no `cudafe++` step".into()))?;
    let compile = lines
        .iter()
        .rev()
        .find(|w| w.iter().any(|a| a == "-c") && w.iter().any(|a| a.ends_with(".cudafe1.cpp")))
        .ok_or_else(|| StepsError("no host compile of `.cudafe1.cpp`".into()))?;

    let mut pre = rename(preprocess, files);
    pre.extend(["-MD", "-MF"].map(String::from));
    pre.push(files.deps.to_string_lossy().into_owned());

    let mut fe = Vec::new();
    let renamed = rename(cudafe, files);
    let mut it = renamed.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--gen_module_id_file" => {}
            "--orig_src_path_name" => {
                it.next();
                fe.extend(["--orig_src_path_name".into(), source_path_name.to_owned()]);
            }
            "--stub_file_name" => {
                it.next();
                fe.extend(["--stub_file_name".into(), files.stub_name.clone()]);
            }
            _ => fe.push(a),
        }
    }
    if !fe.iter().any(|a| a == "--module_id_file_name") {
        return Err(StepsError("`cudafe++` is given no module ID file".into()));
    }
    let cc = rename(compile, files);
    // nvcc runs its steps with the toolkit's directories first on PATH (its `PATH=` line);
    // `cudafe++` is found there, not on the caller's PATH.
    let path = vars.get("PATH").map(String::as_str);
    Ok(HostSteps {
        preprocess: command(pre, cwd, env, path),
        cudafe: command(fe, cwd, env, path),
        compile: command(cc, cwd, env, path),
    })
}

/// The commands of an `nvcc --dryrun` plan (its `#$` lines), split into words with nvcc's own
/// variables (`CICC_PATH`, `PATH`, …) expanded, and those variables.
pub(crate) fn plan_lines(dryrun: &str) -> (Vec<Vec<String>>, HashMap<String, String>) {
    let mut vars: HashMap<String, String> = HashMap::new();
    let mut lines: Vec<Vec<String>> = Vec::new();
    for raw in dryrun.lines() {
        let Some(line) = raw.strip_prefix("#$ ") else {
            continue;
        };
        if let Some((name, value)) = assignment(line) {
            let value = words(value, &vars).join(" ");
            vars.insert(name.to_owned(), value);
            continue;
        }
        let w = words(line, &vars);
        if !w.is_empty() {
            lines.push(w);
        }
    }
    (lines, vars)
}

/// A plan line as a command, its program looked up on nvcc's `PATH` when it has no directory.
pub(crate) fn command(
    words: Vec<String>,
    cwd: &Path,
    env: &[(OsString, OsString)],
    path: Option<&str>,
) -> Cmd {
    let mut it = words.into_iter();
    let program = PathBuf::from(it.next().unwrap_or_default());
    let program = match (program.components().count(), path) {
        (1, Some(path)) => crate::base::process::on_path(&program, path).unwrap_or(program),
        _ => program,
    };
    let mut cmd = Cmd::new(program).args(it).hermetic(env);
    cmd.cwd = Some(cwd.to_path_buf());
    cmd
}

/// `NAME=value` with a shell variable name.
fn assignment(line: &str) -> Option<(&str, &str)> {
    let (name, value) = line.split_once('=')?;
    let ok = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    ok.then_some((name, value))
}

/// nvcc's temp file names replaced by archbuild's, by what each file is.
fn rename(words: &[String], f: &HostFiles) -> Vec<String> {
    words
        .iter()
        .map(|w| {
            let Some(at) = w.find("tmpxft_") else {
                return w.clone();
            };
            // The path starts after an option's `=`, or with the word.
            let start = w[..at].rfind('=').map_or(0, |i| i + 1);
            let tail = &w[at..];
            let path = if tail.ends_with(".cpp4.ii") {
                f.ii.to_string_lossy().into_owned()
            } else if tail.ends_with(".cudafe1.cpp") {
                f.cpp.to_string_lossy().into_owned()
            } else if tail.ends_with(".cudafe1.stub.c") {
                f.stub_name.clone()
            } else if tail.ends_with(".module_id") {
                f.module_id.to_string_lossy().into_owned()
            } else if tail.ends_with(".fatbin.c") {
                f.fatbin_c_name.clone()
            } else {
                return w.clone();
            };
            format!("{}{}", &w[..start], path)
        })
        .collect()
}

/// Splits a `--dryrun` line as a POSIX shell would split it: blanks separate words, double
/// quotes keep blanks (with `\"`, `\\`, `\$` escapes), single quotes keep everything, and
/// `$NAME`/`${NAME}` outside single quotes expand from nvcc's own assignments.
fn words(line: &str, vars: &HashMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    let expand = |chars: &mut std::iter::Peekable<std::str::Chars>, cur: &mut String| {
        let braced = chars.peek() == Some(&'{');
        if braced {
            chars.next();
        }
        let mut name = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_ascii_alphanumeric() || c == '_' {
                name.push(c);
                chars.next();
            } else {
                break;
            }
        }
        if braced && chars.peek() == Some(&'}') {
            chars.next();
        }
        if name.is_empty() {
            cur.push('$');
        } else if let Some(v) = vars.get(&name) {
            cur.push_str(v);
        }
    };
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.peek() {
                            Some(&n @ ('"' | '\\' | '$' | '`')) => {
                                cur.push(n);
                                chars.next();
                            }
                            _ => cur.push('\\'),
                        },
                        '$' => expand(&mut chars, &mut cur),
                        _ => cur.push(c),
                    }
                }
            }
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    cur.push(c);
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            '$' => {
                in_word = true;
                expand(&mut chars, &mut cur);
            }
            _ => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DRYRUN: &str = r#"#$ _NVVM_BRANCH_=nvvm
#$ _SPACE_= 
#$ CICC_PATH=/tk/bin/../nvvm/bin
#$ INCLUDES="-I/tk/bin/../include"  
#$ gcc -D__CUDA_ARCH_LIST__=860,890 -E -x c++ -D__CUDACC__ -D__NVCC__  "-I/tk/bin/../include"   "-isystem" "/tk/bin/../include/cccl"    -include "cuda_runtime.h" -m64 "src/k.cu" -o "/tmp/tmpxft_00007495_00000000-5_k.cpp4.ii" 
#$ cudafe++ --c++17 --static-host-stub --orig_src_file_name "k.cu" --orig_src_path_name "/pkg/src/k.cu" --allow_managed  --m64 --parse_templates --gen_c_file_name "/tmp/tmpxft_00007495_00000000-6_k.compute_89.cudafe1.cpp" --stub_file_name "tmpxft_00007495_00000000-6_k.compute_89.cudafe1.stub.c" --gen_module_id_file --module_id_file_name "/tmp/tmpxft_00007495_00000000-4_k.module_id" --simt-only "/tmp/tmpxft_00007495_00000000-5_k.cpp4.ii" 
#$ gcc -D__CUDA_ARCH__=860 -E -x c++ "src/k.cu" -o "/tmp/tmpxft_00007495_00000000-8_k.compute_86.cpp1.ii" 
#$ "$CICC_PATH/cicc" --c++17 -arch compute_86 "/tmp/tmpxft_00007495_00000000-8_k.compute_86.cpp1.ii" -o "/tmp/x.ptx"
#$ ptxas -arch=sm_86 -m64  "/tmp/x.ptx"  -o "/tmp/x.cubin" 
#$ fatbinary -64 --cicc-cmdline="-ftz=0 " "--image3=kind=elf,sm=86,file=/tmp/x.cubin" --embedded-fatbin="/tmp/tmpxft_00007495_00000000-3_k.fatbin.c" 
#$ rm /tmp/tmpxft_00007495_00000000-3_k.fatbin
#$ gcc -D__CUDA_ARCH__=890 -D__CUDA_ARCH_LIST__=860,890 -c -x c++  -DCUDA_DOUBLE_MATH_FUNCTIONS -Wno-psabi "-I/tk/bin/../include" -m64 "/tmp/tmpxft_00007495_00000000-6_k.compute_89.cudafe1.cpp" -o "/out/k.o" 
"#;

    fn args(c: &Cmd) -> Vec<String> {
        std::iter::once(c.program.to_string_lossy().into_owned())
            .chain(c.args.iter().map(|a| a.to_string_lossy().into_owned()))
            .collect()
    }

    #[test]
    fn takes_the_host_steps_with_archbuilds_names_and_the_shared_module_id() {
        let files = HostFiles::new(Path::new("/w"), Path::new("src/k.cu"));
        let s = parse(DRYRUN, &files, "src/k.cu", Path::new("/pkg"), &[]).unwrap();
        let pre = args(&s.preprocess);
        assert_eq!(pre[0], "gcc");
        assert!(
            pre.windows(2).any(|w| w == ["-o", "/w/k.cpp4.ii"]),
            "{pre:?}"
        );
        assert!(pre.ends_with(&["-MD".into(), "-MF".into(), "/w/k.cpp4.d".into()]));
        assert!(pre.contains(&"-D__CUDA_ARCH_LIST__=860,890".into()));
        let fe = args(&s.cudafe);
        assert_eq!(fe[0], "cudafe++");
        assert!(!fe.contains(&"--gen_module_id_file".into()), "{fe:?}");
        for pair in [
            ["--module_id_file_name", "/w/k.module_id"],
            ["--orig_src_path_name", "src/k.cu"],
            ["--stub_file_name", "k.cudafe1.stub.c"],
            ["--gen_c_file_name", "/w/k.cudafe1.cpp"],
        ] {
            assert!(fe.windows(2).any(|w| w == pair), "{pair:?} in {fe:?}");
        }
        assert_eq!(fe.last().unwrap(), "/w/k.cpp4.ii");
        let cc = args(&s.compile);
        assert!(cc.contains(&"-c".into()) && cc.contains(&"/w/k.cudafe1.cpp".into()));
        assert!(cc.windows(2).any(|w| w == ["-o", "/out/k.o"]), "{cc:?}");
        assert_eq!(s.compile.cwd.as_deref(), Some(Path::new("/pkg")));
    }

    #[test]
    fn words_split_like_a_shell_and_expand_nvccs_variables() {
        let vars = HashMap::from([("CICC_PATH".to_string(), "/a b/nvvm".to_string())]);
        assert_eq!(
            words(
                r#""$CICC_PATH/cicc" -x 'a b' "q\"uote" ${CICC_PATH}x $ a\ b"#,
                &vars
            ),
            [
                "/a b/nvvm/cicc",
                "-x",
                "a b",
                "q\"uote",
                "/a b/nvvmx",
                "$",
                "a b"
            ]
        );
        assert!(words("   ", &vars).is_empty());
    }

    #[test]
    fn a_plan_without_a_host_step_is_refused_by_name() {
        let files = HostFiles::new(Path::new("/w"), Path::new("k.cu"));
        let no_fe: String = DRYRUN
            .lines()
            .filter(|l| !l.contains("cudafe++"))
            .map(|l| format!("{l}\n"))
            .collect();
        let e = parse(&no_fe, &files, "k.cu", Path::new("/p"), &[]).unwrap_err();
        assert!(e.0.contains("cudafe++"), "{e:?}");
        let e = parse("", &files, "k.cu", Path::new("/p"), &[]).unwrap_err();
        assert!(e.0.contains("preprocessing"), "{e:?}");
    }
}
