#!/usr/bin/env bash
# Interpreters for the example providers (examples/providers) and the Perl
# provider written from docs/providers.md (testdata/providers/perl), which
# the tests run through `pier provider check`. Node.js usually comes with
# the machine; where it does not, Debian's nodejs is installed.
set -euo pipefail
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq jq perl python3 >/dev/null
perl -MJSON::PP -e 1
if ! command -v node >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs >/dev/null
fi
node --version
