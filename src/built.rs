//! Which runtime objects does the configuration describe? The checker of
//! bearer tokens and the model that writes summaries, built once from the
//! plain settings when the state is made; `config` builds none of them,
//! and `auth` and `generate` never read the configuration.

use crate::auth::{Auth, Mode};
use crate::config::{Config, GeneratorConfig};
use crate::generate::{Bedrock, Generator};

/// The checker the configuration describes; with no usable key set (a
/// URL not fetched yet) it refuses every credential, never falling open.
pub fn auth(c: &Config) -> Result<Auth, String> {
    if c.auth == Mode::Off {
        return Ok(Auth::off());
    }
    let jwks = c
        .auth_jwks
        .as_deref()
        .ok_or("the JWKS has not been fetched")?;
    Auth::new(
        c.auth,
        jwks,
        c.auth_issuer.clone(),
        c.auth_audience.clone(),
        c.auth_scope.clone(),
    )
}

/// The generator the configuration names, if it names a model; `None` is
/// the extractive summarizer alone.
pub fn generator(c: &Config) -> Result<Option<Box<dyn Generator>>, String> {
    match &c.generator {
        GeneratorConfig::Extractive => Ok(None),
        GeneratorConfig::Bedrock(b) => Ok(Some(Box::new(Bedrock::from_environment(b.clone())?))),
    }
}
