//! The ptxas command nvcc would run, read from nvcc itself.
//!
//! archbuild runs ptxas on its own (each target's second phase), so every nvcc option that
//! nvcc turns into ptxas flags must become the same flags, in the same places: the cubin
//! records ptxas's command line. Deriving them from a table of known options misses options
//! (`-Ofc`, `-w`, `-res-usage`, `--split-compile`, `--safety-compatibility`, …) and their
//! interplay (`-G` drops a fast-compile level; `-w` goes before `-arch`). So the build asks
//! nvcc: `nvcc --dryrun -cubin -arch=sm_XY <flags>` prints the ptxas line it would run, and
//! its words before `-arch` and between `-m64` and the input become the build's ptxas flags.
//! The answer is memoised in the cache under the toolkit and every flag, so an unchanged build
//! starts no process for it. Where nvcc cannot be asked (a toolkit standing in for a package's
//! records) the table in `Settings::finish` stands in; `tests/tests/it/ptxas_flags.rs` checks
//! both against `nvcc --dryrun` over every option `nvcc --help` lists.

use std::ffi::OsString;

use archbuild_arch::Arch;

use crate::base::process::{Cmd, Spawns};
use crate::base::store::{KeyBuilder, Ns, Store};
use crate::plan::Settings;
use crate::toolkit::nvcc::Toolkit;

/// The flags nvcc gives ptxas: those before `-arch` and those after `-m64`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct PtxasLine {
    pub pre: Vec<String>,
    pub post: Vec<String>,
}

/// Reads the ptxas line of an `nvcc --dryrun` plan; `None` when it has none.
pub(crate) fn parse(dryrun: &str) -> Option<PtxasLine> {
    let (lines, _) = crate::host::steps::plan_lines(dryrun);
    let words = lines.into_iter().find(|w| {
        w.first()
            .and_then(|p| std::path::Path::new(p).file_name())
            .is_some_and(|n| n == "ptxas")
    })?;
    let mut line = PtxasLine {
        pre: Vec::new(),
        post: Vec::new(),
    };
    let mut seen_arch = false;
    let mut it = words.into_iter().skip(1);
    while let Some(w) = it.next() {
        match w.as_str() {
            "-o" => {
                it.next();
            }
            // nvcc's own redirections of a parallel compile (`--threads`).
            ">" | "2>" => {
                it.next();
            }
            w if w.starts_with('>') || w.starts_with("2>") => {}
            w if w.starts_with("-arch=") => seen_arch = true,
            "-m64" if seen_arch => {}
            w if w.ends_with(".ptx") => {}
            _ if seen_arch => line.post.push(w),
            _ => line.pre.push(w),
        }
    }
    seen_arch.then_some(line)
}

/// Asks nvcc for the ptxas flags of this build's settings, for `arch` (any real arch the
/// build has: nvcc derives the same flags for every one). Memoised in `store`.
pub(crate) fn query(
    tk: &Toolkit,
    s: &Settings,
    arch: Arch,
    store: Option<&Store>,
    spawns: &Spawns,
) -> Result<PtxasLine, String> {
    let mut args: Vec<OsString> = vec![
        "--dryrun".into(),
        "-cubin".into(),
        format!("-arch=sm_{}", arch.sm_name()).into(),
    ];
    args.extend(s.nvcc_flags.iter().map(OsString::from));
    args.extend(explicit_ptxas(s).map(OsString::from));
    args.extend(["-o".into(), "archbuild.cubin".into(), "archbuild.cu".into()]);
    // The toolkit's exact release and every flag nvcc reads (the command line's, and
    // `NVCC_PREPEND_FLAGS`/`NVCC_APPEND_FLAGS`'s words): not its path or the rest of the
    // environment, so a second machine with the same toolkit finds the answer in a shared
    // remote.
    let mut key = KeyBuilder::new("ptxas-line");
    key.str("version", &tk.query_text());
    for a in &args {
        key.str("arg", &a.to_string_lossy());
    }
    for f in s.env_flags.iter() {
        key.str("env-flag", f);
    }
    let key = key.finish();
    // `null`: this nvcc's plan has no ptxas line for these flags (a stand-in nvcc), which is
    // remembered too, so an unchanged build starts no process either way.
    if let Some(memo) = store
        .and_then(|st| st.get(Ns::PtxasLine.dir(), &key))
        .and_then(|b| serde_json::from_slice::<Option<PtxasLine>>(&b).ok())
    {
        return memo.ok_or_else(|| "nvcc's plan has no ptxas line (remembered)".to_owned());
    }
    let mut cmd = Cmd::new(tk.nvcc())
        .args(args)
        .hermetic(s.compiler_env.vars());
    cmd.cwd = Some(std::env::temp_dir());
    let out = cmd
        .output_counted(spawns)
        .map_err(|e| format!("`{}` did not run: {e}", cmd.display()))?;
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    let line = if out.status.success() {
        parse(&text)
    } else {
        None
    };
    if let (Some(st), Ok(bytes)) = (store, serde_json::to_vec(&line)) {
        let _ = st.put(Ns::PtxasLine.dir(), &key, &bytes);
    }
    line.ok_or_else(|| {
        format!(
            "`{}` gave no ptxas line: {}",
            cmd.display(),
            text.lines().last().unwrap_or_default()
        )
    })
}

/// The build's own ptxas flags (`ptxas-flags`, `Build::ptxas_flag`), handed to nvcc as
/// `-Xptxas` so it places them as it places its own.
fn explicit_ptxas(s: &Settings) -> impl Iterator<Item = String> + '_ {
    s.explicit_ptxas.iter().map(|f| format!("-Xptxas={f}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_before_arch_and_after_m64_are_the_flags() {
        let plan = "#$ _HERE_=/x\n#$ cicc -arch compute_86 -o \"/tmp/a.ptx\"\n\
                    #$ ptxas -split-compile=2 -w -arch=sm_86 -m64 -v --Ofast-compile=0  -g \
                    \"/tmp/tmpxft_1-6_a.ptx\"  -o \"x.cubin\"  > /tmp/o 2>/tmp/e\n";
        assert_eq!(
            parse(plan),
            Some(PtxasLine {
                pre: vec!["-split-compile=2".into(), "-w".into()],
                post: vec!["-v".into(), "--Ofast-compile=0".into(), "-g".into()],
            })
        );
        assert_eq!(parse("#$ cicc -arch compute_86\n"), None);
    }
}
