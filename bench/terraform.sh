#!/usr/bin/env bash
# Measures pier's engine driving a real Terraform provider through the
# bridge: N bridged time_static resources (count = N) in one state_file.
# Fresh apply, no-op re-apply, destroy, the number of
# terraform-provider-time processes each run started, peak RSS.
#
#   bench/terraform.sh [N ...]        (default: 1000)
#
# Times are wall-clock seconds of the whole pier process, as a user sees
# them. Peak RSS is GNU time's maximum resident set size of pier and its
# waited-for descendants (the bridges and providers it starts), whichever
# single process is largest. Provider starts are counted by a wrapper that
# appends a line to a file and then execs the real provider; one start is
# the input check's schema read (pier tf schema), the rest are bridges,
# each of which keeps its provider process for its whole life. It builds
# pier and the providers into bin/ first. Nothing here is a test: it prints
# a table.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/pier ./cmd/pier
make -s tfproviders >/dev/null
PIER=$PWD/bin/pier
REAL=$PWD/bin/tfproviders/terraform-provider-time
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000)

measure() { # measure CMD... -> prints "seconds rss_kib"
  local t
  t=$(mktemp)
  if ! /usr/bin/time -o "$t" -f '%e %M' "$@" >"$t.out" 2>"$t.err"; then
    echo "bench: $* failed:" >&2
    tail -n 20 "$t.out" "$t.err" >&2
    exit 1
  fi
  cat "$t"
  rm -f "$t" "$t.out" "$t.err"
}

printf '%-6s %-9s %-7s %-8s %-7s %-11s %-7s %-13s %-9s\n' \
  N apply_s starts noop_s starts destroy_s starts peak_rss_MiB state_KiB
for n in "${sizes[@]}"; do
  dir=$(mktemp -d)
  starts=$dir/starts
  : >"$starts"
  printf '#!/bin/sh\necho start >> %q\nexec %q "$@"\n' "$starts" "$REAL" >"$dir/terraform-provider-time"
  chmod +x "$dir/terraform-provider-time"
  {
    echo 'provider "local" { builtin = "local" }'
    echo 'provider "time" { terraform = "./terraform-provider-time" }'
    echo 'resource "state" {'
    echo '  provider = provider.local'
    echo '  type     = "state_file"'
    echo '  inputs   = { name = "state.json" }'
    echo '}'
    echo 'resource "t" {'
    echo "  count    = $n"
    echo '  provider = provider.time'
    echo '  type     = "time_static"'
    echo '  state    = resource.state'
    echo '  inputs   = { triggers = { index = "${count.index}" } }'
    echo '}'
  } >"$dir/bench.pier.hcl"
  count() { wc -l <"$starts" | tr -d ' '; }
  read -r t_apply rss1 < <(measure "$PIER" apply --dir "$dir")
  s_apply=$(count)
  size=$(( $(stat -c %s "$dir/state.json") / 1024 ))
  read -r t_noop rss2 < <(measure "$PIER" apply --dir "$dir")
  s_noop=$(( $(count) - s_apply ))
  read -r t_destroy rss3 < <(measure "$PIER" destroy --dir "$dir" --yes)
  s_destroy=$(( $(count) - s_apply - s_noop ))
  rss=$(( (rss1 > rss2 ? (rss1 > rss3 ? rss1 : rss3) : (rss2 > rss3 ? rss2 : rss3)) / 1024 ))
  printf '%-6s %-9s %-7s %-8s %-7s %-11s %-7s %-13s %-9s\n' \
    "$n" "$t_apply" "$s_apply" "$t_noop" "$s_noop" "$t_destroy" "$s_destroy" "$rss" "$size"
  rm -rf "$dir"
done
