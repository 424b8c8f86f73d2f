//! What a compile read and probed: the depfile, the clock and the inputs' states.

#[test]
fn the_clock_is_found_in_the_read_that_hashes_a_file_also_across_a_line_splice() {
    assert_eq!(
        clock_token(b"const char *d = __DATE__;\n"),
        Some("__DATE__")
    );
    assert_eq!(
        clock_token(b"#define T __TI\\\nME__\nint x;\n"),
        Some("__TIME__")
    );
    assert_eq!(clock_token(b"// no clock\n#define LONG a \\\n b\n"), None);
    assert_eq!(
        clock_token(b"int DATE = 1; // __DATE__\n"),
        None,
        "a comment names nothing"
    );
}

use super::*;

#[test]
fn parses_make_syntax() {
    let text =
        "out.ptx : a.cu \\\n    /usr/include/x.h \\\n    my\\ dir/h.cuh \\\n    common.cuh\n";
    let deps = parse_depfile(text, Path::new("/src"));
    assert_eq!(
        deps,
        [
            "/src/a.cu",
            "/usr/include/x.h",
            "/src/my dir/h.cuh",
            "/src/common.cuh"
        ]
        .map(PathBuf::from)
    );
}

fn roots(dir: &Path) -> Roots {
    Roots {
        located: String::new(),
        base: dir.join("pkg"),
        toolkit: dir.join("tk"),
    }
}

#[test]
fn portable_paths_round_trip() {
    let r = roots(Path::new("/x"));
    assert_eq!(r.portable(Path::new("k/a.cu")), "b:k/a.cu");
    assert_eq!(r.portable(Path::new("/x/pkg/k/../h.cuh")), "b:h.cuh");
    assert_eq!(r.portable(Path::new("/x/tk/include/c.h")), "t:include/c.h");
    assert_eq!(
        r.portable(Path::new("/usr/include/s.h")),
        "a:/usr/include/s.h"
    );
    for p in ["b:k/a.cu", "t:include/c.h", "a:/usr/include/s.h"] {
        assert_eq!(r.portable(&r.local(p).unwrap()), p);
    }
}

#[test]
fn has_include_names_are_found() {
    let text = "#if __has_include(\"tune.cuh\")\n#elif __has_include_next( <x/y.h> )\n\
                #endif\n#define H __has_include";
    assert_eq!(has_include_names(text), ["tune.cuh", "x/y.h"]);
}

#[test]
fn manifest_hits_only_on_identical_content_and_probes() {
    let dir = tempfile::tempdir().unwrap();
    let r = roots(dir.path());
    std::fs::create_dir_all(r.base.join("inc")).unwrap();
    let store = Store::new(dir.path().join("cache"));
    let src = r.base.join("a.cu");
    let h = r.base.join("inc/h.cuh");
    std::fs::write(
        &src,
        "#include \"h.cuh\"\n#if __has_include(\"opt.cuh\")\n#endif\n",
    )
    .unwrap();
    std::fs::write(&h, "one").unwrap();
    let mk = Key::of(b"manifest");
    let deps = vec![src.clone(), h.clone()];
    let incs = vec![PathBuf::from("inc")];
    let predicted = Seen::Predicted(crate::cache::observe::Unobserved::TurnedOff);
    let rec = inputs(&r, &deps, &predicted, &incs, &FileHashes::default(), "860").unwrap();
    assert_eq!(rec.arch_list.as_deref(), Some("860"));
    let result = Key::of(b"result");
    record(&store, &mk, rec, &result);
    let look = || lookup(&store, &mk, &r, &FileHashes::default(), "860", false);
    assert_eq!(look().hit(), Some((result, deps.clone())));
    // A header that would shadow inc/h.cuh, next to the source: a miss.
    std::fs::write(r.base.join("h.cuh"), "shadow").unwrap();
    assert_eq!(look(), Lookup::Changed(vec!["b:h.cuh".into()]));
    std::fs::remove_file(r.base.join("h.cuh")).unwrap();
    assert_eq!(look().hit(), Some((result, deps.clone())));
    // The file `__has_include` asks about appears: a miss.
    std::fs::write(r.base.join("inc/opt.cuh"), "").unwrap();
    assert_eq!(look(), Lookup::Changed(vec!["b:inc/opt.cuh".into()]));
    std::fs::remove_file(r.base.join("inc/opt.cuh")).unwrap();
    // The same files, with the toolkit or a header library lying elsewhere: the text names
    // them, so direct mode leaves the job to preprocessor mode.
    let elsewhere = Roots {
        located: "/elsewhere/toolkit".into(),
        ..r.clone()
    };
    assert_eq!(
        lookup(
            &store,
            &mk,
            &elsewhere,
            &FileHashes::default(),
            "860",
            false
        ),
        Lookup::Changed(vec!["where the toolkit or a header library lies".into()])
    );
    std::fs::write(&h, "two").unwrap();
    assert_eq!(
        look(),
        Lookup::Changed(vec!["b:inc/h.cuh".into()]),
        "the changed input is named"
    );
    assert_eq!(
        lookup(
            &store,
            &Key::of(b"other"),
            &r,
            &FileHashes::default(),
            "860",
            false
        ),
        Lookup::Unknown
    );
}
