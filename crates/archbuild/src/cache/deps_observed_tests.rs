//! The observed set: what the preprocessing was seen to open and look at, as deps records it.

use super::*;
use crate::cache::observe::Unobserved;

#[test]
fn an_observed_entry_holds_while_every_path_seen_is_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let r = Roots {
        located: String::new(),
        base: dir.path().join("pkg"),
        toolkit: dir.path().join("tk"),
    };
    let (src, h) = (r.base.join("a.cu"), r.base.join("inc/h.cuh"));
    std::fs::create_dir_all(r.base.join("inc")).unwrap();
    std::fs::write(&src, "#include \"h.cuh\"\n").unwrap();
    std::fs::write(&h, "one").unwrap();
    let tool = r.base.join("tool");
    std::fs::write(&tool, "v1").unwrap();
    let absent = r.base.join("h.cuh");
    let seen = Seen::Observed(
        [
            (src.clone(), true),
            (h.clone(), true),
            (absent.clone(), false),
            (r.base.join("inc"), false),
            (tool.clone(), false),
        ]
        .into_iter()
        .collect(),
    );
    let deps = vec![src.clone(), h.clone()];
    let rec = inputs(&r, &deps, &seen, &[], &FileHashes::default(), "860").unwrap();
    assert!(rec.observed);
    assert_eq!(
        rec.probes,
        [
            ("b:h.cuh".to_owned(), "-".to_owned()),
            ("b:inc".to_owned(), "d".to_owned()),
            ("b:tool".to_owned(), "f".to_owned()),
        ]
    );
    let store = Store::new(dir.path().join("cache"));
    let mk = Key::of(b"m");
    let result = Key::of(b"r");
    record(&store, &mk, rec, &result);
    let look = || lookup(&store, &mk, &r, &FileHashes::default(), "860", true);
    assert_eq!(look().hit(), Some((result, deps.clone())));
    // Only looked at: new content is no change, another kind of thing is.
    std::fs::write(&tool, "v2").unwrap();
    assert_eq!(look().hit(), Some((result, deps.clone())));
    std::fs::remove_file(&tool).unwrap();
    std::fs::create_dir(&tool).unwrap();
    assert_eq!(look(), Lookup::Changed(vec!["b:tool".into()]));
    std::fs::remove_dir(&tool).unwrap();
    std::fs::write(&tool, "v3").unwrap();
    // Absent then, present now.
    std::fs::write(&absent, "shadow").unwrap();
    assert_eq!(look(), Lookup::Changed(vec!["b:h.cuh".into()]));
    std::fs::remove_file(&absent).unwrap();
    assert_eq!(look().hit(), Some((result, deps.clone())));
    // Another arch list: the entry records it whatever the sources name.
    assert_eq!(
        lookup(&store, &mk, &r, &FileHashes::default(), "860,890", true),
        Lookup::Changed(vec!["__CUDA_ARCH_LIST__".into()])
    );
}

#[test]
fn a_build_that_observes_does_not_trust_a_predicted_entry() {
    let dir = tempfile::tempdir().unwrap();
    let r = Roots {
        located: String::new(),
        base: dir.path().join("pkg"),
        toolkit: dir.path().join("tk"),
    };
    std::fs::create_dir_all(&r.base).unwrap();
    let src = r.base.join("a.cu");
    std::fs::write(&src, "int x;\n").unwrap();
    let predicted = Seen::Predicted(Unobserved::NotSeen);
    let deps = vec![src.clone()];
    let rec = inputs(&r, &deps, &predicted, &[], &FileHashes::default(), "860").unwrap();
    let store = Store::new(dir.path().join("cache"));
    let (mk, result) = (Key::of(b"m"), Key::of(b"r"));
    record(&store, &mk, rec, &result);
    let hashes = FileHashes::default();
    assert_eq!(
        lookup(&store, &mk, &r, &hashes, "860", false).hit(),
        Some((result, deps))
    );
    assert_eq!(
        lookup(&store, &mk, &r, &hashes, "860", true),
        Lookup::Changed(vec![
            "the paths the compile looked at, which were predicted".into()
        ])
    );
}

#[test]
fn a_fifo_is_never_read() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.h");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // Reading would wait for a writer forever; the state is its kind.
    let hashes = FileHashes::default();
    assert_eq!(hashes.hash(&fifo), None);
    assert_eq!(hashes.content_state(&fifo), "o");
}
