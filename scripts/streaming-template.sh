#!/usr/bin/env bash
# Writes template.yaml's streaming variant to stdout: every Api event's
# integration streams (ResponseTransferMode: RESPONSE_STREAM) and the
# Transport parameter (ASK_TRANSPORT) is streaming. SAM reads
# ResponseTransferMode only as a literal (an !If or a !Ref there translates
# to a buffered integration), so the two deployments are two templates, each
# consistent: a streaming function behind a buffered integration (or the
# reverse) would answer nothing readable. scripts/test.sh checks both.
set -euo pipefail
cd "$(dirname "$0")/.."
sed -e 's/^\( *\)ResponseTransferMode: BUFFERED$/\1ResponseTransferMode: RESPONSE_STREAM/' \
    -e 's/^    Default: buffered  # transport$/    Default: streaming  # transport/' \
    -e 's/^    AllowedValues: \[buffered\]  # transport$/    AllowedValues: [streaming]  # transport/' \
    template.yaml
