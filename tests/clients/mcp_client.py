"""The official MCP Python SDK client (pinned in scripts/requirements-tools.txt)
against a running `ask` binary: initialize, list_tools, call_tool("ask") and a
NO_RESULTS call. Run by tests/e2e.rs with the /mcp URL and the /ask URL of the
same endpoint; prints one line per check and exits non-zero on the first
failure.

    python3 tests/clients/mcp_client.py MCP_URL ASK_URL
"""

import json
import sys
import urllib.parse
import urllib.request

import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

QUESTION = "how do I configure the rate limit"
NO_MATCH = "zzqxv blorptangle"


def check(cond, what):
    if not cond:
        raise SystemExit(f"FAIL: {what}")
    print(f"ok: {what}")


def ask_results(ask_url, query):
    """The same question through /ask (JSON, list mode)."""
    url = f"{ask_url}?query={urllib.parse.quote(query)}&streaming=false&mode=list"
    with urllib.request.urlopen(url) as r:
        return json.load(r)


async def main(mcp_url, ask_url):
    async with streamable_http_client(mcp_url) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.protocol_version in ("2025-06-18", "2025-03-26", "2024-11-05"),
                  f"initialize agreed protocol {init.protocol_version}")
            check(init.server_info.name == "nlweb-ask", "server name nlweb-ask")
            check(init.capabilities.tools is not None, "server offers tools")

            tools = (await session.list_tools()).tools
            check([t.name for t in tools] == ["ask"], "one tool, ask")
            tool = tools[0]
            check("documentation" in (tool.description or ""), "ask has a description")
            schema = tool.input_schema
            check(schema["type"] == "object", "inputSchema is an object")
            check(schema["properties"]["query"]["type"] == "string", "query is a string")
            check(schema.get("required") == ["query"], "query is required")
            check(set(schema["properties"]["mode"]["enum"]) == {"list", "summarize", "generate"},
                  "mode enum")
            check(tool.output_schema is not None, "ask has an outputSchema")

            result = await session.call_tool("ask", {"query": QUESTION, "mode": "list"})
            check(not result.is_error, "answer is not an error")
            doc = result.structured_content
            check(doc["_meta"]["response_type"] == "answer", "structuredContent is an answer")
            expected = ask_results(ask_url, QUESTION)
            same = lambda items: [(i["name"], i["url"], i["score"]) for i in items]
            check(same(doc["results"]) == same(expected["results"]),
                  f"structured results equal /ask's ({len(doc['results'])} items)")
            text = result.content[0].text
            check(doc["results"][0]["url"] in text, "text content lists the URLs")

            summary = await session.call_tool("ask", {"query": QUESTION, "mode": "summarize",
                                                      "num_results": 3})
            sdoc = summary.structured_content
            check(sdoc["results"][0]["@type"] == "SearchSummary", "summarize puts the summary first")
            check(len(sdoc["results"]) == 4, "num_results 3 gives 3 sections and the summary")

            miss = await session.call_tool("ask", {"query": NO_MATCH})
            check(miss.is_error, "NO_RESULTS comes back with isError true")
            check(miss.structured_content["error"]["code"] == "NO_RESULTS",
                  "its structuredContent is the NO_RESULTS failure document")
    print("mcp client: all checks passed")


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2])
