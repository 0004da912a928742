#!/usr/bin/env bash
# Base tools: python3 and a POSIX shell provider's jq.
set -euo pipefail
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 jq >/dev/null
go mod download
