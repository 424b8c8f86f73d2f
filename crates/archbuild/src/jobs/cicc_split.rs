//! The cicc phase as two processes, for a launcher that runs cicc itself (sccache, whose
//! `sccache-dist` then runs it on a build server): the host preprocessor locally (it reads the
//! machine's headers), then cicc on the preprocessed file. Without a launcher, the same split
//! leaves out the PTX check `nvcc -ptx` runs for compute_90 and newer where a ptxas job reads
//! the PTX anyway (`JobRunner::skips_ptx_check`).
//!
//! Rather than rebuild nvcc's command lines, archbuild asks nvcc (`nvcc --dryrun`, the same
//! flags and `--keep-dir` as the one-process compile) and runs its two lines, with two
//! changes sccache 0.16 needs: cicc's input and `-o OUTPUT` last (sccache takes the third word
//! from the end as the input; CUDA 13.3 and newer put `--simt-only` after it), and the kept
//! files named relative to the keep directory, cicc's working directory, so that sccache's
//! key (which hashes the arguments as text) does not hold a temp path. The PTX is nvcc's to
//! the byte (tests/tests/it/sccache.rs compares both ways on every fixture).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::base::process::Cmd;
use crate::host::steps::{command, plan_lines, StepsError};

/// The two processes of one cicc job.
#[derive(Debug)]
pub(crate) struct Split {
    /// The host preprocessor for this arch, writing `ii` (and the dependency list, when the
    /// compile asked for one).
    pub preprocess: Cmd,
    /// cicc from `ii` to the job's PTX, through the launcher.
    pub cicc: Cmd,
    /// The preprocessed file.
    pub ii: PathBuf,
}

/// The split of `nvcc --dryrun -ptx … --keep-dir keep` output (its stderr), the preprocessor
/// run in `cwd` with `env`, cicc in `keep` through `launcher`.
pub(crate) fn parse(
    dryrun: &str,
    cwd: &Path,
    keep: &Path,
    env: &[(OsString, OsString)],
    launcher: Option<&Path>,
) -> Result<Split, StepsError> {
    let (lines, vars) = plan_lines(dryrun);
    let path = vars.get("PATH").map(String::as_str);
    let output_of = |w: &[String]| {
        w.iter()
            .position(|a| a == "-o")
            .and_then(|i| w.get(i + 1))
            .cloned()
    };
    let cicc = lines
        .iter()
        .find(|w| Path::new(&w[0]).file_name().is_some_and(|n| n == "cicc"))
        .ok_or_else(|| StepsError("no `cicc` step".into()))?;
    let ii = cicc
        .iter()
        .skip(1)
        .find(|a| a.ends_with(".cpp1.ii"))
        .cloned()
        .ok_or_else(|| StepsError("`cicc` reads no `.cpp1.ii`".into()))?;
    let preprocess = lines
        .iter()
        .find(|w| w.iter().any(|a| a == "-E") && output_of(w).as_deref() == Some(ii.as_str()))
        .ok_or_else(|| StepsError(format!("no preprocessing step writes `{ii}`")))?;
    let out = output_of(cicc).ok_or_else(|| StepsError("`cicc` has no `-o`".into()))?;
    let keep_prefix = format!("{}/", keep.display());
    let local = |a: &str| a.strip_prefix(&keep_prefix).unwrap_or(a).to_owned();
    let mut words: Vec<String> = vec![cicc[0].clone()];
    let mut it = cicc.iter().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" => {
                it.next();
            }
            _ if *a == ii => {}
            _ => words.push(local(a)),
        }
    }
    words.extend([local(&ii), "-o".into(), out]);
    let mut cicc = command(words, keep, env, path);
    if let Some(l) = launcher {
        cicc = cicc.with_launcher(Some(l));
    }
    Ok(Split {
        preprocess: command(preprocess.clone(), cwd, env, path),
        cicc,
        ii: cwd.join(&ii),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CUDA 13.5's plan for `nvcc --dryrun -ptx --keep --keep-dir /k`, shortened.
    const PLAN: &str = r#"#$ _NVVM_BRANCH_=nvvm
#$ CICC_PATH=/tk/nvvm/bin
#$ PATH=/tk/bin:/usr/bin
#$ gcc -D__CUDA_ARCH__=800 -D__CUDA_ARCH_LIST__=800 -E -x c++ -D__CUDACC__ "-I/tk/include" -include "cuda_runtime.h" -m64 "src/a b.cu" -MD -MF /t/0.d -o "/k/a b.cpp1.ii"
#$ "$CICC_PATH/cicc" --c++17 --orig_src_path_name "/pkg/src/a b.cu" -arch compute_80 -m64 --include_file_name "a b.fatbin.c" -tused --gen_module_id_file --module_id_file_name "/k/a b.module_id" "/k/a b.cpp1.ii" --simt-only -o "/t/0.ptx"
"#;

    #[test]
    fn cicc_gets_its_input_and_output_last_and_names_relative_to_the_keep_dir() {
        let s = parse(
            PLAN,
            Path::new("/pkg"),
            Path::new("/k"),
            &[],
            Some(Path::new("sccache")),
        )
        .unwrap();
        assert_eq!(
            s.cicc.display(),
            "sccache /tk/nvvm/bin/cicc --c++17 --orig_src_path_name \"/pkg/src/a b.cu\" -arch \
             compute_80 -m64 --include_file_name \"a b.fatbin.c\" -tused --gen_module_id_file \
             --module_id_file_name \"a b.module_id\" --simt-only \"a b.cpp1.ii\" -o /t/0.ptx"
        );
        assert_eq!(s.cicc.cwd.as_deref(), Some(Path::new("/k")));
        assert_eq!(s.ii, Path::new("/k/a b.cpp1.ii"));
        let pre = s.preprocess.display();
        // `gcc` is looked up on nvcc's `PATH` (`/tk/bin:/usr/bin`).
        assert!(pre.contains("gcc -D__CUDA_ARCH__=800"), "{pre}");
        assert!(pre.ends_with("-MF /t/0.d -o \"/k/a b.cpp1.ii\""), "{pre}");
    }

    #[test]
    fn a_plan_without_cicc_or_its_preprocessing_names_what_is_missing() {
        let no_cicc = PLAN.lines().take(4).collect::<Vec<_>>().join("\n");
        let e = parse(&no_cicc, Path::new("/p"), Path::new("/k"), &[], None).unwrap_err();
        assert_eq!(e.0, "no `cicc` step");
        let no_pre: String = PLAN
            .lines()
            .filter(|l| !l.contains(" -E "))
            .map(|l| format!("{l}\n"))
            .collect();
        let e = parse(&no_pre, Path::new("/p"), Path::new("/k"), &[], None).unwrap_err();
        assert_eq!(e.0, "no preprocessing step writes `/k/a b.cpp1.ii`");
    }
}
