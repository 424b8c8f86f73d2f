//! The environment compilers run in. archbuild builds it from an allowlist instead of letting
//! nvcc, cicc, ptxas and the host compiler inherit whatever the caller had, because every
//! variable a compiler reads can change its output: a variable is either passed *and* in the
//! cache key, or passed because it cannot change an output, or not passed at all.
//! `docs/environment.md` ("What compilers see") lists the same three groups; a test checks that
//! the page and [`KEYED`]/[`PASSED`] agree.

use std::ffi::{OsStr, OsString};

use crate::base::env::Env;

/// Passed to compilers and part of every cicc job's key, value for value.
pub(crate) const KEYED: &[(&str, &str)] = &[
    (
        "NVCC_PREPEND_FLAGS",
        "nvcc puts these flags before its command line",
    ),
    (
        "NVCC_APPEND_FLAGS",
        "nvcc appends these flags to its command line",
    ),
    ("NVCC_CCBIN", "the host compiler nvcc runs"),
    ("CPATH", "the host preprocessor's include path (C and C++)"),
    ("C_INCLUDE_PATH", "the host preprocessor's include path (C)"),
    (
        "CPLUS_INCLUDE_PATH",
        "the host preprocessor's include path (C++)",
    ),
    (
        "SOURCE_DATE_EPOCH",
        "the host preprocessor's `__DATE__` and `__TIME__`",
    ),
];

/// Passed to compilers, not in any key: they cannot change what a compiler writes.
pub(crate) const PASSED: &[(&str, &str)] = &[
    (
        "PATH",
        "where nvcc finds the host compiler, which is keyed by its content",
    ),
    ("HOME", "home of the launcher's configuration (sccache)"),
    ("USER", "the launcher's configuration"),
    ("LOGNAME", "the launcher's configuration"),
    ("TMPDIR", "where nvcc keeps its intermediate files"),
    ("XDG_CACHE_HOME", "the launcher's cache directory"),
    ("XDG_CONFIG_HOME", "the launcher's configuration"),
    ("XDG_RUNTIME_DIR", "the launcher's sockets"),
];

/// Prefixes of variables passed as [`PASSED`] ones are: a launcher's own configuration.
pub(crate) const PASSED_PREFIXES: &[&str] = &["SCCACHE_"];

/// The variables that name the host compiler nvcc runs when neither `-ccbin` (in any flag
/// source) nor `NVCC_CCBIN` does, first set first: CMake's `CUDAHOSTCXX`, then cc-rs's
/// `CXX_<target>` (as given, then with `_` for `-`), `HOST_CXX` (building for this machine) or
/// `TARGET_CXX` (cross), and `CXX`. `target`/`host` are Cargo's `TARGET`/`HOST`; outside a build
/// script the target is this machine.
pub(crate) fn host_cxx_vars(target: Option<&str>, host: Option<&str>) -> Vec<String> {
    let mut vars = vec!["CUDAHOSTCXX".to_owned()];
    if let Some(t) = target {
        vars.push(format!("CXX_{t}"));
        vars.push(format!("CXX_{}", t.replace('-', "_")));
    }
    let cross = matches!((target, host), (Some(t), Some(h)) if t != h);
    vars.push(if cross { "TARGET_CXX" } else { "HOST_CXX" }.to_owned());
    vars.push("CXX".to_owned());
    vars
}

/// The host compiler a variable of [`host_cxx_vars`] names, for nvcc's `-ccbin`: the variable
/// and the program. A compiler wrapper in front (`ccache g++`) is dropped, as nvcc runs the
/// compiler itself; a value with arguments is an error, as `-ccbin` takes a program only.
pub(crate) fn host_cxx(env: &Env) -> crate::error::Result<Option<(String, String)>> {
    let (target, host) = (env.var("TARGET"), env.var("HOST"));
    for var in host_cxx_vars(target.as_deref(), host.as_deref()) {
        let Some(value) = env.var(&var).filter(|v| !v.trim().is_empty()) else {
            continue;
        };
        let mut words = shlex::split(&value).unwrap_or_default();
        let wrapper = |w: &String| {
            let name = std::path::Path::new(w).file_name().unwrap_or_default();
            ["ccache", "sccache", "distcc"].iter().any(|n| name == *n)
        };
        if words.len() > 1 && wrapper(&words[0]) {
            words.remove(0);
        }
        return match words.as_slice() {
            [program] => Ok(Some((var, program.clone()))),
            _ => Err(crate::error::Error::Config {
                what: "host compiler",
                origin: var.clone(),
                value,
                hint: format!(
                    "nvcc's host compiler (`-ccbin`) is a program without arguments; set \
                     {var} (or CUDAHOSTCXX, which comes first) to the compiler alone and pass \
                     its flags with `-Xcompiler`"
                ),
            }),
        };
    }
    Ok(None)
}

/// The complete environment of a compiler process.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CompilerEnv {
    vars: Vec<(OsString, OsString)>,
}

impl CompilerEnv {
    /// The allowlisted variables of `env`, read through it (so a build script reruns when one
    /// changes). A fixed environment that does not set `PATH` (or another [`PASSED`] variable)
    /// gets the process's: none of them shapes an output.
    pub(crate) fn from_env(env: &Env) -> Self {
        let mut vars = Vec::new();
        for (name, _) in KEYED {
            if let Some(v) = env.var_os(name) {
                vars.push((OsString::from(name), v));
            }
        }
        for (name, _) in PASSED {
            if let Some(v) = env.var_os_or_inherited(name) {
                vars.push((OsString::from(name), v));
            }
        }
        for prefix in PASSED_PREFIXES {
            vars.extend(env.vars_with_prefix(prefix));
        }
        vars.sort();
        vars.dedup_by(|a, b| a.0 == b.0);
        Self { vars }
    }

    /// Every variable, for the child's environment.
    pub(crate) fn vars(&self) -> &[(OsString, OsString)] {
        &self.vars
    }

    pub(crate) fn get(&self, name: &str) -> Option<&OsStr> {
        self.vars
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_os_str())
    }

    /// The variables that are part of the key, with their values (unset ones as absent).
    pub(crate) fn keyed(&self) -> impl Iterator<Item = (&'static str, Option<&OsStr>)> + '_ {
        KEYED.iter().map(|(name, _)| (*name, self.get(name)))
    }

    /// The directories of the host preprocessor's include-path variables, in search order.
    pub(crate) fn include_dirs(&self) -> Vec<std::path::PathBuf> {
        ["CPATH", "CPLUS_INCLUDE_PATH", "C_INCLUDE_PATH"]
            .iter()
            .filter_map(|n| self.get(n))
            .flat_map(std::env::split_paths)
            .filter(|p| !p.as_os_str().is_empty())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_allowlisted_variables_reach_compilers() {
        let env = Env::from_vars([
            ("PATH", "/bin"),
            ("CPATH", "/inc"),
            ("SCCACHE_DIR", "/s"),
            ("INCLUDES", "-I/evil"),
            ("PTXAS_FLAGS", "-O0"),
            ("LD_PRELOAD", "/x.so"),
            ("GCC_COMPARE_DEBUG", "1"),
        ]);
        let c = CompilerEnv::from_env(&env);
        let names: Vec<_> = c.vars().iter().map(|(k, _)| k.to_str().unwrap()).collect();
        assert!(names.contains(&"PATH") && names.contains(&"CPATH"));
        assert!(names.contains(&"SCCACHE_DIR"));
        for bad in ["INCLUDES", "PTXAS_FLAGS", "LD_PRELOAD", "GCC_COMPARE_DEBUG"] {
            assert!(
                !names.contains(&bad),
                "{bad} reached the compiler: {names:?}"
            );
        }
        let keyed: Vec<_> = c.keyed().filter(|(_, v)| v.is_some()).collect();
        assert_eq!(keyed, vec![("CPATH", Some(OsStr::new("/inc")))]);
        assert_eq!(c.include_dirs(), vec![std::path::PathBuf::from("/inc")]);
    }

    /// The page users read lists every variable in the group the code puts it in.
    #[test]
    fn docs_environment_lists_every_group() {
        let section = crate::base::doc_section("environment.md", "What compilers see");
        let keyed = section.split("Passed, not in the key").next().unwrap();
        let passed = section
            .split("Passed, not in the key")
            .nth(1)
            .expect("the section names `Passed, not in the key`");
        for (name, _) in KEYED {
            assert!(
                keyed.contains(&format!("`{name}`")),
                "{name} is not listed as keyed"
            );
        }
        for (name, _) in PASSED {
            assert!(
                passed.contains(&format!("`{name}`")),
                "{name} is not listed as passed"
            );
        }
        for p in PASSED_PREFIXES {
            assert!(
                passed.contains(&format!("`{p}*`")),
                "{p}* is not listed as passed"
            );
        }
    }
}
