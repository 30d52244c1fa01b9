//! A real S3-protocol server on loopback for tests: moto's `moto_server`
//! (PyPI `moto[server]`, installed by `.ci/run`), started on a free port and
//! stopped when dropped. Plain HTTP helpers create buckets and put or get
//! objects without going through the code under test.

#![allow(dead_code)]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// moto checks that a request is signed, not the signature.
const AUTH: &str = "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00";

pub struct Moto {
    child: Child,
    pub port: u16,
}

impl Moto {
    /// Starts `moto_server` (or `$MOTO_SERVER`) on 127.0.0.1 and waits until
    /// it answers.
    pub fn start() -> Moto {
        let port = super::http::free_port();
        let exe = std::env::var("MOTO_SERVER").unwrap_or_else(|_| "moto_server".into());
        let child = Command::new(&exe)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start {exe}: {e}; install it with `pip install 'moto[server]'` (.ci/run does)")
            });
        let moto = Moto { child, port };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok((200, _)) = moto.try_request("GET", "/", &[]) {
                return moto;
            }
            assert!(
                Instant::now() < deadline,
                "moto_server did not answer on port {port}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// `http://127.0.0.1:PORT`
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Environment for an AWS SDK client pointed at this server.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT_URL_S3", self.endpoint()),
            ("AWS_ACCESS_KEY_ID", "test".into()),
            ("AWS_SECRET_ACCESS_KEY", "test".into()),
            ("AWS_REGION", "us-east-1".into()),
            ("AWS_EC2_METADATA_DISABLED", "true".into()),
            ("ASK_S3_FORCE_PATH_STYLE", "1".into()),
        ]
    }

    fn try_request(
        &self,
        method: &str,
        path: &str,
        body: &[u8],
    ) -> std::io::Result<(u16, Vec<u8>)> {
        let r = super::http::request(self.port, method, path, &[("Authorization", AUTH)], body)?;
        Ok((r.status, r.body))
    }

    /// Sends a request and returns status and body.
    pub fn request(&self, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
        self.try_request(method, path, body)
            .unwrap_or_else(|e| panic!("{method} {path} to moto: {e}"))
    }

    pub fn create_bucket(&self, bucket: &str) {
        let (status, body) = self.request("PUT", &format!("/{bucket}"), &[]);
        assert_eq!(
            status,
            200,
            "create bucket: {}",
            String::from_utf8_lossy(&body)
        );
    }

    pub fn put(&self, bucket: &str, key: &str, bytes: &[u8]) {
        let (status, body) = self.request("PUT", &format!("/{bucket}/{key}"), bytes);
        assert_eq!(
            status,
            200,
            "put object: {}",
            String::from_utf8_lossy(&body)
        );
    }

    pub fn get(&self, bucket: &str, key: &str) -> Vec<u8> {
        let (status, body) = self.request("GET", &format!("/{bucket}/{key}"), &[]);
        assert_eq!(
            status,
            200,
            "get object: {}",
            String::from_utf8_lossy(&body)
        );
        body
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
