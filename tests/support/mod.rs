pub mod bedrock;
pub mod docs;
pub mod encoding;
pub mod event_table;
pub mod http;
pub mod moto;
pub mod scifact;
pub mod sse;
