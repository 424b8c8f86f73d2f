//! Smoke tests for `archbuild_tests::servers`: the real Redis and WebDAV servers start, serve
//! data over plain sockets, and stop when killed. Protocols are spoken by hand (RESP, HTTP/1.1)
//! so these tests check the servers, not a client crate.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use archbuild_tests::servers::{installed, Server};

fn connect(port: u16) -> TcpStream {
    let stream = TcpStream::connect(("127.0.0.1", port))
        .unwrap_or_else(|e| panic!("connect to 127.0.0.1:{port}: {e}"));
    // A hung server must fail the test, not hang it.
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
}

fn assert_refused(port: u16) {
    let res = TcpStream::connect(("127.0.0.1", port));
    assert!(
        res.is_err(),
        "port {port} still accepts connections after kill()"
    );
}

/// Encodes a command as a RESP array of bulk strings.
fn resp_command(args: &[&[u8]]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for arg in args {
        out.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
        out.extend_from_slice(arg);
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// Reads one RESP reply: a status/error/integer line as-is, or a bulk string's payload.
fn resp_reply(reader: &mut BufReader<TcpStream>) -> Vec<u8> {
    let mut line = String::new();
    reader.read_line(&mut line).expect("read a RESP reply line");
    let line = line.trim_end_matches("\r\n");
    match line.strip_prefix('$') {
        Some(len) => {
            let len: usize = len
                .parse()
                .unwrap_or_else(|_| panic!("bad bulk length: {line:?}"));
            let mut payload = vec![0; len + 2];
            reader.read_exact(&mut payload).expect("read a bulk string");
            assert_eq!(&payload[len..], b"\r\n", "bulk string terminator");
            payload.truncate(len);
            payload
        }
        None => line.as_bytes().to_vec(),
    }
}

#[test]
fn redis_set_get_then_kill() {
    if !installed("redis-server") {
        return;
    }
    let mut server = Server::redis().unwrap_or_else(|e| panic!("start redis: {e}"));
    let port = server.port();
    assert_eq!(server.url(), format!("redis://127.0.0.1:{port}/0"));
    assert!(server.data_dir().is_none());

    let mut stream = connect(port);
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let value: &[u8] = b"hello \x00\xff world";
    stream
        .write_all(&resp_command(&[b"SET", b"smoke:key", value]))
        .unwrap();
    assert_eq!(resp_reply(&mut reader), b"+OK");
    stream
        .write_all(&resp_command(&[b"GET", b"smoke:key"]))
        .unwrap();
    assert_eq!(resp_reply(&mut reader), value);
    drop(reader);
    drop(stream);

    server.kill();
    assert_refused(port);
    // Idempotent.
    server.kill();
}

/// One HTTP/1.1 request with `Connection: close`; returns (status code, body).
fn http(port: u16, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
    let mut stream = connect(port);
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(&response)));
    let head = String::from_utf8_lossy(&response[..split]).into_owned();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line in {head:?}"));
    assert!(
        !head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "unexpected chunked response: {head}"
    );
    (status, response[split + 4..].to_vec())
}

#[test]
fn webdav_put_get_then_kill() {
    if !installed("nginx") {
        return;
    }
    let mut server = Server::webdav().unwrap_or_else(|e| panic!("start webdav: {e}"));
    let port = server.port();
    assert_eq!(server.url(), format!("webdav://127.0.0.1:{port}/"));
    let data = server
        .data_dir()
        .expect("webdav has a data dir")
        .to_path_buf();

    let body: &[u8] = b"entry bytes \x00\x01\x02\xff";
    let (status, _) = http(port, "PUT", "/a/b/entry", body);
    assert!(
        status == 201 || status == 204,
        "PUT /a/b/entry answered {status}"
    );
    let (status, got) = http(port, "GET", "/a/b/entry", b"");
    assert_eq!(status, 200);
    assert_eq!(got, body);
    assert_eq!(std::fs::read(data.join("a/b/entry")).unwrap(), body);

    server.kill();
    assert_refused(port);
    server.kill();
}
