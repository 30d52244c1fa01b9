"""The official MCP Python SDK client (pinned in scripts/requirements-tools.txt)
against a running `ask` binary, in each of its connection modes:

- `legacy`: the `initialize` handshake (it asks for 2025-11-25);
- `auto`: `server/discover` in 2026-07-28, falling back to `initialize`
  only if the server refuses it (so it must end on 2026-07-28 here);
- `2026-07-28`: pinned, no probe, every request stateless.

Each lists the tools, calls `ask` for an answer (list and summarize) and for
NO_RESULTS, and compares the answer with /ask's. Run by tests/e2e/ with
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
        check([t.name for t in tools] == ["ask"], f"[{mode}] one tool, ask")
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


async def main(mcp_url, ask_url):
    for mode, revision in MODES:
        await session(mcp_url, ask_url, mode, revision)
    print("mcp client: all checks passed")


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2])
