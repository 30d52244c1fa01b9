"""The NLWeb reference's own protocol models (nlweb-core 0.7.0,
`nlweb_core.protocol.models`) against a running `ask` binary: requests are
built with `AskRequest(...).model_dump(by_alias=True, exclude_none=True)`,
the shape a reference client sends (its defaults included), POSTed to /ask,
and every JSON response and every SSE frame's document is validated with
the matching response model, and /who's with WhoResponse. Also: paging with meta.start_num, and a GET
answer's ETag giving 304. Run by tests/e2e/:

    python3 tests/clients/reference_models.py ASK_URL
"""

import json
import sys
import urllib.error
import urllib.parse
import urllib.request

from nlweb_core.protocol.models import (
    AnswerResponseChatGPT,
    AnswerResponseConvSearch,
    AskRequest,
    AskResponseMeta,
    Context,
    FailureResponse,
    Meta,
    Prefer,
    Query,
    ResultObject,
    WhoResponse,
)

ask_url = sys.argv[1]
checked = 0
errors = 0


def fail(what):
    global errors
    errors += 1
    print(f"FAIL: {what}")


def validate(model, data, what):
    global checked
    try:
        model.model_validate(data)
        checked += 1
    except Exception as e:  # pydantic.ValidationError
        fail(f"{what}: {model.__name__}: {e}")


def post(request):
    body = json.dumps(request.model_dump(by_alias=True, exclude_none=True)).encode()
    req = urllib.request.Request(ask_url, data=body, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, r.headers.get("content-type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("content-type", ""), e.read().decode()


def sse(text):
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n"))
        # Unnamed events are the older format's headers: an SSE client that
        # listens for the named 0.55 events never sees them.
        yield fields.get("event", "message"), json.loads(fields["data"])


def check(request, what, expect_answer=True):
    status, ctype, body = post(request)
    fmt = (request.prefer.response_format if request.prefer else None) or "chatgpt_app"
    if ctype.startswith("application/json"):
        doc = json.loads(body)
        kind = doc["_meta"]["response_type"]
        if kind == "failure":
            validate(FailureResponse, doc, what)
            if expect_answer:
                fail(f"{what}: expected an answer, got {doc['error']}")
        elif fmt == "chatgpt_app":
            validate(AnswerResponseChatGPT, doc, what)
        else:
            validate(AnswerResponseConvSearch, doc, what)
        return doc
    if ctype.startswith("text/event-stream"):
        for name, data in sse(body):
            if name in ("start", "complete"):
                validate(AskResponseMeta, data["_meta"], f"{what} {name}")
            elif name == "result":
                validate(ResultObject, data["item"], f"{what} result")
            elif name == "error":
                validate(FailureResponse, data, f"{what} error")
                if expect_answer:
                    fail(f"{what}: stream failed: {data['error']}")
        return None
    fail(f"{what}: status {status}, content type {ctype!r}")


question = "how do I configure the rate limit"
# The reference client's default request, as it sends it.
check(AskRequest(query=Query(text=question)), "default request")
for mode in ("list", "summarize", "generate"):
    for fmt in ("chatgpt_app", "conv_search", "conversational_search"):
        for streaming in (False, True):
            check(
                AskRequest(
                    query=Query(text=question),
                    context=Context(prev=["what is nlweb-ask"]),
                    prefer=Prefer(streaming=streaming, mode=mode, response_format=fmt),
                    meta=Meta(start_num=0),
                ),
                f"{mode}/{fmt}/streaming={streaming}",
            )
check(
    AskRequest(query=Query(text="zzqxv blorptangle"), prefer=Prefer(streaming=False)),
    "no match",
    expect_answer=False,
)

# Paging: the second page never repeats the first.
pages = []
for start in (0, 3):
    doc = check(
        AskRequest(
            query=Query(text=question, max_results=3),
            prefer=Prefer(streaming=False, mode="list", response_format="conv_search"),
            meta=Meta(start_num=start),
        ),
        f"page start_num={start}",
    )
    pages.append([r["url"] for r in doc["results"]])
if len(pages[0]) != 3 or len(pages[1]) != 3 or set(pages[0]) & set(pages[1]):
    fail(f"paging: {pages}")

# A GET answer is the same every time but for its query_id (one issued per
# answer), and its weak ETag gives 304 with no body (that it costs no token
# is checked in process, with a clock that stands still: tests/events/).
url = ask_url + "?" + urllib.parse.urlencode({"query": question, "streaming": "false"})
with urllib.request.urlopen(url) as r:
    etag, first = r.headers["etag"], json.loads(r.read())
with urllib.request.urlopen(url) as r:
    again = json.loads(r.read())
    if not etag.startswith('W/"') or r.headers["etag"] != etag:
        fail(f"a repeated GET has another ETag: {etag}, {r.headers['etag']}")
    if first.pop("query_id") == again.pop("query_id"):
        fail("two answers share a query_id")
    if again != first:
        fail("a repeated GET is not the same answer")
try:
    urllib.request.urlopen(urllib.request.Request(url, headers={"if-none-match": etag}))
    fail("If-None-Match with the ETag did not give 304")
except urllib.error.HTTPError as e:
    if e.code != 304 or e.read() or e.headers["etag"] != etag:
        fail(f"304: {e.code} {dict(e.headers)}")

# /who, the reference's WhoResponse: relevant or not, a 200 document.
base = ask_url[: ask_url.rindex("/ask")]
for q, relevant in ((question, True), ("how do I bake sourdough bread", False)):
    with urllib.request.urlopen(base + "/who?" + urllib.parse.urlencode({"query": q})) as r:
        doc = json.loads(r.read())
    validate(WhoResponse, doc, f"who {q!r}")
    if doc["relevant"] is not relevant:
        fail(f"who {q!r}: relevant is {doc['relevant']}")

print(f"reference models: {checked} documents validated, {errors} errors")
sys.exit(1 if errors or checked < 40 else 0)
