"""Prints one key of a settings file's `ask:` section (a plain scalar),
or nothing when the file does not set it: what scripts/deploy.sh checks
before anything is built. build-index reads the file fully (and refuses
what does not check out) when it builds the index.

    python3 scripts/settings-value.py SETTINGS_FILE KEY
"""
import sys

path, key = sys.argv[1], sys.argv[2]
in_ask = False
for line in open(path, encoding="utf-8"):
    text = line.rstrip("\n")
    if not text.strip() or text.lstrip().startswith("#"):
        continue
    if not text[0].isspace():
        in_ask = text.split("#", 1)[0].strip() == "ask:"
        continue
    name, sep, value = text.strip().partition(":")
    if in_ask and sep and name.strip() == key:
        value = value.split(" #", 1)[0].strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        print(value)
        break
