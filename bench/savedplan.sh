#!/usr/bin/env bash
# Measures what a saved plan costs: N bridged time_static creates (count =
# N) in one state_file, `pier plan -out FILE` wall time, then `pier apply
# FILE` wall time, with the number of PlanResourceChange requests
# terraform-provider-time received in each (from its own trace log).
# Compare pier binaries (e.g. before and after a change):
#
#   bench/savedplan.sh [N] [PIER_BINARY ...]
#
# Defaults: N=1000, the binary built from this tree. Wall-clock seconds of
# the whole pier process, as a user sees them. Nothing here is a test: it
# prints a table.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
shift || true
. bench/lib.sh
pier_bins "$@"

# plans LOG -> the PlanResourceChange requests in LOG, which is then emptied.
plans() {
  local c
  c=$(grep '"Received request"' "$1" | grep -c '"tf_rpc":"PlanResourceChange"' || true)
  : >"$1"
  echo "$c"
}

printf '%-40s %-6s %-10s %-12s %-10s %-12s\n' pier N plan_out_s plan_prc apply_s apply_prc
for pier in "${bins[@]}"; do
  dir=$(mktemp -d)
  log=$dir/tf.log
  : >"$log"
  printf '#!/bin/sh\nexport TF_LOG=trace TF_LOG_SDK=trace TF_LOG_SDK_PROTO=trace\nexec %q "$@" 2>>%q\n' "$REAL" "$log" >"$dir/terraform-provider-time"
  chmod +x "$dir/terraform-provider-time"
  time_static_deployment "$dir" "$n"
  t_plan=$(wall "$pier" plan --dir "$dir" -out "$dir/plan.json")
  p_plan=$(plans "$log")
  t_apply=$(wall "$pier" apply "$dir/plan.json")
  p_apply=$(plans "$log")
  printf '%-40s %-6s %-10s %-12s %-10s %-12s\n' "$pier" "$n" "$t_plan" "$p_plan" "$t_apply" "$p_apply"
  rm -rf "$dir"
done
