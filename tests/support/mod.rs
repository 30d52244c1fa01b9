pub mod docs;
pub mod http;
pub mod moto;
pub mod sse;
