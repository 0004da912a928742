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
. bench/lib.sh
pier_bins "$@"

printf '%-40s %-6s %-8s %-12s %-8s %-12s\n' pier N plan_s plan_starts apply_s apply_starts
for pier in "${bins[@]}"; do
  plans=() applies=()
  for _ in $(seq "$runs"); do
    dir=$(mktemp -d)
    starts=$dir/starts
    : >"$starts"
    printf '#!/bin/sh\necho start >> %q\nexec %q "$@"\n' "$starts" "$REAL" >"$dir/terraform-provider-time"
    chmod +x "$dir/terraform-provider-time"
    time_static_deployment "$dir" "$n"
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
