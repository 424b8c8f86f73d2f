//! `--remote-cache` with a password, against a Redis started with `--requirepass`: the CLI's
//! note, its warning and its JSON report show the URL redacted (`redis://:***@…`), whether the
//! password is right (entries shared between two caches) or wrong (one warning, a local build).

use archbuild_tests::servers::{start_or_skip, Server};

use crate::support::{cli, fixture_source, run, scratch};

const PASSWORD: &str = "Cl1-Secret-pw";

#[test]
fn the_cli_shows_a_remote_cache_redacted_in_notes_warnings_and_json() {
    let Some(redis) = start_or_skip(|| Server::redis_with_password(PASSWORD)) else {
        return;
    };
    let dir = scratch();
    let shown = format!("redis://:***@127.0.0.1:{}/0", redis.port());
    let compile = |cache: &str, password: &str, format: &str| {
        let mut c = cli();
        c.env("ARCHBUILD_CACHE_DIR", dir.path().join(cache))
            .arg("compile")
            .arg(fixture_source("kernels.cu"))
            .args(["--archs", "8.0", "--message-format", format])
            .arg("--remote-cache")
            .arg(redis.url_with_userinfo(&format!(":{password}")))
            .arg("-o")
            .arg(dir.path().join(format!("{cache}.fatbin")));
        let (code, stdout, stderr) = run(&mut c);
        assert_eq!(code, 0, "{stdout}{stderr}");
        for secret in ["Secret", "Wrong-pw"] {
            assert!(
                !stdout.contains(secret) && !stderr.contains(secret),
                "the password is printed:\n{stdout}{stderr}"
            );
        }
        (stdout, stderr)
    };

    let (stdout, _) = compile("a", PASSWORD, "json");
    let report: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(report["reason"], "compile-finished", "{stdout}");
    assert_eq!(report["remote"]["url"], shown.as_str(), "{report}");
    assert!(report["remote"]["writes"].as_u64().unwrap() > 0, "{report}");

    // A second cache is served from the first one's entries.
    let (_, stderr) = compile("b", PASSWORD, "human");
    let note = format!("note: remote cache {shown} (read-write): ");
    let note = stderr.lines().find(|l| l.starts_with(&note));
    assert!(note.is_some_and(|n| !n.contains(": 0 hit(s)")), "{stderr}");
    assert!(stderr.contains("0 nvcc/ptxas process(es)"), "{stderr}");

    let (_, stderr) = compile("c", "Wrong-pw", "human");
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning:") && l.contains("remote cache"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains(&shown), "{stderr}");
}
