"""Checks the served OpenAPI document with openapi-spec-validator, then
validates each saved event's response body against the schema the document
gives for that path, method, status and content type (SSE: each event's data
against `x-event-schema`). Run by tests/e2e/:

    python3 tests/clients/openapi_check.py OPENAPI_JSON RESPONSES_JSONL EVENTS_DIR

RESPONSES_JSONL has one {"event": file, "response": <cargo lambda invoke output>} a line.
Prints a summary line and exits non-zero on any problem.
"""

import base64
import copy
import json
import re
import sys

from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

spec_path, responses_path, events_dir = sys.argv[1:4]
spec = json.load(open(spec_path))
validate(spec)
print("openapi: document valid (openapi-spec-validator)")


def pointer(*parts):
    return "#/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def validator(ref):
    root = copy.deepcopy(spec)
    root["$ref"] = ref
    return Draft202012Validator(root)


def route(event):
    if "requestContext" in event and "http" in event["requestContext"]:
        return event["rawPath"], event["requestContext"]["http"]["method"]
    return event["path"], event["httpMethod"]


checked = problems = 0
for line in open(responses_path):
    row = json.loads(line)
    event = json.load(open(f"{events_dir}/{row['event']}"))
    resp = row["response"]
    path, method = route(event)
    full = path.rstrip("/")
    # The route without a stage prefix: the whole path if the API has it
    # (/.well-known/...), else its last segment (/Prod/ask -> /ask).
    path = full if full in spec["paths"] else "/" + full.split("/")[-1]
    # A templated path (`/pages/{page}`) the route, stage or not, matches.
    for p in spec["paths"]:
        pattern = re.sub(r"\\\{[^}]*\\\}", ".+", re.escape(p))
        if "{" in p and re.fullmatch(f"(/[^/]+)?{pattern}", full):
            path = p
    status = str(resp["statusCode"])
    headers = {k.lower(): v for k, v in (resp.get("headers") or {}).items()}
    for k, v in (resp.get("multiValueHeaders") or {}).items():
        headers.setdefault(k.lower(), v[0] if v else "")
    ctype = headers.get("content-type", "").split(";")[0].strip()
    body = resp.get("body") or ""
    if resp.get("isBase64Encoded"):
        body = base64.b64decode(body).decode()
    if path not in spec["paths"]:
        # A path the API does not have: API Gateway's own 404.
        path = "/ask"
    op = spec["paths"][path].get(method.lower())
    if op is None and status == "405":
        # A method the route does not take: its 405 is documented on the
        # route's other operations.
        method = next(m for m in ("get", "post") if m in spec["paths"][path])
        op = spec["paths"][path][method]
    if op is None:
        problems += 1
        print(f"{row['event']}: {method} {path} is not in the document")
        continue
    if status not in op["responses"]:
        problems += 1
        print(f"{row['event']}: status {status} of {method} {path} is not in the document")
        continue
    content = op["responses"][status].get("content")
    if not body:
        if content:
            problems += 1
            print(f"{row['event']}: empty body where the document has content")
        checked += 1
        continue
    if ctype not in (content or {}):
        problems += 1
        print(f"{row['event']}: content type {ctype!r} not documented for {status}")
        continue
    base = ("paths", path, method.lower(), "responses", status, "content", ctype)
    if ctype == "text/event-stream":
        v = validator(pointer(*base, "x-event-schema"))
        for block in body.strip().split("\n\n"):
            data = [l[6:] for l in block.split("\n") if l.startswith("data: ")]
            for e in v.iter_errors(json.loads(data[0])):
                problems += 1
                print(f"{row['event']}: SSE event: {e.message}")
    elif ctype == "application/json":
        for e in validator(pointer(*base, "schema")).iter_errors(json.loads(body)):
            problems += 1
            print(f"{row['event']}: {e.message}")
    checked += 1

print(f"openapi: {checked} responses checked, {problems} problems")
sys.exit(1 if problems or checked == 0 else 0)
