//! Keys, key sets and tokens for the authentication tests, made here with
//! aws-lc-rs (no key material is hand-written).

#![allow(dead_code)]

use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::rsa::KeySize;
use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

/// The issuer and audience the tests configure.
pub const ISSUER: &str = "https://auth.example.com/";
pub const AUDIENCE: &str = "https://nlweb-ask.example.com";

/// A signing key with its public JWK.
pub struct TestKey {
    pub kid: String,
    pub alg: Algorithm,
    pub encoding: EncodingKey,
    pub jwk: Value,
}

fn b64url(bytes: &[u8]) -> String {
    crate::support::encoding::base64(bytes, true)
}

/// Reads one DER element at the start of `d`: (tag, content, rest).
fn der(d: &[u8]) -> (u8, &[u8], &[u8]) {
    let tag = d[0];
    let (len, head) = if d[1] < 0x80 {
        (d[1] as usize, 2)
    } else {
        let n = (d[1] & 0x7f) as usize;
        let len = d[2..2 + n].iter().fold(0usize, |a, b| a << 8 | *b as usize);
        (len, 2 + n)
    };
    (tag, &d[head..head + len], &d[head + len..])
}

/// The PKCS#1 `RSAPrivateKey` inside a PKCS#8 `PrivateKeyInfo`.
fn pkcs1_of_pkcs8(p8: &[u8]) -> Vec<u8> {
    let (_, info, _) = der(p8);
    let (_, _version, rest) = der(info);
    let (_, _alg, rest) = der(rest);
    let (tag, key, _) = der(rest);
    assert_eq!(tag, 0x04, "PrivateKeyInfo.privateKey is an OCTET STRING");
    key.to_vec()
}

/// A fresh RSA-2048 key (RS256).
pub fn rsa_key(kid: &str) -> TestKey {
    let kp = aws_lc_rs::rsa::KeyPair::generate(KeySize::Rsa2048).unwrap();
    let p8 = kp.as_der().unwrap();
    let public = kp.public_key();
    TestKey {
        kid: kid.into(),
        alg: Algorithm::RS256,
        encoding: EncodingKey::from_rsa_der(&pkcs1_of_pkcs8(p8.as_ref())),
        jwk: json!({
            "kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
            "n": b64url(public.modulus().big_endian_without_leading_zero()),
            "e": b64url(public.exponent().big_endian_without_leading_zero()),
        }),
    }
}

/// A fresh EC P-256 key (ES256).
pub fn ec_key(kid: &str) -> TestKey {
    let kp = EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING).unwrap();
    let p8 = kp.to_pkcs8v1().unwrap();
    let point = kp.public_key().as_ref().to_vec();
    assert_eq!(point.len(), 65, "uncompressed P-256 point");
    TestKey {
        kid: kid.into(),
        alg: Algorithm::ES256,
        encoding: EncodingKey::from_ec_der(p8.as_ref()),
        jwk: json!({
            "kty": "EC", "kid": kid, "use": "sig", "alg": "ES256", "crv": "P-256",
            "x": b64url(&point[1..33]), "y": b64url(&point[33..65]),
        }),
    }
}

/// The JWKS of `keys`.
pub fn jwks(keys: &[&TestKey]) -> String {
    json!({"keys": keys.iter().map(|k| k.jwk.clone()).collect::<Vec<_>>()}).to_string()
}

/// Seconds since the Unix epoch.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// Claims valid for an hour: issuer, audience, subject, `docs:read`.
pub fn claims(sub: &str) -> Value {
    json!({
        "iss": ISSUER, "aud": AUDIENCE, "sub": sub,
        "iat": now(), "exp": now() + 3600, "scope": "docs:read openid",
    })
}

/// `claims` signed by `key`, with its kid.
pub fn token(key: &TestKey, claims: &Value) -> String {
    let mut header = Header::new(key.alg);
    header.kid = Some(key.kid.clone());
    jsonwebtoken::encode(&header, claims, &key.encoding).unwrap()
}
