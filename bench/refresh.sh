#!/usr/bin/env bash
# The cost of --refresh: N bridged time_static (terraform-provider-time from
# bin/tfproviders, built by make tfproviders) in one state_file, then a
# no-op apply without and with --refresh, and apply --refresh-only (which
# finds no drift), REPEAT times each, and the
# provider processes each started.
#
#   bench/refresh.sh [N] [REPEAT]      (default: 1000 3)
#
# Times are wall-clock seconds of the whole pier process; peak RSS is
# pier's own. Nothing here is a test: it prints a table.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -tags urfave_cli_no_docs,grpcnotrace -o bin/pier ./cmd/pier
PIER=$PWD/bin/pier
TIME=$PWD/bin/tfproviders/terraform-provider-time
[ -x "$TIME" ] || { echo "bench: $TIME missing: run make tfproviders" >&2; exit 1; }
n=${1:-1000}
repeat=${2:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/main.pier.hcl" <<HCL
provider "local" { builtin = "local" }
provider "time" { terraform = "$TIME" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "t" {
  count    = $n
  provider = provider.time
  type     = "time_static"
  state    = resource.state
  inputs   = { triggers = { n = "\${count.index}" } }
}
HCL
run() { # run LABEL ARGS... -> one table row
  local label=$1 t
  shift
  t=$(mktemp)
  if ! /usr/bin/time -o "$t" -f '%e %M' "$PIER" apply --dir "$dir" "$@" >"$t.out" 2>"$t.err"; then
    echo "bench: pier apply $* failed:" >&2
    tail -n 20 "$t.out" "$t.err" >&2
    exit 1
  fi
  read -r secs rss <"$t"
  printf '%-16s %-8s %-12s %s\n' "$label" "$secs" "$((rss / 1024))" "$(grep -o 'started: .*' "$t.out" | sed 's/started: //')"
  rm -f "$t" "$t.out" "$t.err"
}
printf '%-16s %-8s %-12s %s\n' run seconds peak_rss_MiB providers_started
run "create $n"
for _ in $(seq "$repeat"); do
  run "no-op"
  run "no-op --refresh" --refresh
  run "--refresh-only" --refresh-only
done
