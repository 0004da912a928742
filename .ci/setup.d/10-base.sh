#!/usr/bin/env bash
# Base tools: python3 and a POSIX shell provider's jq; git for flake tests;
# protoc for the check that the generated tfplugin stubs are current;
# script(1) and setsid(1) for terminal and process-group tests.
set -euo pipefail
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 jq git protobuf-compiler bsdutils util-linux >/dev/null
go mod download
