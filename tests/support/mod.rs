pub mod moto;
pub mod sse;
