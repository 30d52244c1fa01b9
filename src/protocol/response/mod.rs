//! What does the endpoint send back? Every NLWeb 0.55 response document
//! (answer, failure) and every SSE event, as serde types. `_meta` is built
//! here and only here; schemas derive from the same types.

mod answer;
mod error;
mod legacy;
mod meta;
mod other;
mod stream;
mod version;

pub use answer::{
    AnswerDocument, Article, ArticleObject, ChatAnswerDocument, ChatText, Citation, Document,
    Grounding, ResultItem, SchemaContext, SearchSummaryType, Summary, SummaryObject,
    TechArticleType, TextType,
};
pub use error::{ErrorBody, FailureDocument};
pub use legacy::{LegacyHeader, LegacyMessage};
pub use meta::{
    AnswerConfidence, Echo, Fallback, GeneratorUsed, Meta, QueryCorrection, ResponseFormat,
    ResponseType, SessionContext,
};
pub use other::{
    NotFound, ProtectedResourceMetadata, ResourceType, Site, SitesDocument, SitesType, WebSiteType,
    WhoContent, WhoDocument, WhoMeta, WhoPage, WhoResource, WhoSite,
};
pub use stream::{CompleteEvent, ResultEvent, StartEvent, StreamEvent};
pub use version::Version;
