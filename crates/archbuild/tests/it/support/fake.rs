//! A package directory plus a toolkit made of `archbuild-fake-nvcc` (as `nvcc` and `ptxas`),
//! and readers for the fake's argument log. Shared by the planning tests.

use std::path::{Path, PathBuf};

use archbuild::{Build, Env, Toolkit};

pub struct Fake {
    pub dir: tempfile::TempDir,
    pub toolkit: Toolkit,
}

/// One recorded invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub tool: String,
    pub args: Vec<String>,
}

impl Fake {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("cuda/bin");
        std::fs::create_dir_all(&bin).unwrap();
        let exe = env!("CARGO_BIN_EXE_archbuild-fake-nvcc");
        for name in ["nvcc", "ptxas"] {
            std::os::unix::fs::symlink(exe, bin.join(name)).unwrap();
        }
        std::fs::create_dir_all(dir.path().join("pkg/kernels")).unwrap();
        let toolkit = Toolkit::from_nvcc(bin.join("nvcc")).unwrap();
        Self { dir, toolkit }
    }

    pub fn pkg(&self) -> PathBuf {
        self.dir.path().join("pkg")
    }

    pub fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    pub fn log(&self) -> PathBuf {
        self.dir.path().join("calls.jsonl")
    }

    /// Writes a file under the package directory.
    pub fn write(&self, rel: &str, text: &str) {
        let p = self.pkg().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// A kernel source with one extern "C" kernel, optionally including headers.
    pub fn kernel(&self, rel: &str, name: &str, includes: &[&str]) {
        let mut text: String = includes
            .iter()
            .map(|h| format!("#include \"{h}\"\n"))
            .collect();
        text.push_str(&format!(
            "extern \"C\" __global__ void {name}(float* x) {{ x[0] = 1; }}\n"
        ));
        self.write(rel, &text);
    }

    /// The fake's controls (`ARCHBUILD_FAKE_*`) among `vars`, written where the fake reads them
    /// when it runs in archbuild's compiler environment, which does not pass them.
    pub fn controls<K: AsRef<str>, V: AsRef<str>>(&self, vars: &[(K, V)]) {
        let text: String = vars
            .iter()
            .filter(|(k, _)| k.as_ref().starts_with("ARCHBUILD_FAKE_"))
            .map(|(k, v)| format!("{}={}\n", k.as_ref(), v.as_ref()))
            .collect();
        std::fs::write(self.dir.path().join("cuda/bin/fake.env"), text).unwrap();
    }

    /// The environment a build sees: the log, a PATH, and `extra`.
    pub fn env(&self, extra: &[(&str, &str)]) -> Env {
        let mut vars: Vec<(String, String)> = vec![
            (
                "ARCHBUILD_FAKE_LOG".into(),
                self.log().display().to_string(),
            ),
            ("PATH".into(), "/usr/bin:/bin".into()),
        ];
        vars.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        self.controls(&vars);
        Env::from_vars(vars)
    }

    /// A build of this package with the fake toolkit, its own cache and output directory.
    pub fn build(&self, extra_env: &[(&str, &str)]) -> Build {
        let mut b = Build::new();
        b.toolkit(self.toolkit.clone())
            .env(self.env(extra_env))
            .manifest_dir(self.pkg())
            .cache_dir(self.dir.path().join("cache"))
            .out_dir(self.out())
            .quiet(true);
        b
    }

    /// Every call recorded so far, temp paths replaced by `<tmp>/NAME`.
    pub fn calls(&self) -> Vec<Call> {
        let text = std::fs::read_to_string(self.log()).unwrap_or_default();
        text.lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                let args = v["args"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| normalize(a.as_str().unwrap()))
                    .collect();
                Call {
                    tool: v["tool"].as_str().unwrap().to_owned(),
                    args,
                }
            })
            .collect()
    }

    /// Calls that compiled something (not the toolkit queries).
    pub fn compiles(&self) -> Vec<Call> {
        self.calls()
            .into_iter()
            .filter(|c| c.tool == "ptxas" || c.args.first().is_some_and(|a| a == "-ptx"))
            .collect()
    }
}

/// `/…/.tmp-build-XXXX/3.ptx` → `<tmp>/3.ptx` (also inside comma-separated lists).
fn normalize(a: &str) -> String {
    a.split(',')
        .map(normalize_one)
        .collect::<Vec<_>>()
        .join(",")
}

fn normalize_one(a: &str) -> String {
    match a.find(".tmp-build-") {
        Some(i) => {
            let rest = &a[i..];
            let file = Path::new(rest).file_name().unwrap().to_string_lossy();
            // What comes before the path stays (a shell quote), as does what follows the name.
            let before = &a[..a[..i].find('/').unwrap_or(i)];
            format!("{before}<tmp>/{file}")
        }
        None => a.to_owned(),
    }
}
