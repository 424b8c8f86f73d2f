//! Every user-facing error, snapshotted: each names the input, where it came from, what is
//! accepted and the fix, with a "did you mean" when a close spelling exists.

use archbuild_arch::{Arch, ArchList, ComputeCapability, Error, Policy, ResolveContext};

const ENV: &str = "ARCHBUILD_ARCHS";
const FLAG: &str = "--archs";
const MANIFEST: &str = "Cargo.toml [package.metadata.archbuild] archs";

fn err(input: &str, ctx: &ResolveContext) -> Error {
    match ArchList::parse(input, ctx) {
        Ok(list) => panic!("{input:?} parsed as {list}"),
        Err(e) => e,
    }
}

/// `(input, origin)` pairs that must fail without context facts.
const BAD_LISTS: &[(&str, &str)] = &[
    ("", ENV),
    (" ;, ", FLAG),
    ("8.6x", ENV),
    ("sm86", ENV),
    ("SM-90a", FLAG),
    ("compute86", MANIFEST),
    ("sm_8.6", ENV),
    ("Amper", ENV),
    ("hoper", FLAG),
    ("Ampere+PTX", ENV),
    ("8.6-ptx", ENV),
    ("7.5 8.6 banana", MANIFEST),
    ("8", ENV),
    ("nativ", ENV),
    ("allmajor", ENV),
    ("8.5", ENV),
    ("sm_85+PTX", FLAG),
    ("14.0", ENV),
    ("8.6a", ENV),
    ("sm_86a", FLAG),
    ("9.0f", ENV),
    ("native", ENV),
    ("all", MANIFEST),
    ("All-Major", FLAG),
];

#[test]
fn arch_list_errors() {
    let mut text = String::new();
    for (input, origin) in BAD_LISTS {
        let e = err(input, &ResolveContext::new(origin));
        let msg = e.to_string();
        assert!(msg.contains(origin), "{input:?}: origin missing in {msg}");
        let first_bad = input.split([';', ',', ' ']).find(|t| {
            !t.trim().is_empty() && ArchList::parse(t, &ResolveContext::new("x")).is_err()
        });
        if let Some(tok) = first_bad {
            assert!(
                msg.contains(&format!("`{tok}`"))
                    || msg.contains(&format!("`{}`", tok.to_ascii_lowercase())),
                "{input:?}: input missing in {msg}"
            );
        }
        assert!(!msg.contains("\n"), "one line: {msg}");
        text.push_str(&format!("{input:?} from {origin}:\n  {msg}\n"));
    }
    insta::assert_snapshot!("arch_list_errors", text);
}

#[test]
fn suggestions_are_structured_and_parse() {
    let cases = [
        ("Amper", "Ampere"),
        ("8.6x", "8.6"),
        ("sm86", "sm_86"),
        ("8.5", "8.6"),
        ("sm_85+PTX", "sm_86+PTX"),
    ];
    for (input, want) in cases {
        let suggestion = match err(input, &ResolveContext::new(ENV)) {
            Error::UnknownArch { suggestion, .. }
            | Error::UnknownComputeCapability { suggestion, .. } => suggestion,
            other => panic!("{input}: {other:?}"),
        };
        assert_eq!(suggestion.as_deref(), Some(want), "{input}");
        // Following the suggestion gets past the error.
        assert!(
            ArchList::parse(want, &ResolveContext::new(ENV)).is_ok(),
            "{want}"
        );
    }
}

#[test]
fn context_errors_need_the_missing_fact() {
    let none: [ComputeCapability; 0] = [];
    let e = err("native", &ResolveContext::new(ENV).with_devices(&none));
    assert!(matches!(e, Error::NoVisibleDevices { .. }));
    let empty: [Arch; 0] = [];
    let e = err("all", &ResolveContext::new(ENV).with_toolkit(&empty));
    assert!(matches!(e, Error::NoToolkitList { ref word, .. } if word == "all"));
    // The first bad entry is reported even after good ones.
    let e = err("7.5 8.6 8.9+PTX Amper", &ResolveContext::new(ENV));
    assert!(matches!(e, Error::UnknownArch { ref input, .. } if input == "Amper"));
}

#[test]
fn policy_errors() {
    let mut text = String::new();
    for input in ["prefer-cubn", "ptx", "fast", ""] {
        let e = input.parse::<Policy>().unwrap_err();
        let msg = e.to_string();
        let shown = if input.is_empty() {
            "(empty)".to_string()
        } else {
            format!("`{input}`")
        };
        assert!(
            msg.contains(&shown) && msg.contains("prefer-cubin"),
            "{msg}"
        );
        text.push_str(&format!("{input:?}:\n  {msg}\n"));
    }
    insta::assert_snapshot!("policy_errors", text);
}

#[test]
fn simulated_gpu_errors() {
    let mut text = String::new();
    for (input, origin) in [
        ("8.6x", "ARCHBUILD_SIMULATED_GPUS"),
        ("7.5,eight@13000", "ARCHBUILD_SIMULATED_GPUS"),
        ("8.6@13", "--fleet"),
        ("9.0@thirteen", "ARCHBUILD_SIMULATED_GPUS"),
    ] {
        let e = archbuild_arch::SimulatedGpus::parse(input, origin).unwrap_err();
        assert!(matches!(e, Error::SimulatedGpus { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(
            msg.contains(origin) && msg.contains(&format!("`{input}`")),
            "{msg}"
        );
        assert!(!msg.contains('\n'), "one line: {msg}");
        text.push_str(&format!("{input:?} from {origin}:\n  {msg}\n"));
    }
    insta::assert_snapshot!("simulated_gpu_errors", text);
}
