#!/usr/bin/env bash
# Interpreters for the example providers (examples/providers) and the Perl
# provider written from docs/providers.md (testdata/providers/perl), which
# the tests run through `pier provider check`. Node.js comes with the CI
# image; without it the node-counter test skips and names this script.
set -euo pipefail
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq jq perl python3 >/dev/null
perl -MJSON::PP -e 1
if ! command -v node >/dev/null 2>&1; then
  echo "50-provider-examples: node not found; examples/providers/node-counter will be skipped" >&2
fi
