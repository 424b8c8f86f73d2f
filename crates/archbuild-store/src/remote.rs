//! The remote tier on Apache OpenDAL (the library sccache uses for the same job): one engine
//! per URL scheme, each operation bounded by the configured timeout. OpenDAL is asynchronous;
//! archbuild's compile workers are plain threads, so each call blocks on a private runtime,
//! from a scoped thread when the caller is itself inside a Tokio runtime (a program using the
//! loader may be).
//!
//! A Redis server is connected to once before the operator is made: Redis's client retries a
//! refused connection, and a wrong password, with backoff for about ten seconds before it
//! reports it, while a plain connect (and, on `redis://`, an `AUTH` on it) says at once that
//! nothing listens or the password is wrong, so the remote is given up for this process right
//! away (one warning; the build goes on locally).

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use crate::tier::Tier;
use archbuild_config::RemoteConfig;

/// An OpenDAL operator with its runtime.
pub(crate) struct OpendalTier {
    op: opendal::Operator,
    rt: tokio::runtime::Runtime,
    timeout: Duration,
}

impl std::fmt::Debug for OpendalTier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpendalTier")
            .field("scheme", &self.op.info().scheme())
            .finish_non_exhaustive()
    }
}

pub(crate) fn open(config: &RemoteConfig) -> Result<Box<dyn Tier>, String> {
    let e = config.endpoint().map_err(|e| e.to_string())?;
    if let Some((host, port)) = &e.address {
        let mut stream = listening(host, *port, config.timeout)?;
        let plain = e
            .option("endpoint")
            .is_some_and(|v| v.to_ascii_lowercase().starts_with("redis://"));
        if let (true, Some(password)) = (plain, e.option("password")) {
            refused_credentials(&mut stream, e.option("username"), password, config.timeout)?;
        }
    }
    opendal::install_default();
    let op = opendal::Operator::via_iter(e.scheme, e.options).map_err(|e| e.to_string())?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .thread_name("archbuild-remote")
        .build()
        .map_err(|e| format!("cannot start the remote cache's I/O runtime: {e}"))?;
    Ok(Box::new(OpendalTier {
        op,
        rt,
        timeout: config.timeout,
    }))
}

/// A TCP connection to `host:port` (the first of its addresses that answers); `Err` saying why
/// none did (refused, unreachable, no such host, or `timeout` passed).
fn listening(host: &str, port: u16, timeout: Duration) -> Result<TcpStream, String> {
    let addrs = (host, port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {host}: {e}"))?;
    let mut last = None;
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(stream) => return Ok(stream),
            Err(e) => last = Some(e),
        }
    }
    Err(match last {
        Some(e) => format!("cannot connect to {host}:{port}: {e}"),
        None => format!("{host} has no address"),
    })
}

/// `Err` when the Redis server on `stream` answers `AUTH` with a definite refusal (`WRONGPASS`,
/// or `invalid password` from servers older than 6); any other answer, or none, is left to
/// Redis's client. The command is the client's own: `AUTH [user] password`.
fn refused_credentials(
    stream: &mut TcpStream,
    username: Option<&str>,
    password: &str,
    timeout: Duration,
) -> Result<(), String> {
    let mut args: Vec<&[u8]> = vec![b"AUTH"];
    args.extend(username.map(str::as_bytes));
    args.push(password.as_bytes());
    let mut request = format!("*{}\r\n", args.len()).into_bytes();
    for a in args {
        request.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        request.extend_from_slice(a);
        request.extend_from_slice(b"\r\n");
    }
    let sent = stream
        .set_read_timeout(Some(timeout))
        .and_then(|()| stream.set_write_timeout(Some(timeout)))
        .and_then(|()| stream.write_all(&request));
    if sent.is_err() {
        return Ok(());
    }
    let mut reply = Vec::new();
    let mut buf = [0u8; 256];
    while !reply.ends_with(b"\r\n") && reply.len() < 4096 {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return Ok(()),
            Ok(n) => reply.extend_from_slice(&buf[..n]),
        }
    }
    let reply = String::from_utf8_lossy(&reply);
    let line = reply.trim_end();
    if line.starts_with("-WRONGPASS") || line.starts_with("-ERR invalid password") {
        return Err(format!(
            "the server refused the user name and password: {}",
            &line[1..]
        ));
    }
    Ok(())
}

impl OpendalTier {
    fn block<T: Send>(
        &self,
        what: &str,
        fut: impl std::future::Future<Output = opendal::Result<T>> + Send,
    ) -> Result<opendal::Result<T>, String> {
        let run = || {
            self.rt.block_on(async {
                tokio::time::timeout(self.timeout, fut)
                    .await
                    .map_err(|_| format!("{what} took longer than {:?}", self.timeout))
            })
        };
        if tokio::runtime::Handle::try_current().is_ok() {
            std::thread::scope(|s| s.spawn(run).join()).map_err(|_| format!("{what} panicked"))?
        } else {
            run()
        }
    }
}

impl Tier for OpendalTier {
    fn get(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        match self.block("a read", self.op.read(path))? {
            Ok(buf) => Ok(Some(buf.to_vec())),
            Err(e) if e.kind() == opendal::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e.to_string()),
        }
    }

    fn put(&self, path: &str, bytes: &[u8]) -> Result<(), String> {
        let bytes = bytes.to_vec();
        match self.block("a write", self.op.write(path, bytes))? {
            Ok(_) => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;
    use crate::key::Key;
    use crate::tier::Remote;

    #[test]
    fn a_port_with_nothing_listening_gives_the_remote_up_at_once() {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        for url in [
            format!("redis://:Hidden-pw1@127.0.0.1:{port}/0"),
            format!("webdav://u:Hidden-pw1@127.0.0.1:{port}/c"),
        ] {
            let config = RemoteConfig::new(&url, "test")
                .unwrap()
                .with_timeout(Duration::from_secs(30));
            let remote = Remote::open(config);
            let started = Instant::now();
            assert_eq!(remote.get(b"ARCHTEST", "ns", &Key::of(b"k")), None);
            remote.put_encoded(b"ARCHTEST", "ns", &Key::of(b"k"), b"x");
            let took = started.elapsed();
            let s = remote.stats();
            assert!(s.disabled && s.warnings.len() == 1, "{url}: {s:?}");
            assert!(!format!("{s:?}").contains("Hidden-pw1"), "{s:?}");
            // Redis's client alone retries for about ten seconds; a 30 s timeout is not waited.
            assert!(took < Duration::from_secs(5), "{url}: took {took:?}");
        }
    }
}
