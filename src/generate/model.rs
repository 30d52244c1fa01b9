//! What a model is given (the prompt's parts) and what it gives back, and
//! the interface every model implements.

use std::future::Future;
use std::pin::Pin;

use crate::protocol::response::Fallback;

/// Characters of each section's text put in a prompt.
pub const SOURCE_CHARS: usize = 3_000;

/// One ranked section, as a model sees it.
#[derive(Clone, Debug)]
pub struct Source<'a> {
    /// Page title and section heading.
    pub name: &'a str,
    /// Where it is.
    pub url: &'a str,
    /// Its text (cut to [`SOURCE_CHARS`] in the prompt).
    pub text: &'a str,
}

/// What a model is asked.
#[derive(Clone, Debug)]
pub struct Prompt<'a> {
    /// The product the docs are about (their root page's title).
    pub product: &'a str,
    /// The question.
    pub question: &'a str,
    /// Earlier questions of the conversation, oldest first.
    pub prev: &'a [String],
    /// The sources, best first: source `n` is `sources[n - 1]`.
    pub sources: Vec<Source<'a>>,
}

/// A model's answer, before [`cite_check`].
#[derive(Clone, Debug, PartialEq)]
pub struct Written {
    /// The text, with `[n]` citations.
    pub text: String,
    /// Tokens read and written, as the provider counted them.
    pub input_tokens: Option<i32>,
    /// See `input_tokens`.
    pub output_tokens: Option<i32>,
    /// Cut off by the token limit: its last sentence is unfinished.
    pub truncated: bool,
}

/// A writer of answers from sources. Another provider implements this and
/// is chosen in `crate::built::generator`; routes and the summary's checks stay the same.
pub trait Generator: Send + Sync {
    /// Its name in `_meta.generator.name` (`bedrock`).
    fn name(&self) -> &str;
    /// The model that writes.
    fn model(&self) -> &str;
    /// The answer, or why there is none (the caller then falls back).
    fn write<'a>(&'a self, prompt: &'a Prompt<'_>) -> Writing<'a>;
}

/// What [`Generator::write`] returns: the answer, once the model has
/// written it.
pub type Writing<'a> = Pin<Box<dyn Future<Output = Result<Written, Fallback>> + Send + 'a>>;
