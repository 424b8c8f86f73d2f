//! Real storage servers (Redis, WebDAV) started on 127.0.0.1 for integration tests.
//!
//! Each [`Server`] is a child process with its own free port and its own temp dir holding its
//! config, logs and data, so tests can run in parallel and leave nothing behind: dropping the
//! `Server` kills and reaps the process and then removes the temp dir. Tests that need a server
//! get it from [`start_or_skip`] (or check [`installed`] first), so a developer machine without
//! the program skips with a clear reason (naming the apt package) while CI, which installs the
//! packages, fails loudly instead.
//!
//! Processes are started from argument vectors, never through a shell, so paths need no quoting.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use tempfile::TempDir;

/// How often readiness is polled, and for how long at most.
const POLL: Duration = Duration::from_millis(50);
const READY_TIMEOUT: Duration = Duration::from_secs(10);
/// Attempts at starting a server: the free port is only free when we look, so another process
/// can take it before the server binds it; then we retry with a new port.
const ATTEMPTS: usize = 3;
/// Lines of each log file quoted in errors.
const LOG_TAIL_LINES: usize = 30;

/// nginx's dynamic module for PROPFIND/OPTIONS (Debian's `libnginx-mod-http-dav-ext`, pulled in
/// by `nginx-extras`). Loaded by absolute path because our config does not include
/// `/etc/nginx/modules-enabled/`, which would load every other installed module too.
const DAV_EXT_MODULE: &str = "/usr/lib/nginx/modules/ngx_http_dav_ext_module.so";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Redis,
    WebDav,
}

/// A server process started for one test, stopped (killed and reaped) on drop; its temp dir removed.
pub struct Server {
    /// `None` once killed, which makes [`Server::kill`] idempotent.
    child: Option<Child>,
    port: u16,
    kind: Kind,
    /// For WebDAV: the served root (inside `dir`).
    data: Option<PathBuf>,
    /// For Redis started with `--requirepass`: the password (readiness authenticates first).
    password: Option<String>,
    /// Declared last on purpose: fields drop in order, and `Drop::drop` kills the child before
    /// any field drops, so the directory is removed only once nothing writes to it.
    dir: TempDir,
}

impl Server {
    /// `redis-server` on 127.0.0.1 at a free port, no persistence (`--save "" --appendonly no`),
    /// its own temp dir.
    pub fn redis() -> Result<Server, String> {
        Self::redis_inner(None)
    }

    /// [`Server::redis`] that answers only clients that authenticate with `password`
    /// (`--requirepass`; anything else gets `NOAUTH`).
    pub fn redis_with_password(password: &str) -> Result<Server, String> {
        Self::redis_inner(Some(password))
    }

    fn redis_inner(password: Option<&str>) -> Result<Server, String> {
        let program = require("redis-server")?;
        start(Kind::Redis, password, |dir, port| {
            let mut cmd = Command::new(&program);
            cmd.arg("--port")
                .arg(port.to_string())
                .args(["--bind", "127.0.0.1"])
                // No RDB snapshots nor AOF: tests want a throwaway store, and a kill must not
                // race a background save into the temp dir being removed.
                .args(["--save", ""])
                .args(["--appendonly", "no"])
                .args(["--daemonize", "no"])
                .arg("--dir")
                .arg(dir)
                .arg("--logfile")
                .arg(dir.join("redis.log"));
            if let Some(pw) = password {
                cmd.arg("--requirepass").arg(pw);
            }
            Ok(cmd)
        })
    }

    /// A WebDAV server (nginx) on 127.0.0.1 at a free port serving an empty temp dir with PUT,
    /// DELETE, MKCOL, COPY, MOVE allowed, plus PROPFIND and OPTIONS when nginx's dav_ext module
    /// is installed.
    pub fn webdav() -> Result<Server, String> {
        let program = require("nginx")?;
        start(Kind::WebDav, None, |dir, port| {
            let data = dir.join("data");
            for sub in ["data", "body", "proxy", "fastcgi", "uwsgi", "scgi"] {
                let p = dir.join(sub);
                fs::create_dir_all(&p)
                    .map_err(|e| format!("cannot create {}: {e}", p.display()))?;
            }
            let conf = dir.join("nginx.conf");
            fs::write(&conf, nginx_config(dir, &data, port))
                .map_err(|e| format!("cannot write {}: {e}", conf.display()))?;
            let mut cmd = Command::new(&program);
            // `-p` and `-e` keep nginx away from /usr/share/nginx and /var/log/nginx even before
            // it has read the config (it opens the error log first).
            cmd.arg("-p")
                .arg(dir)
                .arg("-e")
                .arg(dir.join("error.log"))
                .arg("-c")
                .arg(&conf);
            Ok(cmd)
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `redis://127.0.0.1:PORT/0` or `webdav://127.0.0.1:PORT/` (the second one's path is the
    /// served root).
    pub fn url(&self) -> String {
        match self.kind {
            Kind::Redis => format!("redis://127.0.0.1:{}/0", self.port),
            Kind::WebDav => format!("webdav://127.0.0.1:{}/", self.port),
        }
    }

    /// [`Server::url`] with `userinfo@` before the host (`":pw"`, `"user:pw"`, encoded by the
    /// caller as a URL must be).
    pub fn url_with_userinfo(&self, userinfo: &str) -> String {
        self.url().replacen("://", &format!("://{userinfo}@"), 1)
    }

    /// For WebDAV: the directory on disk that the server serves (tests corrupt entries
    /// directly). For Redis: `None`.
    pub fn data_dir(&self) -> Option<&Path> {
        self.data.as_deref()
    }

    /// Kills the server now (tests simulate an outage mid-build); idempotent; drop still cleans
    /// up. Once this returns, the process is reaped and its port refuses connections.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            // An error here means it already exited, which is what we want anyway.
            let _ = child.kill();
            // Reap it, so no zombie is left and the listening socket is surely closed.
            let _ = child.wait();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("kind", &self.kind)
            .field("port", &self.port)
            .field("dir", &self.dir.path())
            .field("running", &self.child.is_some())
            .finish()
    }
}

/// Whether a test that needs `program` can run: outside CI a missing program skips the test
/// (printing `skipped: <reason>`); in CI, which installs the packages, it is a failure.
pub fn installed(program: &str) -> bool {
    match require(program) {
        Ok(_) => true,
        Err(why) => {
            skip(why);
            false
        }
    }
}

/// A server started by `start` ([`Server::redis`], [`Server::webdav`]), or `None` where it cannot
/// be: outside CI the test then skips (printing `skipped: <reason>`); in CI it fails.
pub fn start_or_skip(start: fn() -> Result<Server, String>) -> Option<Server> {
    match start() {
        Ok(s) => Some(s),
        Err(why) => {
            skip(why);
            None
        }
    }
}

/// Prints why a test skips, or panics with it in CI (`CI` set): the one way a test that cannot
/// run here says so, so a test that returns early in CI never passes having asserted nothing.
pub fn skip(why: impl Into<String>) {
    let why = why.into();
    if std::env::var_os("CI").is_some() {
        panic!("{why}");
    }
    println!("skipped: {why}");
}

/// Returns the path of `program`, or Err naming the missing program and the apt package that
/// provides it, so tests can print "skipped: REASON" outside CI.
pub fn require(program: &str) -> Result<PathBuf, String> {
    let package = match program {
        "redis-server" => "redis-server",
        "nginx" => "nginx-extras",
        "rclone" => "rclone",
        "bwrap" => "bubblewrap",
        other => other,
    };
    let candidate = Path::new(program);
    if candidate.components().count() > 1 {
        return if candidate.is_file() {
            Ok(candidate.to_path_buf())
        } else {
            Err(format!(
                "{program} is not installed (apt package `{package}`)"
            ))
        };
    }
    // Daemons live in sbin directories, which a non-root PATH often lacks.
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/usr/bin", "/sbin", "/bin"].map(PathBuf::from))
        .map(|d| d.join(program))
        .find(|p| is_executable(p))
        .ok_or_else(|| {
            format!("`{program}` not found in PATH or /usr/sbin (install apt package `{package}`)")
        })
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

/// The nginx config for [`Server::webdav`]: every path nginx writes is under `dir`.
fn nginx_config(dir: &Path, data: &Path, port: u16) -> String {
    let d = dir.display();
    // dav_ext is optional: without it PUT/GET/DELETE/MKCOL/COPY/MOVE still work.
    let (load_dav_ext, dav_ext_methods) = if Path::new(DAV_EXT_MODULE).is_file() {
        (
            format!("load_module {DAV_EXT_MODULE};\n"),
            "        dav_ext_methods PROPFIND OPTIONS;\n",
        )
    } else {
        (String::new(), "")
    };
    format!(
        "{load_dav_ext}\
# One process, no workers: as root, workers would switch to user nobody/www-data, which cannot
# write the root-owned temp dir; and killing a single process leaves no orphans behind.
daemon off;
master_process off;
error_log {d}/error.log info;
pid {d}/nginx.pid;
lock_file {d}/nginx.lock;
events {{
    worker_connections 256;
}}
http {{
    access_log off;
    default_type application/octet-stream;
    client_body_temp_path {d}/body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    # Build outputs can be large: no upload limit.
    client_max_body_size 0;
    server {{
        listen 127.0.0.1:{port};
        root {data};
        dav_methods PUT DELETE MKCOL COPY MOVE;
{dav_ext_methods}\
        create_full_put_path on;
        dav_access user:rw group:rw all:r;
        autoindex on;
    }}
}}
",
        data = data.display(),
    )
}

/// Starts a server of `kind`: a fresh temp dir and free port per attempt, `command` builds the
/// argv, then waits until the server answers. Retries only when the port was taken meanwhile.
fn start(
    kind: Kind,
    password: Option<&str>,
    command: impl Fn(&Path, u16) -> Result<Command, String>,
) -> Result<Server, String> {
    let prefix = match kind {
        Kind::Redis => "archbuild-redis-",
        Kind::WebDav => "archbuild-webdav-",
    };
    let mut last_err = String::new();
    for _ in 0..ATTEMPTS {
        let dir = tempfile::Builder::new()
            .prefix(prefix)
            .tempdir()
            .map_err(|e| format!("cannot create a temp dir: {e}"))?;
        let port = free_port()?;
        let mut cmd = command(dir.path(), port)?;
        // Output goes to a file, not a pipe: nobody reads a pipe while the test runs, and a
        // full pipe would block the server.
        let out_path = dir.path().join("output.log");
        let out = File::create(&out_path)
            .map_err(|e| format!("cannot create {}: {e}", out_path.display()))?;
        let err = out
            .try_clone()
            .map_err(|e| format!("cannot dup {}: {e}", out_path.display()))?;
        cmd.current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        let child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
        let data = (kind == Kind::WebDav).then(|| dir.path().join("data"));
        let mut server = Server {
            child: Some(child),
            port,
            kind,
            data,
            password: password.map(str::to_owned),
            dir,
        };
        match wait_ready(&mut server) {
            Ok(()) => return Ok(server),
            Err(why) => {
                let logs = log_tail(server.dir.path());
                // Stop it before the temp dir (and the logs we just read) goes away.
                server.kill();
                last_err = format!("{} on port {port}: {why}\n{logs}", server_name(kind));
                if !logs.contains("already in use") {
                    break;
                }
            }
        }
    }
    Err(last_err)
}

fn server_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Redis => "redis-server",
        Kind::WebDav => "nginx (WebDAV)",
    }
}

/// A port that was free a moment ago: the OS picks it for a listener we then drop.
pub fn free_port() -> Result<u16, String> {
    let listener =
        TcpListener::bind("127.0.0.1:0").map_err(|e| format!("cannot bind 127.0.0.1:0: {e}"))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("cannot read the bound port: {e}"))
}

/// Polls until the server accepts connections (and, for Redis, answers PING), the process exits,
/// or [`READY_TIMEOUT`] passes.
fn wait_ready(server: &mut Server) -> Result<(), String> {
    let addr = SocketAddr::from(([127, 0, 0, 1], server.port));
    let deadline = Instant::now() + READY_TIMEOUT;
    loop {
        if let Some(child) = server.child.as_mut() {
            // An early exit is final (bad config, port taken): no point waiting out the timeout.
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!("exited before it was ready ({status})"));
            }
        }
        if let Ok(stream) = TcpStream::connect_timeout(&addr, POLL) {
            match server.kind {
                // Our nginx, not whatever else holds the port (a server another test started
                // on the same port a moment ago: then ours exits with "already in use", seen
                // above, and the next attempt takes another port).
                Kind::WebDav => {
                    if nginx_answers(stream) {
                        return Ok(());
                    }
                }
                Kind::Redis => {
                    if redis_pong(stream, server.password.as_deref()) {
                        return Ok(());
                    }
                }
            }
        }
        if Instant::now() >= deadline {
            return Err(format!("not ready after {READY_TIMEOUT:?}"));
        }
        thread::sleep(POLL);
    }
}

/// Whether nginx answers an HTTP request on the connection (its `Server` header names it).
fn nginx_answers(mut stream: TcpStream) -> bool {
    let timeout = Some(Duration::from_secs(1));
    let probe = b"OPTIONS / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if stream.set_read_timeout(timeout).is_err() || stream.write_all(probe).is_err() {
        return false;
    }
    let mut got = Vec::new();
    if stream.read_to_end(&mut got).is_err() && got.is_empty() {
        return false;
    }
    let text = String::from_utf8_lossy(&got).to_ascii_lowercase();
    text.starts_with("http/1.") && text.contains("\r\nserver: nginx")
}

/// Whether a Redis server answers `PING` with `+PONG` (it may answer `-LOADING` while starting),
/// after `AUTH password` when it has one.
fn redis_pong(mut stream: TcpStream, password: Option<&str>) -> bool {
    let timeout = Some(Duration::from_secs(1));
    let mut request = Vec::new();
    if let Some(pw) = password {
        request.extend_from_slice(&resp(&[b"AUTH", pw.as_bytes()]));
    }
    request.extend_from_slice(&resp(&[b"PING"]));
    if stream.set_read_timeout(timeout).is_err() || stream.write_all(&request).is_err() {
        return false;
    }
    let replies = if password.is_some() { 2 } else { 1 };
    let mut buf = [0u8; 64];
    let mut got = Vec::new();
    while got.windows(2).filter(|w| w == b"\r\n").count() < replies {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return false,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    let expected: &[u8] = if password.is_some() {
        b"+OK\r\n+PONG\r\n"
    } else {
        b"+PONG\r\n"
    };
    got.starts_with(expected)
}

/// One Redis command in the protocol's array form (any bytes in its arguments).
pub fn resp(args: &[&[u8]]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for a in args {
        out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// The last lines of every log file in `dir`, for error messages.
fn log_tail(dir: &Path) -> String {
    let mut out = String::new();
    for name in ["output.log", "redis.log", "error.log"] {
        let path = dir.join(name);
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        let tail = &lines[lines.len().saturating_sub(LOG_TAIL_LINES)..];
        if tail.is_empty() {
            continue;
        }
        out.push_str(&format!("--- {name} (last lines)\n"));
        for line in tail {
            out.push_str(line);
            out.push('\n');
        }
    }
    if out.is_empty() {
        out.push_str("(no server log output)\n");
    }
    out
}
