"""The official MCP Python SDK client (pinned in scripts/requirements-tools.txt)
against a running `ask` binary, in each of its connection modes:

- `legacy`: the `initialize` handshake (it asks for 2025-11-25);
- `auto`: `server/discover` in 2026-07-28, falling back to `initialize`
  only if the server refuses it (so it must end on 2026-07-28 here);
- `2026-07-28`: pinned, no probe, every request stateless.

Each lists the tools, calls `ask` for an answer (list and summarize) and for
NO_RESULTS, and compares the answer with /ask's; calls `search` and `fetch`
(OpenAI's connector shapes) and lists and reads the pages as resources. Run by tests/e2e/ with
the /mcp URL and the /ask URL of the same endpoint; prints one line per
check and exits non-zero on the first failure.

    python3 tests/clients/mcp_client.py MCP_URL ASK_URL
"""

import json
import sys
import urllib.parse
import urllib.request

import anyio
from mcp import Client

QUESTION = "how do I configure the rate limit"
NO_MATCH = "zzqxv blorptangle"
# The mode, and the revision it must end on against this server.
MODES = [("legacy", "2025-11-25"), ("auto", "2026-07-28"), ("2026-07-28", "2026-07-28")]


def check(cond, what):
    if not cond:
        raise SystemExit(f"FAIL: {what}")
    print(f"ok: {what}")


def ask_results(ask_url, query):
    """The same question through /ask (JSON, list mode)."""
    url = f"{ask_url}?query={urllib.parse.quote(query)}&streaming=false&mode=list"
    with urllib.request.urlopen(url) as r:
        return json.load(r)


async def session(mcp_url, ask_url, mode, revision):
    async with Client(mcp_url, mode=mode, cache=None) as client:
        check(client.protocol_version == revision,
              f"[{mode}] agreed protocol {client.protocol_version}")
        if mode != "2026-07-28":
            # A pinned client does not ask who the server is.
            check(client.server_info.name == "nlweb-ask", f"[{mode}] server name nlweb-ask")

        tools = (await client.list_tools()).tools
        check([t.name for t in tools] == ["ask", "search", "fetch"],
              f"[{mode}] the tools ask, search and fetch")
        tool = tools[0]
        check("documentation" in (tool.description or ""), f"[{mode}] ask has a description")
        check(tool.title and "docs" in tool.title, f"[{mode}] ask has a title")
        hints = tool.annotations
        check(hints.read_only_hint is True and hints.idempotent_hint is True
              and hints.open_world_hint is False,
              f"[{mode}] read-only, idempotent, closed-world hints")
        schema = tool.input_schema
        check(schema["type"] == "object", f"[{mode}] inputSchema is an object")
        check(schema["properties"]["query"]["type"] == "string", f"[{mode}] query is a string")
        check(schema.get("required") == ["query"], f"[{mode}] query is required")
        check(set(schema["properties"]["mode"]["enum"]) == {"list", "summarize", "generate"},
              f"[{mode}] mode enum")
        check(tool.output_schema is not None and tool.output_schema["type"] == "object",
              f"[{mode}] ask has an object outputSchema")
        check('"uint' not in json.dumps(tool.output_schema),
              f"[{mode}] the outputSchema has no schemars-only formats")

        # The client validates structuredContent against the outputSchema.
        result = await client.call_tool("ask", {"query": QUESTION, "mode": "list"})
        check(not result.is_error, f"[{mode}] answer is not an error")
        doc = result.structured_content
        check(doc["_meta"]["response_type"] == "answer", f"[{mode}] structuredContent is an answer")
        expected = ask_results(ask_url, QUESTION)
        same = lambda items: [(i["name"], i["url"], i["score"]) for i in items]
        check(same(doc["results"]) == same(expected["results"]),
              f"[{mode}] structured results equal /ask's ({len(doc['results'])} items)")
        text = result.content[0].text
        check(doc["results"][0]["url"] in text, f"[{mode}] text content lists the URLs")

        summary = await client.call_tool("ask", {"query": QUESTION, "mode": "summarize",
                                                 "num_results": 3})
        sdoc = summary.structured_content
        check(sdoc["results"][0]["@type"] == "SearchSummary",
              f"[{mode}] summarize puts the summary first")
        check(len(sdoc["results"]) == 4, f"[{mode}] num_results 3 gives 3 sections and the summary")

        miss = await client.call_tool("ask", {"query": NO_MATCH})
        check(miss.is_error, f"[{mode}] NO_RESULTS comes back with isError true")
        check(miss.structured_content["error"]["code"] == "NO_RESULTS",
              f"[{mode}] its structuredContent is the NO_RESULTS failure document")

        # search and fetch: one text item holding the JSON, and the same
        # value as structuredContent.
        found = await client.call_tool("search", {"query": QUESTION})
        check(not found.is_error and len(found.content) == 1, f"[{mode}] search: one text item")
        results = json.loads(found.content[0].text)
        check(results == found.structured_content, f"[{mode}] search: text JSON == structuredContent")
        first = results["results"][0]
        check(set(first) >= {"id", "title", "url"} and first["id"].startswith("docs://"),
              f"[{mode}] search: id, title, url ({first['id']})")
        page = await client.call_tool("fetch", {"id": first["id"]})
        doc = json.loads(page.content[0].text)
        check(doc == page.structured_content and doc["id"] == first["id"],
              f"[{mode}] fetch: the page by its id")
        check(doc["text"].startswith("# ") and set(doc["metadata"]) >= {"site", "headings", "build_id"},
              f"[{mode}] fetch: Markdown text and metadata ({len(doc['text'])} chars)")
        gone = await client.call_tool("fetch", {"id": "docs://no-such-page"})
        check(gone.is_error, f"[{mode}] fetch of an unknown id is a tool error")

        # The pages as resources: listed, and read as Markdown.
        listed = await client.list_resources()
        uris = [str(r.uri) for r in listed.resources]
        check(first["id"] in uris and all(r.mime_type == "text/markdown" for r in listed.resources),
              f"[{mode}] resources/list: {len(uris)} pages, text/markdown")
        read = await client.read_resource(first["id"])
        check(read.contents[0].text == doc["text"] and read.contents[0].mime_type == "text/markdown",
              f"[{mode}] resources/read gives fetch's Markdown")


async def main(mcp_url, ask_url):
    for mode, revision in MODES:
        await session(mcp_url, ask_url, mode, revision)
    print("mcp client: all checks passed")


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2])
