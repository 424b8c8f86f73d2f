//! Every nvcc option reaches ptxas as nvcc would pass it: archbuild runs ptxas itself (the
//! second phase of each target), so the ptxas flags nvcc derives from its own options (`-G`,
//! `-lineinfo`, `-Ofc`, `-maxrregcount`, `-Xptxas`, …) must be derived the same way. The check
//! is not a list of known flags: it reads every option `nvcc --help` lists, gives each a value
//! nvcc accepts, and compares the ptxas command of archbuild's plan with the ptxas line of
//! `nvcc --dryrun -cubin` for the same option. Options archbuild owns (phase, arch, output,
//! dependency files) or refuses (relocatable device code) are left out with their reason.

use std::path::Path;
use std::process::Command;

use archbuild::{Build, JobPhase};
use archbuild_tests::{path_env, toolkit};

/// One option of `nvcc --help`: its long name, its value's placeholder, the values it allows.
#[derive(Debug)]
struct Opt {
    long: String,
    value: Option<String>,
    allowed: Vec<String>,
}

fn options(help: &str) -> Vec<Opt> {
    let mut out: Vec<Opt> = Vec::new();
    for line in help.lines() {
        if let Some(rest) = line.strip_prefix("--") {
            let mut words = rest.split_whitespace();
            let long = format!("--{}", words.next().unwrap_or_default());
            let value = words
                .next()
                .filter(|w| w.starts_with('<'))
                .map(str::to_owned);
            out.push(Opt {
                long,
                value,
                allowed: Vec::new(),
            });
        } else if let Some(list) = line.trim().strip_prefix("Allowed values for this option:") {
            if let Some(o) = out.last_mut() {
                o.allowed = list
                    .trim()
                    .trim_end_matches('.')
                    .split(',')
                    .map(|v| v.trim().trim_matches('\'').to_owned())
                    .filter(|v| !v.is_empty())
                    .collect();
            }
        }
    }
    out
}

/// The instances to try: each allowed value, else a value of the placeholder's kind.
fn instances(o: &Opt) -> Vec<String> {
    match (&o.value, o.allowed.is_empty()) {
        (None, _) => vec![o.long.clone()],
        (Some(_), false) => o
            .allowed
            .iter()
            .map(|v| format!("{}={v}", o.long))
            .collect(),
        (Some(p), true) => {
            let v = match p.as_str() {
                "<amount>" | "<number>" | "<N>" => "32",
                _ if o.long.contains("ptxas") => "-v",
                _ => "1",
            };
            vec![format!("{}={v}", o.long)]
        }
    }
}

/// The ptxas flags of a command line, with `<arch>` where `-arch` is: without the program,
/// `-m64`, the input, the output and nvcc's redirections of a parallel compile.
fn ptxas_flags(line: &str) -> Vec<String> {
    let words: Vec<String> = line
        .split_whitespace()
        .skip(1)
        .map(|w| w.trim_matches('"').to_owned())
        .collect();
    let mut out = Vec::new();
    let mut it = words.into_iter();
    while let Some(w) = it.next() {
        if w == "-o" || w == ">" || w == "2>" {
            it.next();
        } else if w.starts_with("-arch=") {
            out.push("<arch>".to_owned());
        } else if !(w == "-m64" || w.ends_with(".ptx") || w.starts_with('>') || w.starts_with("2>"))
        {
            out.push(w);
        }
    }
    out
}

/// nvcc's own ptxas flags for `flag`, `None` when nvcc refuses it or runs no ptxas with it.
fn nvcc_ptxas(nvcc: &Path, dir: &Path, flag: &str) -> Option<Vec<String>> {
    let o = Command::new(nvcc)
        .args([
            "--dryrun",
            "-cubin",
            "-arch=sm_86",
            flag,
            "-o",
            "k.cubin",
            "k.cu",
        ])
        .current_dir(dir)
        .output()
        .ok()?;
    if !o.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&o.stderr).into_owned();
    let line = text
        .lines()
        .filter_map(|l| l.strip_prefix("#$ "))
        .find(|l| {
            l.split_whitespace()
                .next()
                .is_some_and(|p| p.ends_with("ptxas"))
        })?;
    Some(ptxas_flags(line))
}

/// archbuild's ptxas flags for `flag` from its plan, `Err` with why it refused the flag.
fn archbuild_ptxas(dir: &Path, flag: &str) -> Result<Vec<String>, String> {
    let plan = Build::new()
        .toolkit(toolkit().clone())
        .env(path_env())
        .manifest_dir(dir)
        .file("k.cu")
        .archs("8.6")
        .flag(flag)
        .quiet(true)
        .try_plan("k")
        .map_err(|e| e.to_string())?;
    let job = plan
        .jobs
        .iter()
        .find(|j| j.phase == JobPhase::Ptxas)
        .ok_or("no ptxas job")?;
    Ok(ptxas_flags(&job.command))
}

#[test]
fn every_nvcc_option_reaches_ptxas_as_nvcc_passes_it() {
    let tk = toolkit();
    let help = Command::new(tk.nvcc()).arg("--help").output().unwrap();
    let opts = options(&String::from_utf8_lossy(&help.stdout));
    assert!(opts.len() > 100, "nvcc --help lists {} options", opts.len());
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.cu"),
        "extern \"C\" __global__ void k(float *x) { x[0] = 1.0f; }\n",
    )
    .unwrap();
    let (mut compared, mut refused, mut mismatched) = (0, Vec::new(), Vec::new());
    for o in &opts {
        for flag in instances(o) {
            let Some(want) = nvcc_ptxas(tk.nvcc(), dir.path(), &flag) else {
                continue;
            };
            match archbuild_ptxas(dir.path(), &flag) {
                Ok(got) if got == want => compared += 1,
                Ok(got) => mismatched.push(format!("{flag}: nvcc {want:?}, archbuild {got:?}")),
                Err(why) => refused.push(format!("{flag}: {}", why.lines().next().unwrap_or(""))),
            }
        }
    }
    // Flag pairs whose interplay nvcc decides: the fast-compile level and debug code.
    for pair in [
        ["-G", "-Ofc=max"],
        ["-G", "-Ofc=0"],
        ["-Xptxas=-v", "-Ofc=mid"],
    ] {
        let joined = pair.join(" ");
        let o = Command::new(tk.nvcc())
            .args(["--dryrun", "-cubin", "-arch=sm_86"])
            .args(pair)
            .args(["-o", "k.cubin", "k.cu"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stderr).into_owned();
        let line = text
            .lines()
            .filter_map(|l| l.strip_prefix("#$ "))
            .find(|l| l.starts_with("ptxas"))
            .unwrap_or_default();
        let mut b = Build::new();
        b.toolkit(tk.clone())
            .env(path_env())
            .manifest_dir(dir.path())
            .file("k.cu")
            .archs("8.6")
            .quiet(true);
        for f in pair {
            b.flag(f);
        }
        let plan = b.try_plan("k").unwrap();
        let got = plan
            .jobs
            .iter()
            .find(|j| j.phase == JobPhase::Ptxas)
            .map(|j| ptxas_flags(&j.command))
            .unwrap_or_default();
        if got != ptxas_flags(line) {
            mismatched.push(format!(
                "{joined}: nvcc {:?}, archbuild {got:?}",
                ptxas_flags(line)
            ));
        }
        compared += 1;
    }
    assert!(
        mismatched.is_empty(),
        "{} of {} options reach ptxas otherwise than nvcc passes them:\n{}",
        mismatched.len(),
        compared + mismatched.len(),
        mismatched.join("\n")
    );
    assert!(
        compared > 100,
        "compared only {compared}; refused: {refused:#?}"
    );
    // What archbuild refuses is what it owns: phases, archs, outputs, dependency files, and
    // relocatable device code.
    for r in &refused {
        assert!(
            [
                "archbuild sets",
                "whole-program",
                "relocatable",
                "names no file",
                "cannot read",
                "not found",
                "no such file"
            ]
            .iter()
            .any(|w| r.to_lowercase().contains(w)),
            "refused for another reason: {r}"
        );
    }
}
