#!/usr/bin/env python3
"""Adds the sha256 of every published file of each pinned version to a
requirements file (pip's hash-checking mode), from the package index's
simple API. Run after changing a version:

    python3 scripts/hash-requirements.py scripts/requirements-tools.txt

Comments and `name==version` pins are kept; hashes are rewritten."""
import json
import re
import sys
import urllib.request

INDEX = "https://pypi.org/simple"


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def file_version(filename):
    if filename.endswith(".whl"):
        return filename.split("-")[1]
    for ext in (".tar.gz", ".zip", ".tar.bz2"):
        if filename.endswith(ext):
            return filename[: -len(ext)].rsplit("-", 1)[1]
    return None


def hashes(name, version):
    name = name.split("[", 1)[0]
    req = urllib.request.Request(
        f"{INDEX}/{norm(name)}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"}
    )
    files = json.load(urllib.request.urlopen(req, timeout=60))["files"]
    out = sorted(
        f["hashes"]["sha256"]
        for f in files
        if file_version(f["filename"]) == version and "sha256" in f.get("hashes", {})
    )
    if not out:
        sys.exit(f"{name}=={version}: no files on the index")
    return out


def main(path):
    comments, pins = [], []
    for line in open(path):
        s = line.strip()
        if s.startswith("#") and not pins:
            comments.append(s)
        m = re.match(r"^([A-Za-z0-9_.\-]+(?:\[[^\]]*\])?)==([^\s\\;]+)", s)
        if m:
            pins.append((m.group(1), m.group(2)))
    lines = comments[:]
    for name, version in pins:
        hs = hashes(name, version)
        lines.append(f"{name}=={version} \\")
        lines.extend(f"    --hash=sha256:{h}" + (" \\" if i + 1 < len(hs) else "") for i, h in enumerate(hs))
    open(path, "w").write("\n".join(lines) + "\n")
    print(f"{path}: {len(pins)} pins hashed")


if __name__ == "__main__":
    for p in sys.argv[1:]:
        main(p)
