pub mod docs;
pub mod event_table;
pub mod http;
pub mod moto;
pub mod scifact;
pub mod sse;
