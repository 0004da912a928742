#!/usr/bin/env bash
# Measures what plan-time provider calls cost: N bridged time_static
# creates (count = N) in one state_file, fresh `pier plan` and fresh
# `pier apply` wall time, and the number of terraform-provider-time starts
# each made. Compare two pier binaries (e.g. before and after a change):
#
#   bench/plancost.sh [-r RUNS] [N] [PIER_BINARY ...]
#
# Defaults: N=1000, one run, the binary built from this tree. Each figure
# is the median of RUNS runs, in wall-clock seconds of the whole pier
# process, as a user sees them. Nothing here is a test: it prints a table.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=1
if [ "${1:-}" = "-r" ]; then runs=$2; shift 2; fi
n=${1:-1000}
shift || true
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
  go build -o bin/pier ./cmd/pier
  bins=("$PWD/bin/pier")
fi
make -s tfproviders >/dev/null
REAL=$PWD/bin/tfproviders/terraform-provider-time

# wall CMD... -> seconds; fails loudly when pier fails.
wall() {
  local t
  t=$(mktemp)
  if ! /usr/bin/time -o "$t" -f '%e' "$@" >"$t.out" 2>"$t.err"; then
    echo "bench: $* failed:" >&2
    tail -n 20 "$t.out" "$t.err" >&2
    exit 1
  fi
  cat "$t"
  rm -f "$t" "$t.out" "$t.err"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '%-40s %-6s %-8s %-12s %-8s %-12s\n' pier N plan_s plan_starts apply_s apply_starts
for pier in "${bins[@]}"; do
  plans=() applies=()
  for _ in $(seq "$runs"); do
    dir=$(mktemp -d)
    starts=$dir/starts
    : >"$starts"
    printf '#!/bin/sh\necho start >> %q\nexec %q "$@"\n' "$starts" "$REAL" >"$dir/terraform-provider-time"
    chmod +x "$dir/terraform-provider-time"
    cat >"$dir/bench.pier.hcl" <<HCL
provider "local" { builtin = "local" }
provider "time" { terraform = "./terraform-provider-time" }
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
  inputs   = { triggers = { index = "\${count.index}" } }
}
HCL
    plans+=("$(wall "$pier" plan --dir "$dir")")
    s_plan=$(wc -l <"$starts")
    applies+=("$(wall "$pier" apply --dir "$dir")")
    s_apply=$(( $(wc -l <"$starts") - s_plan ))
    rm -rf "$dir"
  done
  printf '%-40s %-6s %-8s %-12s %-8s %-12s\n' "$pier" "$n" \
    "$(printf '%s\n' "${plans[@]}" | median)" "$s_plan" \
    "$(printf '%s\n' "${applies[@]}" | median)" "$s_apply"
done
