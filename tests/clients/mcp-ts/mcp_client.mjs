// The official MCP TypeScript SDKs (pinned in package-lock.json next to this
// file) against a running `ask` binary:
// - @modelcontextprotocol/sdk 1.32.2, which connects with `initialize` (its
//   newest revision is 2025-11-25);
// - @modelcontextprotocol/client 2.4.0, in `auto` (server/discover, falling
//   back to initialize only if refused: it must end on 2026-07-28 here) and
//   pinned to 2026-07-28.
// Each lists the tools (which makes the SDK validate later structuredContent
// against the outputSchema), calls `ask` for an answer and for NO_RESULTS,
// `search` and `fetch`, and lists and reads the pages as resources.
// Prints one line per check; exits non-zero on the first failure.
//
//   node tests/clients/mcp-ts/mcp_client.mjs MCP_URL
import assert from "node:assert/strict";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const url = new URL(process.argv[2]);
const QUESTION = "how do I configure the rate limit";
const NO_MATCH = "zzqxv blorptangle";

function check(cond, what) {
  assert.ok(cond, `FAIL: ${what}`);
  console.log(`ok: ${what}`);
}

// Formats the SDK's Ajv does not know are a console warning, not an
// error: count them, so that the test fails on one.
const warnings = [];
const warn = console.warn;
console.warn = (...args) => {
  warnings.push(args.join(" "));
  warn(...args);
};

async function session(label, client, transport, revision) {
  await client.connect(transport);
  const agreed = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion;
  check(agreed === revision, `[${label}] agreed protocol ${agreed}`);
  check(client.getServerVersion()?.name === "nlweb-ask", `[${label}] server name nlweb-ask`);
  const { tools } = await client.listTools();
  check(tools.map((t) => t.name).join() === "ask,search,fetch", `[${label}] the tools ask, search and fetch`);
  const tool = tools[0];
  check(tool.annotations?.readOnlyHint === true && tool.annotations?.openWorldHint === false,
    `[${label}] read-only, closed-world hints`);
  check(tool.outputSchema?.type === "object", `[${label}] an object outputSchema`);

  const answer = await client.callTool({ name: "ask", arguments: { query: QUESTION, mode: "list" } });
  check(!answer.isError, `[${label}] answer is not an error`);
  const doc = answer.structuredContent;
  check(doc._meta.response_type === "answer" && doc.results.length > 0,
    `[${label}] structuredContent is an answer (${doc.results.length} items)`);
  check(answer.content[0].text.includes(doc.results[0].url), `[${label}] text lists the URLs`);

  const miss = await client.callTool({ name: "ask", arguments: { query: NO_MATCH } });
  check(miss.isError === true, `[${label}] NO_RESULTS comes back with isError true`);
  check(miss.structuredContent.error.code === "NO_RESULTS", `[${label}] its document is NO_RESULTS`);

  const found = await client.callTool({ name: "search", arguments: { query: QUESTION } });
  const results = JSON.parse(found.content[0].text);
  assert.deepEqual(results, found.structuredContent);
  const first = results.results[0];
  check(first.id.startsWith("docs://") && first.title && first.url, `[${label}] search: id, title, url`);
  const page = await client.callTool({ name: "fetch", arguments: { id: first.id } });
  const fetched = JSON.parse(page.content[0].text);
  assert.deepEqual(fetched, page.structuredContent);
  check(fetched.id === first.id && fetched.text.startsWith("# ") && fetched.metadata.build_id, `[${label}] fetch: the page as Markdown`);
  const { resources } = await client.listResources();
  check(resources.some((r) => r.uri === first.id) && resources.every((r) => r.mimeType === "text/markdown"),
    `[${label}] resources/list: ${resources.length} pages`);
  const read = await client.readResource({ uri: first.id });
  check(read.contents[0].text === fetched.text, `[${label}] resources/read gives fetch's Markdown`);
  await client.close();
}

const info = { name: "nlweb-ask-test", version: "1.0.0" };
await session("sdk 1.32.2", new ClientV1(info), new TransportV1(url), "2025-11-25");
for (const [label, mode] of [["client 2.4.0 auto", "auto"], ["client 2.4.0 pinned", { pin: "2026-07-28" }]]) {
  const client = new Client(info, { versionNegotiation: { mode } });
  await session(label, client, new StreamableHTTPClientTransport(url), "2026-07-28");
}
check(warnings.every((w) => !w.includes("unknown format")), "no unknown-format warnings from Ajv");
console.log("mcp ts client: all checks passed");
