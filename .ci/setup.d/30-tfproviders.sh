#!/usr/bin/env bash
# Terraform provider binaries for the Terraform bridge tests (adapters/terraform):
# terraform-provider-time v0.14.2 and terraform-provider-openstack v3.4.0
# from the Go module proxy and the fixture providers in testdata/tfproviders,
# built into bin/tfproviders by `make tfproviders`. Go's build cache makes a
# rerun cheap; the openstack build takes about a minute cold. The fixtures' own
# tests run here too: the main module's `go test ./...` skips testdata.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v make >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq make >/dev/null
fi
make tfproviders
make tfproviders-test
# Each binary must answer the go-plugin handshake with its protocol version.
# A plugin server runs until killed, so read its first line and stop it.
cookie=d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2
out=$(mktemp)
sockets=$(mktemp -d)
trap 'rm -rf "$out" "$sockets"' EXIT
for pair in time:5 openstack:5 fixture:6 fixturesdk:5; do
  name=${pair%%:*} proto=${pair##*:}
  TF_PLUGIN_MAGIC_COOKIE=$cookie PLUGIN_PROTOCOL_VERSIONS=5,6 PLUGIN_UNIX_SOCKET_DIR=$sockets \
    "bin/tfproviders/terraform-provider-$name" >"$out" 2>/dev/null &
  pid=$!
  for _ in $(seq 200); do
    grep -q . "$out" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  line=$(head -n 1 "$out")
  case "$line" in
    "1|$proto|unix|"*"|grpc|"*) echo "terraform-provider-$name: protocol $proto handshake ok" ;;
    *) echo "terraform-provider-$name: no protocol $proto go-plugin handshake, got: $line" >&2; exit 1 ;;
  esac
done
