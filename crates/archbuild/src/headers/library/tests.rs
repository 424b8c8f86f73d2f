//! Header libraries: declarations, pins, content hashes and installs from a local wheel (pip
//! with `PIP_NO_INDEX` and `PIP_FIND_LINKS`, so nothing leaves the machine).

// Tests read the process environment on purpose (CI, PATH), outside any build.
#![allow(clippy::disallowed_methods)]

use super::*;
use std::process::Command;

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A wheel of `dist` `version` holding `files` (`(path, text)`) and its `.dist-info`, written
/// into `dir` with Python's zipfile; `None` (the test then skips) without Python.
pub(crate) fn wheel(dir: &Path, dist: &str, version: &str, files: &[(&str, &str)]) -> Option<()> {
    const SCRIPT: &str = r#"
import sys, zipfile
out, dist, version = sys.argv[1:4]
norm = dist.replace('-', '_')
info = f"{norm}-{version}.dist-info"
with zipfile.ZipFile(f"{out}/{norm}-{version}-py3-none-any.whl", "w") as z:
    names = []
    for pair in sys.argv[4:]:
        path, text = pair.split("=", 1)
        z.writestr(path, text); names.append(path)
    z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr(f"{info}/RECORD", "".join(f"{n},,\n" for n in names + [f"{info}/METADATA", f"{info}/WHEEL", f"{info}/RECORD"]))
"#;
    std::fs::create_dir_all(dir).unwrap();
    let status = Command::new("python3")
        .args(["-c", SCRIPT])
        .arg(dir)
        .args([dist, version])
        .args(files.iter().map(|(p, t)| format!("{p}={t}")))
        .status()
        .ok()?;
    assert!(status.success());
    Some(())
}

/// Says why a test cannot run here; in CI (`CI` set), where Python and git are installed, fails.
fn skip(why: &str) {
    assert!(std::env::var_os("CI").is_none(), "{why}");
    eprintln!("skipped: {why}");
}

fn offline_env(links: &Path) -> Env {
    Env::from_vars([
        ("PATH", std::env::var_os("PATH").unwrap_or_default()),
        ("PIP_NO_INDEX", "1".into()),
        ("PIP_FIND_LINKS", links.as_os_str().to_owned()),
    ])
}

#[test]
fn cargo_toml_forms_and_their_mistakes() {
    let dir = Path::new("/p");
    let parse = |text: &str| -> std::result::Result<HeaderLibrary, String> {
        let t: toml::Table = format!("x = {text}").parse().unwrap();
        from_toml("x", &t["x"], dir)
    };
    assert_eq!(
        parse("\"4.2.0\"").unwrap(),
        HeaderLibrary::pypi("x", "4.2.0")
    );
    let mut cutlass = HeaderLibrary::pypi("nvidia-cutlass", "4.2.0").sha256(&"a".repeat(64));
    cutlass.name = "x".into();
    assert_eq!(
        parse(&format!(
            "{{ pypi = \"nvidia-cutlass\", version = \"4.2.0\", sha256 = \"{}\" }}",
            "a".repeat(64)
        ))
        .unwrap(),
        cutlass
    );
    assert_eq!(
        parse(
            "{ path = \"third_party/c\", rev = \"abcdef12\", include = [\"include\", \"tools\"] }"
        )
        .unwrap(),
        HeaderLibrary::git("x", "/p/third_party/c", "abcdef12")
            .include("include")
            .include("tools")
    );
    let errors = [
        parse("3").unwrap_err(),
        parse("{ pypi = \"a\" }").unwrap_err(),
        parse("{ path = \"a\", version = \"1\" }").unwrap_err(),
        parse("{ version = \"1\", rev = \"abcdef12\", includes = \"x\" }").unwrap_err(),
        parse("{ }").unwrap_err(),
    ];
    insta::assert_snapshot!("header_declaration_mistakes", errors.join("\n"));
}

#[test]
fn a_directory_is_hashed_by_content_and_edits_change_it() {
    let tmp = tempfile::tempdir().unwrap();
    let home = Home::at(tmp.path().join("home"));
    let inc = tmp.path().join("lib/include");
    write(&inc.join("a/params.h"), "#define V 1\n");
    write(&inc.join("b.h"), "\n");
    let env = Env::from_vars([("PATH", "/nonexistent")]);
    let lib = HeaderLibrary::path("mine", &inc);
    let r = |l: &HeaderLibrary| {
        resolve_all(
            &[],
            std::slice::from_ref(l),
            tmp.path(),
            &env,
            &home,
            true,
            &mut |_| {},
        )
    };
    let first = r(&lib).unwrap();
    assert_eq!(first[0].dirs, std::slice::from_ref(&inc));
    assert_eq!(first[0].pin, "path");
    // Unchanged: the same content hash, served from the remembered fingerprint.
    assert_eq!(r(&lib).unwrap()[0].content, first[0].content);
    assert!(home.root().join("headers/local").is_dir());
    // An edit of the same size within the same second still changes the identity.
    write(&inc.join("a/params.h"), "#define V 2\n");
    let second = r(&lib).unwrap();
    assert_ne!(second[0].content, first[0].content);
    assert_ne!(second[0].key_value(), first[0].key_value());
    // A file added anywhere changes it too.
    write(&inc.join("c/new.h"), "\n");
    assert_ne!(r(&lib).unwrap()[0].content, second[0].content);
    // `include` picks directories inside it; a missing one names what is there.
    let err = r(&HeaderLibrary::path("mine", tmp.path().join("lib")).include("inc"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("include directory `inc` is not in") && err.contains("`include/`"),
        "{err}"
    );
    let err = r(&HeaderLibrary::path("mine", &inc).sha256(&"0".repeat(64)))
        .unwrap_err()
        .to_string();
    assert!(err.contains("remove `sha256`"), "{err}");
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[test]
fn a_git_pin_is_checked_against_head_with_or_without_git() {
    if Command::new("git").arg("--version").output().is_err() {
        skip("no git program to make a checkout with");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("cutlass");
    write(&repo.join("include/cute/x.hpp"), "\n");
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "one"]);
    let first = git(&repo, &["rev-parse", "HEAD"]);
    write(&repo.join("include/cute/x.hpp"), "// two\n");
    git(&repo, &["commit", "-q", "-am", "two"]);
    let second = git(&repo, &["rev-parse", "HEAD"]);
    let inc = repo.join("include");
    let home = Home::at(tmp.path().join("home"));
    let env = Env::from_vars([("PATH", "/nonexistent")]);
    let r = |rev: &str| {
        resolve_all(
            &[],
            &[HeaderLibrary::git("cutlass", &inc, rev)],
            tmp.path(),
            &env,
            &home,
            true,
            &mut |_| {},
        )
    };
    let ok = r(&second[..10]).unwrap();
    assert_eq!(ok[0].pin, format!("git:{}", &second[..10]));
    let err = r(&first).unwrap_err();
    assert!(matches!(err, Error::HeaderLibrary { .. }), "{err:?}");
    let msg = err
        .to_string()
        .replace(&tmp.path().display().to_string(), "[TMP]")
        .replace(&first, "[FIRST]")
        .replace(&second, "[SECOND]");
    insta::assert_snapshot!("header_git_pin_mismatch", msg);
    assert!(r("main")
        .unwrap_err()
        .to_string()
        .contains("not a commit hash"));
    // The files alone give the same answer: a ref, a packed ref, a detached HEAD.
    assert_eq!(read_head(&inc).unwrap(), second);
    git(&repo, &["pack-refs", "--all"]);
    assert_eq!(read_head(&inc).unwrap(), second);
    git(&repo, &["checkout", "-q", &first]);
    assert_eq!(read_head(&inc).unwrap(), first);
    let err = read_head(tmp.path()).unwrap_err();
    assert!(err.contains("no `.git`"), "{err}");
}

#[test]
fn a_wheel_is_installed_once_checked_and_tampering_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let links = tmp.path().join("wheels");
    let files = [("demo_headers/include/demo/params.h", "#define DEMO 1\n")];
    if wheel(&links, "demo-headers", "1.0.0", &files).is_none() {
        skip("no python3 to build a wheel with");
        return;
    }
    let home = Home::at(tmp.path().join("home"));
    let env = offline_env(&links);
    let lib = HeaderLibrary::pypi("demo-headers", "1.0.0").include("demo_headers/include");
    let mut events = Vec::new();
    let r = |l: &HeaderLibrary, events: &mut Vec<InstallEvent>| {
        resolve_all(
            &[],
            std::slice::from_ref(l),
            tmp.path(),
            &env,
            &home,
            true,
            &mut |e| events.push(e.clone()),
        )
    };
    let got = match r(&lib, &mut events) {
        Ok(g) => g,
        Err(Error::HeaderInstall { problem, .. }) if problem.contains("pip does not work") => {
            skip("python3 has no pip");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let dir = headers_dir_of(&home, "demo-headers-1.0.0");
    assert_eq!(got[0].dirs, [dir.join("demo_headers/include")]);
    assert_eq!(got[0].pin, "pypi:demo-headers==1.0.0");
    assert!(events
        .iter()
        .any(|e| matches!(e, InstallEvent::Installed { .. })));
    let listed = install::installed(&home);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].content, got[0].content);
    let wheel_sha = listed[0].wheel_sha256.clone();
    assert_eq!(wheel_sha.len(), 64);
    // Nothing left behind but the library and its lock.
    let mut names: Vec<String> = std::fs::read_dir(install::headers_dir(&home))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["demo-headers-1.0.0", "demo-headers-1.0.0.lock"]);

    // Installed: used as is, without pip (no index either), once its pin matches.
    events.clear();
    let pinned = lib.clone().sha256(&wheel_sha.to_uppercase());
    assert_eq!(r(&pinned, &mut events).unwrap(), got);
    assert!(
        events
            .iter()
            .all(|e| matches!(e, InstallEvent::Ready { .. })),
        "{events:?}"
    );
    let err = r(&lib.clone().sha256(&"0".repeat(64)), &mut events)
        .unwrap_err()
        .to_string();
    assert!(err.contains("pin the installed wheel's hash"), "{err}");
    // Touched but unchanged: still accepted.
    let header = dir.join("demo_headers/include/demo/params.h");
    let text = std::fs::read(&header).unwrap();
    std::fs::write(&header, &text).unwrap();
    assert_eq!(r(&lib, &mut events).unwrap(), got);
    // pip's record of the install names this machine's paths: not part of the content.
    let with_record = crate::headers::tree::hash_with(std::slice::from_ref(&dir), true).unwrap();
    assert_ne!(with_record.content, got[0].content);
    // A marker of the first rules (the record hashed too, no `tree`): checked by those once,
    // then rewritten by these; the library stays in use.
    let marker = dir.join(crate::headers::tree::MARKER);
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&marker).unwrap()).unwrap();
    json["content"] = with_record.content.clone().into();
    json.as_object_mut().unwrap().remove("tree");
    std::fs::write(&marker, json.to_string()).unwrap();
    assert_eq!(r(&lib, &mut events).unwrap(), got);
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&marker).unwrap()).unwrap();
    assert_eq!(json["tree"], crate::headers::tree::TREE_RULES);
    assert_eq!(json["content"], got[0].content.as_str());
    // Edited: refused, naming the fix.
    std::fs::write(&header, "#define DEMO 2\n").unwrap();
    let err = r(&lib, &mut events).unwrap_err();
    assert!(matches!(err, Error::HeaderLibrary { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("changed since archbuild installed") && msg.contains("rm -r"),
        "{msg}"
    );
    // A pinned wheel hash that the wheel does not have: nothing is installed.
    std::fs::remove_dir_all(&dir).unwrap();
    let err = r(&lib.clone().sha256(&"0".repeat(64)), &mut events)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&format!("the wheel's SHA-256 is {wheel_sha}")),
        "{err}"
    );
    assert!(!dir.exists());
    // An unknown package without `include`: the known ones and the wheel's layout.
    let err = r(&HeaderLibrary::pypi("demo-headers", "1.0.0"), &mut events)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("nvidia-cutlass, nvidia-cuda-cccl") && err.contains("`demo_headers/`"),
        "{err}"
    );
}

fn headers_dir_of(home: &Home, stem: &str) -> PathBuf {
    install::headers_dir(home).join(stem)
}

#[test]
fn bad_pins_are_refused_before_pip_runs() {
    let home = Home::at("/nonexistent-home");
    let env = Env::from_vars([("PATH", "/nonexistent")]);
    for (lib, want) in [
        (
            HeaderLibrary::pypi("nvidia-cutlass", ">=4"),
            "not an exact version",
        ),
        (
            HeaderLibrary::pypi("--index-url=x", "1"),
            "not a PyPI package name",
        ),
        (
            HeaderLibrary::pypi("nvidia-cutlass", "4.2.0").sha256("abc"),
            "64 hex digits",
        ),
        (
            HeaderLibrary::pypi("nvidia-cutlass", "4.2.0").include("../x"),
            "leaves the library",
        ),
    ] {
        let err = resolve_all(&[], &[lib], Path::new("/"), &env, &home, true, &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{err}");
    }
}
