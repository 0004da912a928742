#!/usr/bin/env bash
# Measures pier's engine on N stateful memo resources in one state_file:
# fresh apply, no-op re-apply, destroy, peak RSS, state file size.
#
#   bench/apply.sh [N ...]        (default: 100 1000 10000)
#
# Times are wall-clock seconds of the whole pier process, as a user sees
# them; peak RSS is pier's own (GNU time's maximum resident set size). It
# builds pier into bin/ first. Nothing here is a test: it prints a table.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -tags urfave_cli_no_docs,grpcnotrace -o bin/pier ./cmd/pier
PIER=$PWD/bin/pier
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100 1000 10000)

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

printf '%-7s %-12s %-12s %-12s %-14s %-12s\n' N apply_s noop_s destroy_s peak_rss_MiB state_KiB
for n in "${sizes[@]}"; do
  dir=$(mktemp -d)
  {
    echo 'provider "local" { builtin = "local" }'
    echo 'resource "state" {'
    echo '  provider = provider.local'
    echo '  type     = "state_file"'
    echo '  inputs   = { name = "state.json" }'
    echo '}'
    echo 'resource "m" {'
    echo "  count    = $n"
    echo '  provider = provider.local'
    echo '  type     = "memo"'
    echo '  state    = resource.state'
    echo '  inputs   = { initialize_with = "value-${count.index}" }'
    echo '}'
  } > "$dir/bench.pier.hcl"
  read -r t_apply rss1 < <(measure "$PIER" apply --dir "$dir")
  size=$(( $(stat -c %s "$dir/state.json") / 1024 ))
  read -r t_noop rss2 < <(measure "$PIER" apply --dir "$dir")
  read -r t_destroy rss3 < <(measure "$PIER" destroy --dir "$dir" --yes)
  rss=$(( (rss1 > rss2 ? (rss1 > rss3 ? rss1 : rss3) : (rss2 > rss3 ? rss2 : rss3)) / 1024 ))
  printf '%-7s %-12s %-12s %-12s %-14s %-12s\n' "$n" "$t_apply" "$t_noop" "$t_destroy" "$rss" "$size"
  rm -rf "$dir"
done
