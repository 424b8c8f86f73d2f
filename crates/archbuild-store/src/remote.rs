//! The remote tier on Apache OpenDAL (the library sccache uses for the same job): one engine
//! per URL scheme, each operation bounded by the configured timeout. OpenDAL is asynchronous;
//! archbuild's compile workers are plain threads, so each call blocks on a private runtime,
//! from a scoped thread when the caller is itself inside a Tokio runtime (a program using the
//! loader may be).
//!
//! A Redis server is connected to once before the operator is made: Redis's client retries a
//! refused connection with backoff for about ten seconds before it reports it, while a plain
//! connect says at once that nothing listens, so the remote is given up for this process right
//! away (one warning; the build goes on locally).

use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use crate::config::RemoteConfig;
use crate::tier::Tier;

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
        listening(host, *port, config.timeout)?;
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

/// `Ok` once a TCP connection to `host:port` (any of its addresses) succeeds; `Err` saying why
/// none did (refused, unreachable, no such host, or `timeout` passed).
fn listening(host: &str, port: u16, timeout: Duration) -> Result<(), String> {
    let addrs = (host, port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {host}: {e}"))?;
    let mut last = None;
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(_) => return Ok(()),
            Err(e) => last = Some(e),
        }
    }
    Err(match last {
        Some(e) => format!("cannot connect to {host}:{port}: {e}"),
        None => format!("{host} has no address"),
    })
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
