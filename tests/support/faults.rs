//! A small fault-injecting TCP proxy on loopback, in front of a real
//! S3-protocol server (moto): each connection is served by the fault the
//! proxy was started with.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// What the proxy does to a connection.
#[derive(Clone, Copy, Debug)]
pub enum Fault {
    /// Forwards both ways.
    None,
    /// Forwards the request, then the first `n` bytes of the answer, then
    /// resets the connection.
    ResetAfter(usize),
    /// Reads the request and never answers.
    Stall,
    /// Answers the first `n` connections `503 SlowDown`, then forwards.
    SlowDownFirst(usize),
    /// Answers every request `403 InvalidAccessKeyId`.
    Forbidden,
}

/// A running proxy (its threads end with the test process).
pub struct Proxy {
    pub port: u16,
    /// Connections accepted.
    pub connections: Arc<AtomicUsize>,
}

fn read_request(c: &mut TcpStream) -> Vec<u8> {
    // Enough for a GetObject: headers only, no body.
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        match c.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    buf
}

fn s3_error(c: &mut TcpStream, status: &str, code: &str, message: &str) {
    let body = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code><Message>{message}</Message><RequestId>FAULT</RequestId></Error>"
    );
    let _ = write!(
        c,
        "HTTP/1.1 {status}\r\ncontent-type: application/xml\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = c.flush();
}

fn pipe(mut from: TcpStream, mut to: TcpStream, limit: Option<usize>) {
    let mut sent = 0usize;
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let n = match limit {
            Some(l) if sent + n >= l => {
                let _ = to.write_all(&buf[..l - sent]);
                // An RST, not a FIN: close with a zero linger.
                let _ = socket_reset(&to);
                return;
            }
            _ => n,
        };
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
        sent += n;
    }
    let _ = to.shutdown(Shutdown::Write);
}

fn socket_reset(s: &TcpStream) -> std::io::Result<()> {
    socket2::SockRef::from(s).set_linger(Some(Duration::ZERO))?;
    s.shutdown(Shutdown::Both)
}

/// Starts a proxy to `upstream` (a loopback port) with `fault`.
pub fn start(upstream: u16, fault: Fault) -> Proxy {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connections = Arc::new(AtomicUsize::new(0));
    let count = connections.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut client) = conn else { continue };
            let n = count.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || match fault {
                Fault::Stall => {
                    let _ = read_request(&mut client);
                    std::thread::sleep(Duration::from_secs(60));
                }
                Fault::Forbidden => {
                    let _ = read_request(&mut client);
                    s3_error(
                        &mut client,
                        "403 Forbidden",
                        "InvalidAccessKeyId",
                        "The AWS Access Key Id you provided does not exist in our records.",
                    );
                }
                Fault::SlowDownFirst(k) if n < k => {
                    let _ = read_request(&mut client);
                    s3_error(
                        &mut client,
                        "503 Slow Down",
                        "SlowDown",
                        "Please reduce your request rate.",
                    );
                }
                _ => {
                    let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
                        return;
                    };
                    let limit = match fault {
                        Fault::ResetAfter(b) => Some(b),
                        _ => None,
                    };
                    let (c2, s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                    std::thread::spawn(move || pipe(c2, s2, None));
                    pipe(server, client, limit);
                }
            });
        }
    });
    Proxy { port, connections }
}
