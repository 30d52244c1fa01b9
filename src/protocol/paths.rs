//! Where each route is: the one place a path is written. The route table
//! (`crate::routes::ROUTES`), the OpenAPI document, `/config` and the
//! analytics lines name the paths from here.

/// `/ask`: the NLWeb question.
pub const NLWEB_ASK_PATH: &str = "/ask";
/// `/ask/feedback`: a reader's rating of an answer.
pub const FEEDBACK_PATH: &str = "/ask/feedback";
/// `/who`: does this site answer a question?
pub const WHO_PATH: &str = "/who";
/// `/sites`: the sites this index serves.
pub const SITES_PATH: &str = "/sites";
/// `/config`: the settings in force a client may read.
pub const CONFIG_PATH: &str = "/config";
/// `/llms.txt`: the docs' map for language models.
pub const LLMS_PATH: &str = "/llms.txt";
/// `/openapi.json`: this API's OpenAPI document.
pub const OPENAPI_PATH: &str = "/openapi.json";
/// `/ask/widget.js`: the ask box's script.
pub const WIDGET_PATH: &str = "/ask/widget.js";
/// `/mcp`: the MCP endpoint.
pub const MCP_PATH: &str = "/mcp";
/// The RFC 9728 protected-resource metadata path.
pub const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource";
/// The MCP server card (Server Card extension, SEP-2127).
pub const CARD_PATH: &str = "/mcp/server-card";
/// The AI Catalog's well-known path (the extension's current draft).
pub const CATALOG_PATH: &str = "/.well-known/ai-catalog.json";
/// The MCP catalog path of the extension's earlier drafts: the same
/// catalog.
pub const MCP_CATALOG_PATH: &str = "/.well-known/mcp/catalog.json";
/// `/pages/{key}.md`: each page's Markdown (the route's pattern).
pub const PAGES_PATH: &str = "/pages/{*page}";
/// What every page's Markdown path starts with.
pub const PAGES_PREFIX: &str = "/pages/";
/// `/llms-full.txt`: every page's Markdown in one file.
pub const LLMS_FULL_PATH: &str = "/llms-full.txt";
