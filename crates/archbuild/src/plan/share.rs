//! One cicc run for several targets: the rule, and the PTX rewrite it needs.
//!
//! cicc turns a preprocessed source into PTX for one virtual arch. For some archs — a *class*,
//! found by the corpus study of `docs/build.md` ("One cicc run for several archs") — a source
//! whose preprocessed text is the same for two archs (`__CUDA_ARCH__` and the feature macros
//! applied, as nvcc's device pass applies them) gives PTX that differs only in its `.target`
//! line. So the build compiles the lowest arch of a class (the *lead*), preprocesses each other
//! arch of the class (a *follower*, one `nvcc -E`), and where the text is byte-identical takes
//! the lead's PTX with `.target` rewritten; ptxas then runs per target as before. Where the text
//! differs the follower compiles on its own.
//!
//! Classes are narrower than families: on identical text cicc 13.5 still tunes compute_86 and
//! compute_88 apart from compute_80, 87 and 89. The rule holds only for the toolkits and classes
//! listed here; everything else compiles separately: other toolkits, other archs, arch-specific
//! (`a`) and family-specific (`f`) targets, debug or line information, options passed to cicc
//! directly, and compiles through a launcher (which hides the preprocessed text).
//! `ARCHBUILD_SHARE_CICC=off` turns it off; followers' cache keys name the lead and the rule's
//! version, so results made either way never mix.

use archbuild_arch::{Arch, CudaVersion, Variant};

use crate::base::env::Env;
use crate::error::{Error, Result};

/// The switch (`on` by default).
pub(crate) const VAR: &str = "ARCHBUILD_SHARE_CICC";

/// The rule's version, part of every follower's cache key.
pub(crate) const RULE: &str = "same-preprocessed-text-v2";

/// Per toolkit (major, minor) whose cicc the corpus study covered, the classes of archs that
/// held the rule for every source. Not a family each: on the same preprocessed text cicc 13.0
/// and 13.5 tune compute_86 and compute_88 apart from compute_80, 87 and 89 (one kernel of
/// `benches/inputs/bench_kernels.cu` gets another loop shape), so those are two classes.
/// Families 10 and 12 are left out: on 13.0, 11 of 42 sources give other PTX for 100/103 and
/// for 120/121 from the same text.
const PROVEN: &[((u32, u32), Classes)] = &[
    ((13, 0), &[&[80, 87, 89], &[86, 88]]),
    ((13, 5), &[&[80, 87, 89], &[86, 88]]),
];

/// Classes of archs by SM number (`86`).
type Classes = &'static [&'static [u32]];

/// The archs that may share one cicc run under one toolkit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rule {
    classes: Classes,
}

impl Rule {
    /// The class an arch shares within, when the rule covers it.
    pub(crate) fn class(&self, arch: Arch) -> Option<usize> {
        if arch.variant != Variant::Plain {
            return None;
        }
        let sm = arch.cc.sm();
        self.classes.iter().position(|c| c.contains(&sm))
    }
}

/// nvcc flags after which the rule is not proven: debug and line information put source
/// positions into the PTX, and `-Xcicc`/`--dopt` reach cicc's code generation directly.
const UNPROVEN_FLAGS: &[&str] = &[
    "-G",
    "--device-debug",
    "-g",
    "--debug",
    "-lineinfo",
    "--generate-line-info",
    "-Xcicc",
    "--dopt",
    "-dopt",
];

/// The rule this build shares cicc runs by, when the switch, the toolkit, the nvcc flags and
/// whether a launcher wraps cicc allow it.
pub(crate) fn enabled(
    explicit: Option<bool>,
    env: &Env,
    tk: CudaVersion,
    nvcc_flags: &[String],
    cicc_launcher: bool,
) -> Result<Option<Rule>> {
    let on = match (explicit, env.var(VAR)) {
        (Some(on), _) => on,
        (None, None) => true,
        (None, Some(v)) if archbuild_config::is_off(&v) => false,
        (None, Some(v)) if archbuild_config::is_on(&v) => true,
        (None, Some(v)) => {
            return Err(Error::Config {
                what: "cicc sharing switch",
                origin: VAR.into(),
                value: v,
                hint: "use `off` (or `0`, `false`, `no`, `none`) to compile every target \
                       separately, `on` (or `1`, `true`, `yes`) or nothing to share cicc runs \
                       where the rule is proven"
                    .into(),
            })
        }
    };
    let proven = PROVEN
        .iter()
        .find(|(v, _)| *v == (tk.major(), tk.minor()))
        .map(|(_, classes)| Rule { classes });
    let plain_flags = !nvcc_flags.iter().any(|f| {
        let name = f.split('=').next().unwrap_or(f);
        UNPROVEN_FLAGS.contains(&name)
    });
    Ok(proven.filter(|_| on && plain_flags && !cicc_launcher))
}

/// The lead's PTX for `to`: its one `.target` line, which must name `from`, names `to`
/// instead; everything else is kept byte for byte. `None` when the PTX is not shaped so.
pub(crate) fn retarget(ptx: &[u8], from: Arch, to: Arch) -> Option<Vec<u8>> {
    let old = format!(".target sm_{}", from.sm_name());
    let new = format!(".target sm_{}", to.sm_name());
    let mut out = Vec::with_capacity(ptx.len() + 4);
    let mut found = 0;
    for line in ptx.split_inclusive(|&b| b == b'\n') {
        if line.starts_with(b".target") {
            found += 1;
            let rest = line.strip_prefix(old.as_bytes())?;
            // `.target sm_80` must not match `.target sm_800`; options follow a comma.
            if !matches!(
                rest.first(),
                None | Some(b'\n' | b'\r' | b',' | b' ' | b'\t')
            ) {
                return None;
            }
            out.extend_from_slice(new.as_bytes());
            out.extend_from_slice(rest);
        } else {
            out.extend_from_slice(line);
        }
    }
    (found == 1).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &[u8] = b"//\n// Generated by NVIDIA NVVM Compiler\n//\n\n.version 9.2\n\
        .target sm_80\n.address_size 64\n\n.visible .entry k()\n{\n\tret;\n}\n";

    #[test]
    fn retarget_rewrites_only_the_target_line() {
        let out = retarget(PTX, Arch::plain(8, 0), Arch::plain(8, 6)).unwrap();
        let want = String::from_utf8_lossy(PTX).replace(".target sm_80", ".target sm_86");
        assert_eq!(String::from_utf8(out).unwrap(), want);
        // Debug PTX keeps its options.
        let dbg = b".version 9.2\n.target sm_80, debug\n.address_size 64\n";
        let out = retarget(dbg, Arch::plain(8, 0), Arch::plain(8, 9)).unwrap();
        assert_eq!(
            out,
            b".version 9.2\n.target sm_89, debug\n.address_size 64\n"
        );
    }

    #[test]
    fn retarget_refuses_ptx_it_does_not_understand() {
        let a80 = Arch::plain(8, 0);
        let a86 = Arch::plain(8, 6);
        // Not the lead's arch, a longer arch name, no target, two targets.
        assert_eq!(retarget(PTX, Arch::plain(8, 9), a86), None);
        assert_eq!(retarget(b".target sm_800\n", a80, a86), None);
        assert_eq!(retarget(b".version 9.2\n", a80, a86), None);
        assert_eq!(retarget(b".target sm_80\n.target sm_80\n", a80, a86), None);
    }

    #[test]
    fn classes_are_plain_archs_the_study_proved() {
        for tk in [CudaVersion::new(13, 0), CudaVersion::new(13, 5)] {
            let none = Env::from_vars(Vec::<(&str, &str)>::new());
            let rule = enabled(None, &none, tk, &[], false).unwrap().unwrap();
            classes_of(rule);
        }
        for unstudied in [CudaVersion::new(12, 9), CudaVersion::new(13, 1)] {
            let none = Env::from_vars(Vec::<(&str, &str)>::new());
            assert!(enabled(None, &none, unstudied, &[], false)
                .unwrap()
                .is_none());
        }
    }

    fn classes_of(rule: Rule) {
        let class = |major, minor| rule.class(Arch::plain(major, minor));
        assert_eq!(class(8, 0), class(8, 9));
        assert_eq!(class(8, 0), class(8, 7));
        assert_eq!(class(8, 6), class(8, 8));
        assert_ne!(class(8, 0), class(8, 6), "cicc tunes compute_86 apart");
        assert!(class(8, 0).is_some() && class(8, 6).is_some());
        for (major, minor) in [(7, 5), (9, 0), (10, 0), (10, 3), (12, 0), (12, 1)] {
            assert_eq!(class(major, minor), None, "{major}.{minor}");
        }
        let cc = Arch::plain(8, 0).cc;
        assert_eq!(rule.class(Arch::new(cc, Variant::Arch)), None);
    }

    #[test]
    fn the_switch_toolkit_and_flags_decide() {
        let s: &[String] = &[];
        let v13 = CudaVersion::new(13, 5);
        let none = Env::from_vars(Vec::<(&str, &str)>::new());
        assert!(enabled(None, &none, v13, s, false).unwrap().is_some());
        assert!(enabled(Some(false), &none, v13, s, false)
            .unwrap()
            .is_none());
        for off in ["off", "0", "false", "no", "none"] {
            let env = Env::from_vars([(VAR, off)]);
            assert!(
                enabled(None, &env, v13, s, false).unwrap().is_none(),
                "{off}"
            );
        }
        let bad = enabled(None, &Env::from_vars([(VAR, "sometimes")]), v13, s, false).unwrap_err();
        assert!(bad.to_string().contains(VAR), "{bad}");
        assert!(enabled(None, &none, CudaVersion::new(12, 4), s, false)
            .unwrap()
            .is_none());
        assert!(enabled(None, &none, v13, &["-lineinfo".to_string()], false)
            .unwrap()
            .is_none());
        assert!(
            enabled(None, &none, v13, s, true).unwrap().is_none(),
            "sccache hides the text"
        );
    }
}
