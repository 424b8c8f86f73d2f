//! A remote cache's credentials against a real Redis started with `--requirepass`: the password
//! of the URL is sent (a second home is served from the first one's entries) and shown nowhere:
//! not in the report (its `Display`, `Debug` and JSON), its warnings, a build error, the
//! `Build`'s `Debug`, nor the `cargo:warning` lines of a build script (run in a child process of
//! this test binary, so its stdout can be read). A wrong password and a port with nothing
//! listening each cost one warning and a local build, at once (with a 30 s timeout set).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use archbuild::{config::Home, Build, BuildReport};
use archbuild_tests::servers::{free_port, resp, start_or_skip, Server};
use archbuild_tests::{fatbins, fixture_kernels};

/// The server's password: characters a URL must percent-encode, so decoding is exercised.
const PASSWORD: &str = "pa@ss/w0rd:S3cr%t";
/// [`PASSWORD`] as the URL's userinfo writes it.
const ENCODED: &str = "pa%40ss%2Fw0rd%3AS3cr%25t";
/// A wrong password, for the server above.
const WRONG: &str = "Wr0ng-Pw-9";
/// Pieces of the secrets above (decoded or encoded, whole or partly): none may be printed.
const PIECES: &[&str] = &["w0rd", "S3cr", "Wr0ng", "Pw-9"];

const ROLE: &str = "ARCHBUILD_TEST_ROLE";

/// One machine: a home (its own local cache) and a checkout with the fixture's kernels.
struct Machine {
    root: PathBuf,
    _temp: Option<tempfile::TempDir>,
}

impl Machine {
    fn new() -> Self {
        let temp = tempfile::tempdir().unwrap();
        let mut m = Self::at(temp.path());
        m._temp = Some(temp);
        m
    }

    fn at(root: &Path) -> Self {
        fixture_kernels(&root.join("repo/kernels"));
        Self {
            root: root.to_owned(),
            _temp: None,
        }
    }

    fn build(&self, url: &str) -> Build {
        let mut b = archbuild_tests::build();
        b.home(Home::at(self.root.join("home")))
            .manifest_dir(self.root.join("repo"))
            .out_dir(self.root.join("out"))
            .archs("8.6")
            .file("kernels/add.cu")
            .remote_cache(url)
            .quiet(true);
        b
    }

    fn compile(&self, url: &str) -> BuildReport {
        self.build(url)
            .try_compile("kernels")
            .unwrap_or_else(|e| panic!("{e}"))
    }
}

/// Panics if `text` (what `what` printed) holds any piece of a password.
fn assert_hidden(what: &str, text: &str) {
    for piece in PIECES {
        assert!(
            !text.contains(piece),
            "{what} shows a password ({piece}):\n{text}"
        );
    }
}

/// Every form of a report a user or tool sees: `Display`, `Debug`, JSON.
fn assert_report_hidden(r: &BuildReport) {
    assert_hidden("the report", &r.to_string());
    assert_hidden("the report's Debug", &format!("{r:?}"));
    assert_hidden("the report's JSON", &serde_json::to_string(r).unwrap());
}

/// One Redis reply line to `args` (after `AUTH password` when given).
fn redis_reply(port: u16, password: Option<&str>, args: &[&[u8]]) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut request = Vec::new();
    if let Some(pw) = password {
        request.extend(resp(&[b"AUTH", pw.as_bytes()]));
    }
    request.extend(resp(args));
    s.write_all(&request).unwrap();
    let lines = if password.is_some() { 2 } else { 1 };
    let mut got = Vec::new();
    let mut buf = [0u8; 256];
    while got.windows(2).filter(|w| w == b"\r\n").count() < lines {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "redis closed the connection");
        got.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&got).into_owned();
    text.lines().last().unwrap().to_owned()
}

#[test]
fn a_password_in_the_url_reaches_redis_and_is_shown_nowhere() {
    let Some(redis) = start_or_skip(|| Server::redis_with_password(PASSWORD)) else {
        return;
    };
    let port = redis.port();
    assert!(
        redis_reply(port, None, &[b"DBSIZE"]).starts_with("-NOAUTH"),
        "the server must refuse clients without the password"
    );
    let url = redis.url_with_userinfo(&format!(":{ENCODED}"));
    let shown = format!("redis://:***@127.0.0.1:{port}/0");

    let a = Machine::new();
    let ra = a.compile(&url);
    let sa = ra.remote.clone().unwrap();
    assert!(
        sa.writes > 0 && !sa.disabled && sa.warnings.is_empty(),
        "{sa:?}"
    );
    assert_eq!(sa.url, shown);
    assert_hidden("the Build's Debug", &format!("{:?}", a.build(&url)));
    let keys = redis_reply(port, Some(PASSWORD), &[b"DBSIZE"]);
    assert_eq!(keys, format!(":{}", sa.writes), "entries stored in Redis");

    let b = Machine::new();
    let rb = b.compile(&url);
    let sb = rb.remote.clone().unwrap();
    assert!(sb.hits > 0 && !sb.disabled, "{sb:?}");
    assert_eq!(rb.processes_started, 0, "the second home compiled: {rb}");
    assert!(fatbins(&ra) == fatbins(&rb), "fat binaries differ");

    // The ACL form, `user:password`, names Redis's default user.
    let c = Machine::new();
    let rc = c.compile(&redis.url_with_userinfo(&format!("default:{ENCODED}")));
    let sc = rc.remote.clone().unwrap();
    assert!(sc.hits > 0 && !sc.disabled, "{sc:?}");
    assert_eq!(sc.url, format!("redis://default:***@127.0.0.1:{port}/0"));

    // Or a URL without credentials and the password in its own variable.
    let d = Machine::new();
    let rd = d
        .build(&redis.url())
        .env(archbuild_tests::env_with([(
            "ARCHBUILD_REMOTE_CACHE_PASSWORD",
            PASSWORD,
        )]))
        .try_compile("kernels")
        .unwrap_or_else(|e| panic!("{e}"));
    let sd = rd.remote.clone().unwrap();
    assert!(sd.hits > 0 && !sd.disabled, "{sd:?}");

    for r in [&ra, &rb, &rc, &rd] {
        assert_report_hidden(r);
        let json: serde_json::Value = serde_json::to_value(r).unwrap();
        assert_eq!(
            json["remote"]["url"],
            r.remote.as_ref().unwrap().url.as_str()
        );
    }
    assert_eq!(sb.url, shown);
}

#[test]
fn a_bad_url_with_a_password_is_an_error_that_hides_it() {
    let m = Machine::new();
    for url in [
        format!("redis://:{ENCODED}@127.0.0.1:6379/not-a-db"),
        format!("webdav://:{ENCODED}@127.0.0.1/c"),
        format!("s3://key:{ENCODED}@bucket/prefix"),
    ] {
        let e = m
            .build(&url)
            .try_compile("kernels")
            .unwrap_err()
            .to_string();
        assert!(e.contains("***") && e.contains("hint"), "{url}: {e}");
        assert_hidden("the error", &e);
    }
}

/// The child's side of [`a_wrong_password_costs_one_redacted_cargo_warning`]: a build script's
/// build (`cargo:` lines on stdout) against the URL in `<dir>/url`, then its report as JSON.
fn child_build(dir: &Path) {
    let url = std::fs::read_to_string(dir.join("url")).unwrap();
    let m = Machine::at(dir);
    let started = Instant::now();
    let r = m
        .build(&url)
        .env(timeout_30s())
        .cargo_metadata(true)
        .try_compile("kernels")
        .unwrap_or_else(|e| panic!("the build failed with a wrong password: {e}"));
    println!("SECONDS {}", started.elapsed().as_secs_f64());
    println!("REPORT-JSON {}", serde_json::to_string(&r).unwrap());
    println!("REPORT {r}");
}

#[test]
fn a_wrong_password_costs_one_redacted_cargo_warning() {
    if let Some(dir) = std::env::var_os(ROLE) {
        return child_build(Path::new(&dir));
    }
    let Some(redis) = start_or_skip(|| Server::redis_with_password(PASSWORD)) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("url"),
        redis.url_with_userinfo(&format!(":{WRONG}")),
    )
    .unwrap();
    let name = format!(
        "{}::a_wrong_password_costs_one_redacted_cargo_warning",
        module_path!().split_once("::").map_or("", |(_, m)| m)
    );
    let out = Command::new(std::env::current_exe().unwrap())
        .args([name.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env(ROLE, dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stdout}{stderr}");
    // The refusal is taken at once, not after Redis's client retried it for seconds.
    let seconds: f64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("SECONDS "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(seconds < 10.0, "the build took {seconds} s");
    let shown = format!("redis://:***@127.0.0.1:{}/0", redis.port());
    let warnings: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("cargo::warning=") && l.contains("remote cache"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stdout}");
    assert!(warnings[0].contains(&shown), "{}", warnings[0]);
    let json = stdout
        .lines()
        .find_map(|l| l.strip_prefix("REPORT-JSON "))
        .unwrap_or_else(|| panic!("no report: {stdout}"));
    let r: serde_json::Value = serde_json::from_str(json).unwrap();
    let remote = &r["remote"];
    assert_eq!(remote["disabled"], true, "{remote}");
    assert_eq!(remote["writes"], 0, "{remote}");
    assert_eq!(remote["warnings"].as_array().unwrap().len(), 1, "{remote}");
    assert!(r["jobs_run"].as_u64().unwrap() > 0, "built locally: {r}");
    assert_hidden("the build script's stdout", &stdout);
    assert_hidden("the build script's stderr", &stderr);
}

/// The build's environment with `ARCHBUILD_REMOTE_CACHE_TIMEOUT=30`: waiting it out would show.
fn timeout_30s() -> archbuild::Env {
    archbuild_tests::env_with([("ARCHBUILD_REMOTE_CACHE_TIMEOUT", "30")])
}

#[test]
fn a_refused_connection_gives_up_at_once() {
    let port = free_port().unwrap();
    let url = format!("redis://:{ENCODED}@127.0.0.1:{port}/0");
    let m = Machine::new();
    let started = Instant::now();
    let r = m
        .build(&url)
        .env(timeout_30s())
        .try_compile("kernels")
        .unwrap_or_else(|e| panic!("the build failed with nothing listening: {e}"));
    let took = started.elapsed();
    // Not the 30 s timeout, nor Redis's client retrying for seconds: the build's own time.
    assert!(took < Duration::from_secs(10), "took {took:?}");
    let s = r.remote.clone().unwrap();
    assert!(s.disabled && s.warnings.len() == 1, "{s:?}");
    assert!(
        s.warnings[0].contains("refused") && s.warnings[0].contains(":***@"),
        "{}",
        s.warnings[0]
    );
    assert_report_hidden(&r);
    let plain_machine = Machine::new();
    let plain = plain_machine.compile("off");
    assert!(fatbins(&r) == fatbins(&plain), "fat binaries differ");
}
