//! A hello-world Rust Lambda on the same runtime crates as `ask`
//! (lambda_http on tokio), for comparing cold starts: `scripts/bench.sh`
//! builds it with the same profile and times it the same way.

use lambda_http::{Body, Error, Request, Response, service_fn};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    lambda_http::run(service_fn(|_: Request| async {
        Ok::<_, Error>(
            Response::builder()
                .header("content-type", "application/json")
                .body(Body::from(r#"{"hello":"world"}"#))
                .expect("a valid response"),
        )
    }))
    .await
}
