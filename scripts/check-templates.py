"""Translates template.yaml and its streaming variant with the pinned SAM
translator and checks what API Gateway would get: every route's integration
buffered (the Lambda `/invocations` URI) in the one, streaming
(`response-streaming-invocations`, `responseTransferMode: STREAM`) in the
other. `sam validate --lint` alone does not show this: it accepts an
`!If` for ResponseTransferMode that translates to a buffered integration.
Also that the dashboard's body, its variables substituted, is JSON (a
string to CloudFormation, which checks it only at deploy time).

    python check-templates.py TEMPLATE STREAMING_TEMPLATE
"""
import json
import os
import sys

from samcli.yamlhelper import yaml_parse
from samtranslator.translator.transform import transform

os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")


class NoPolicies:
    def load(self):
        return {}


def translated(path, transport):
    tpl = yaml_parse(open(path).read())
    for r in tpl["Resources"].values():
        p = r.get("Properties", {})
        # Local folders: what `sam package` would replace with S3 URIs.
        if "CodeUri" in p:
            p["CodeUri"] = "s3://bucket/code.zip"
        if "ContentUri" in p:
            p["ContentUri"] = "s3://bucket/layer.zip"
    return json.dumps(transform(tpl, {"Transport": transport, "Enabled": "true"}, NoPolicies()))


def dashboard_is_json(path):
    tpl = yaml_parse(open(path).read())
    body, variables = tpl["Resources"]["AskDashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    for name in list(variables) + ["AWS::Region"]:
        body = body.replace("${" + name + "}", "x")
    widgets = json.loads(body)["widgets"]
    if not widgets:
        sys.exit(f"check-templates: {path}: the dashboard has no widgets")
    return len(widgets)


def main():
    plain, streaming = sys.argv[1], sys.argv[2]
    widgets = [dashboard_is_json(t) for t in (plain, streaming)]
    events = open(plain).read().count("Type: Api\n")
    a = translated(plain, "buffered")
    b = translated(streaming, "streaming")
    checks = [
        (a.count("response-streaming-invocations") == 0, "the template streams no route"),
        (a.count("/invocations") == events, f"the template buffers all {events} routes"),
        (b.count("response-streaming-invocations") == events, f"the streaming variant streams all {events} routes"),
        (b.count('"responseTransferMode": "STREAM"') == events, "each streaming route says STREAM"),
    ]
    failed = [what for ok, what in checks if not ok]
    if failed:
        sys.exit("check-templates: not so: " + "; ".join(failed))
    print(f"templates: {events} routes buffered in template.yaml, streamed in its streaming variant; dashboard JSON, {widgets[0]} widgets")


main()
