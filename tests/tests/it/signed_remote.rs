//! Signed remote entries against a real Redis on 127.0.0.1: "CI" holds the ed25519 secret key
//! and writes signed entries; someone with write access to Redis but not the key then plants
//! entries a checksum alone would accept (a valid key and XXH3 with another cubin's payload, and
//! a signed entry whose payload was swapped under its signature). A "developer" holding the
//! public key alone refuses both (one warning each), compiles them again, uploads nothing
//! (Redis is unchanged, the planted entries too) and gets the bytes of a cache-off build. The
//! JIT cache's remote tier (simulated driver, as in `shared_jit_cache`) refuses an unsigned
//! entry the same way and serves the signed one. No key is printed anywhere.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::time::Duration;

use archbuild::{
    config::{Home, RemoteMode},
    Build, BuildReport,
};
use archbuild_arch::CudaVersion;
use archbuild_config::{Env, PUBLIC_KEY_VAR, SIGNING_KEY_VAR};
use archbuild_runtime::jit::JitCache;
use archbuild_runtime::sim::SimDriver;
use archbuild_runtime::{CacheStatus, FatBinary, LoadPath, Loader};
use archbuild_store::{entry, Key};
use archbuild_tests::servers::{resp, start_or_skip, Server};
use archbuild_tests::{fatbins, fixture_kernels};

/// A throwaway ed25519 pair made for this test (`openssl genpkey -algorithm ed25519`, then
/// `openssl pkey -pubout`); the public key is also given raw, in base64.
const SECRET_PEM: &str = "-----BEGIN PRIVATE KEY-----\n\
    MC4CAQAwBQYDK2VwBCIEIMk2XaEUpRgNQ0GsEKunIxLUWEjcSUhMUfZGXFTG3Wc1\n\
    -----END PRIVATE KEY-----\n";
const PUBLIC_PEM: &str = "-----BEGIN PUBLIC KEY-----\n\
    MCowBQYDK2VwAyEA3GUvvBm2znJdolviC5p2PcouYUzuUSadcdaFRaw54ko=\n\
    -----END PUBLIC KEY-----\n";
const PUBLIC_B64: &str = "3GUvvBm2znJdolviC5p2PcouYUzuUSadcdaFRaw54ko=";
/// Pieces of the keys above: none may be printed.
const PIECES: &[&str] = &["MC4CAQAwBQYDK2Vw", "XFTG3Wc1", "3GUvvBm2", "Raw54ko"];

/// One Redis reply, read whole.
#[derive(Debug, PartialEq)]
enum Reply {
    Line(String),
    Bulk(Option<Vec<u8>>),
    Array(Vec<Reply>),
}

fn read_reply(r: &mut impl BufRead) -> Reply {
    let mut line = String::new();
    r.read_line(&mut line)
        .expect("redis did not answer in time");
    let (kind, rest) = line.trim_end().split_at(1);
    let n = || rest.parse::<i64>().unwrap();
    match kind {
        "+" | ":" => Reply::Line(rest.to_owned()),
        "$" if n() < 0 => Reply::Bulk(None),
        "$" => {
            let mut bytes = vec![0; n() as usize + 2];
            r.read_exact(&mut bytes).unwrap();
            bytes.truncate(n() as usize);
            Reply::Bulk(Some(bytes))
        }
        "*" => Reply::Array((0..n()).map(|_| read_reply(r)).collect()),
        _ => panic!("redis: {line}"),
    }
}

/// One command to the Redis on `port`, with a bounded wait for its reply.
fn redis(port: u16, args: &[&[u8]]) -> Reply {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(&resp(args)).unwrap();
    read_reply(&mut BufReader::new(s))
}

/// Every key and value in Redis.
fn contents(port: u16) -> BTreeMap<String, Vec<u8>> {
    let Reply::Array(keys) = redis(port, &[b"KEYS", b"*"]) else {
        panic!("KEYS")
    };
    keys.into_iter()
        .map(|k| {
            let Reply::Bulk(Some(k)) = k else {
                panic!("{k:?}")
            };
            let Reply::Bulk(Some(v)) = redis(port, &[b"GET", &k]) else {
                panic!("GET")
            };
            (String::from_utf8(k).unwrap(), v)
        })
        .collect()
}

fn set(port: u16, key: &str, value: &[u8]) {
    assert_eq!(
        redis(port, &[b"SET", key.as_bytes(), value]),
        Reply::Line("OK".into())
    );
}

/// The magic, key and payload of the entry a remote object starts with (signed or not).
fn parse(object: &[u8]) -> ([u8; 8], Key, Vec<u8>) {
    let len = u64::from_le_bytes(object[56..64].try_into().unwrap()) as usize;
    let payload = object[entry::HEADER..entry::HEADER + len].to_vec();
    let key = Key(object[8..40].try_into().unwrap());
    (object[..8].try_into().unwrap(), key, payload)
}

/// Panics if any of `texts` shows a piece of a key.
fn assert_hidden(texts: &[String]) {
    for (text, piece) in texts
        .iter()
        .flat_map(|t| PIECES.iter().map(move |p| (t, p)))
    {
        assert!(!text.contains(piece), "a key is shown ({piece}):\n{text}");
    }
}

fn report_texts(r: &BuildReport) -> Vec<String> {
    vec![
        r.to_string(),
        format!("{r:?}"),
        serde_json::to_string(r).unwrap(),
    ]
}

/// A machine: its own home (local cache) and checkout of the fixture's kernels.
struct Machine(tempfile::TempDir);

impl Machine {
    fn new() -> Self {
        let m = Self(tempfile::tempdir().unwrap());
        fixture_kernels(&m.repo().join("kernels"));
        m
    }

    fn repo(&self) -> PathBuf {
        self.0.path().join("repo")
    }

    fn build(&self, url: &str, key: (&str, &str), mode: RemoteMode) -> Build {
        let mut b = archbuild_tests::build();
        b.home(Home::at(self.0.path().join("home")))
            .manifest_dir(self.repo())
            .out_dir(self.0.path().join("out"))
            .archs("8.6")
            .files(["kernels/add.cu", "kernels/scale.cu"])
            .env(archbuild_tests::env_with([key]))
            .remote_cache(url)
            .remote_cache_mode(mode)
            .quiet(true);
        b
    }

    fn compile(&self, url: &str, key: (&str, &str), mode: RemoteMode) -> BuildReport {
        self.build(url, key, mode)
            .try_compile("kernels")
            .unwrap_or_else(|e| panic!("{e}"))
    }
}

#[test]
fn planted_entries_are_refused_a_public_key_writes_nothing_and_the_bytes_are_a_cache_off_builds() {
    let Some(server) = start_or_skip(Server::redis) else {
        return;
    };
    let (port, url) = (server.port(), server.url());

    let ci = Machine::new();
    let rc = ci.compile(&url, (SIGNING_KEY_VAR, SECRET_PEM), RemoteMode::ReadWrite);
    let sc = rc.remote.clone().unwrap();
    assert!(
        sc.writes > 0 && sc.warnings.is_empty() && !sc.disabled,
        "{sc:?}"
    );
    let stored = contents(port);
    let cubins: Vec<&String> = stored
        .keys()
        .filter(|k| k.rsplit('/').nth(1) == Some("cubin"))
        .collect();
    assert_eq!(cubins.len(), 2, "{:?}", stored.keys());

    // Someone who can write to Redis but holds no key swaps the two kernels' cubins (both
    // sm_86, so nothing downstream would notice): add's key with scale's cubin, a valid
    // checksum and no signature; scale's key with add's cubin under scale's own signature.
    let (magic, key, add) = parse(&stored[cubins[0]]);
    let (_, _, scale) = parse(&stored[cubins[1]]);
    set(port, cubins[0], &entry::encode(&magic, &key, &scale));
    let signed = &stored[cubins[1]];
    let (magic, key, payload) = parse(signed);
    let mut forged = entry::encode(&magic, &key, &add);
    forged.extend_from_slice(&signed[entry::HEADER + payload.len()..]);
    set(port, cubins[1], &forged);
    let planted = contents(port);

    // A developer: the public key alone, the mode left at read-write.
    let dev = Machine::new();
    let rd = dev.compile(&url, (PUBLIC_KEY_VAR, PUBLIC_B64), RemoteMode::ReadWrite);
    let sd = rd.remote.clone().unwrap();
    assert_eq!(
        (sd.rejected, sd.writes, sd.disabled),
        (2, 0, false),
        "{sd:?}"
    );
    assert!(sd.hits > 0, "the signed entries were served: {sd:?}");
    let warned = |what: &str, key: &str| {
        let name = key.rsplit('/').next().unwrap();
        sd.warnings
            .iter()
            .filter(|w| w.contains(what) && w.contains(name))
            .count()
    };
    assert_eq!(warned("unsigned entry", cubins[0]), 1, "{sd:?}");
    assert_eq!(warned("does not verify", cubins[1]), 1, "{sd:?}");
    let told = sd
        .warnings
        .iter()
        .filter(|w| w.contains("read-only on this machine"));
    assert_eq!(told.filter(|w| w.contains(&url)).count(), 1, "{sd:?}");
    assert_eq!(sd.warnings.len(), 3, "{sd:?}");
    assert_eq!(sd.mode, "read-only");
    assert_eq!(
        rd.jobs_run, 2,
        "only the refused cubins are compiled again: {rd}"
    );
    assert!(
        contents(port) == planted,
        "the public-key machine wrote to Redis"
    );

    let off = Machine::new();
    let ro = off
        .build("off", ("X", ""), RemoteMode::ReadWrite)
        .cache(false)
        .try_compile("kernels")
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(ro.jobs_run > 2, "{ro}");
    assert!(
        fatbins(&rd) == fatbins(&ro),
        "a planted entry reached a fat binary"
    );
    let mut texts = report_texts(&rc);
    texts.extend(report_texts(&rd));
    texts.push(format!(
        "{:?}",
        dev.build(&url, (PUBLIC_KEY_VAR, PUBLIC_PEM), RemoteMode::ReadWrite)
    ));
    texts.push(format!(
        "{:?}",
        ci.build(&url, (SIGNING_KEY_VAR, SECRET_PEM), RemoteMode::ReadWrite)
    ));
    assert_hidden(&texts);
}

#[test]
fn the_jit_caches_remote_tier_refuses_an_unsigned_entry_and_serves_the_signed_one() {
    let Some(server) = start_or_skip(Server::redis) else {
        return;
    };
    let (port, url) = (server.port(), server.url());
    let dir = tempfile::tempdir().unwrap();
    let fb = FatBinary::from_vec(archbuild_tests::ptx_only_fatbin(dir.path())).unwrap();

    // The runtime reads the keys itself, through the variables (`JitCache::from_vars`).
    let home = |name: &str, key: (&str, &str)| {
        let jit = dir.path().join(name);
        let vars = Env::from_vars([
            ("ARCHBUILD_JIT_CACHE", jit.to_str().unwrap()),
            ("ARCHBUILD_REMOTE_CACHE", url.as_str()),
            ("ARCHBUILD_REMOTE_CACHE_MODE", "read-only"),
            key,
        ]);
        JitCache::from_vars(&vars).unwrap().unwrap()
    };
    let driver = SimDriver::new(CudaVersion::new(13, 5)).with_gpu(9, 0);
    let load = |cache: &JitCache| {
        let loader = Loader::with_driver(&driver)
            .nvjitlink(None)
            .cache(Some(cache.clone()));
        loader.load(&fb, 0).unwrap().report
    };

    // Machine A signs (the mode variable is overridden: A writes).
    let a = {
        let jit = dir.path().join("a");
        let vars = Env::from_vars([
            ("ARCHBUILD_JIT_CACHE", jit.to_str().unwrap()),
            ("ARCHBUILD_REMOTE_CACHE", url.as_str()),
            (SIGNING_KEY_VAR, SECRET_PEM),
        ]);
        JitCache::from_vars(&vars).unwrap().unwrap()
    };
    let first = load(&a);
    assert_eq!(
        (first.path, first.cache),
        (LoadPath::DriverJit, CacheStatus::Stored)
    );
    assert_eq!(a.remote_stats().unwrap().writes, 1);
    let stored = contents(port);
    let (path, signed) = stored.iter().next().unwrap();
    assert_eq!(stored.len(), 1, "{:?}", stored.keys());

    // The same entry without its signature: valid key, checksum and payload, refused.
    let (magic, key, payload) = parse(signed);
    set(port, path, &entry::encode(&magic, &key, &payload));
    let b = home("b", (PUBLIC_KEY_VAR, PUBLIC_PEM));
    let second = load(&b);
    assert_eq!(second.path, LoadPath::DriverJit, "{second:?}");
    assert_eq!(driver.jit_count(), 2, "the unsigned entry was served");
    let s = b.remote_stats().unwrap();
    assert_eq!((s.hits, s.rejected, s.writes), (0, 1, 0), "{s:?}");
    assert_eq!(s.warnings.len(), 1, "{s:?}");
    assert!(s.warnings[0].contains("unsigned entry"), "{s:?}");

    // The signed entry back: a reader with the public key is served it.
    set(port, path, signed);
    let c = home("c", (PUBLIC_KEY_VAR, PUBLIC_B64));
    let third = load(&c);
    assert!(
        matches!(third.path, LoadPath::CachedJit(_)) && third.cache == CacheStatus::Hit,
        "{third:?}"
    );
    assert_eq!(driver.jit_count(), 2);
    let texts: Vec<String> = [&a, &b, &c]
        .iter()
        .map(|h| format!("{:?}", h.remote_stats()))
        .collect();
    assert_hidden(&texts);
}
