#!/usr/bin/env bash
# Measures pier's engine driving a real Terraform provider through the
# bridge: N bridged time_static resources (count = N) in one state_file.
# Fresh apply, no-op re-apply, destroy, the number of
# terraform-provider-time processes each run started, peak RSS, and the
# CPU pier itself used against the CPU of the Terraform provider.
#
#   bench/terraform.sh [N ...]        (default: 1000)
#
# Times are wall-clock seconds of the whole pier process, as a user sees
# them. Peak RSS is GNU time's maximum resident set size of pier and its
# waited-for descendants (the bridges and providers it starts), whichever
# single process is largest; provider_MiB is the largest Terraform
# provider process's own, from the wrapper below. Provider starts are counted by a wrapper that
# appends a line to a file and then execs the real provider; a command
# should start it once (pier tf hold, shared by the input check and every
# bridge) or, when nothing changes, not at all. The same
# wrapper runs the provider under GNU time, which appends the provider's
# user + system CPU to a file when it exits; pier's own CPU (the main
# process, its bridges and state handlers) is the whole tree's CPU less
# the providers'. The second table gives both per command, in seconds, and
# pier's share as a percentage of the provider's. It builds pier and the
# providers into bin/ first. Nothing here is a test: it prints tables.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
go build -tags urfave_cli_no_docs,grpcnotrace -o bin/pier ./cmd/pier
make -s tfproviders >/dev/null
PIER=$PWD/bin/pier
REAL=$PWD/bin/tfproviders/terraform-provider-time
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000)

measure() { # measure CMD... -> prints "seconds rss_kib cpu_seconds"
  local t
  t=$(mktemp)
  if ! /usr/bin/time -o "$t" -f '%e %M %U %S' "$@" >"$t.out" 2>"$t.err"; then
    echo "bench: $* failed:" >&2
    tail -n 20 "$t.out" "$t.err" >&2
    exit 1
  fi
  awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$t"
  rm -f "$t" "$t.out" "$t.err"
}

# provider_cpu FILE: the CPU seconds the provider processes recorded so
# far, and how many recorded (a provider killed before it exits records
# nothing, and the count then falls short of the starts).
provider_cpu() { awk '{ s += $1 + $2; n++ } END { printf "%.2f %d\n", s, n }' "$1"; }

# provider_rss FILE: the largest peak RSS (MiB) a provider process recorded.
provider_rss() { awk '$3 > m { m = $3 } END { printf "%d\n", m / 1024 }' "$1"; }

cpu_rows=()
cpu_row() { # cpu_row N RUN TREE_CPU PROV_CPU_BEFORE PROV_CPU_NOW RECORDED_BEFORE RECORDED_NOW STARTS
  local p n
  p=$(awk -v a="$5" -v b="$4" 'BEGIN { printf "%.2f", a - b }')
  n=$(($7 - $6))
  cpu_rows+=("$(awk -v N="$1" -v run="$2" -v tree="$3" -v prov="$p" -v rec="$n" -v starts="$8" 'BEGIN {
    own = tree - prov
    printf "%-6s %-8s %-10.2f %-12.2f %-10.2f %-8s %s/%s", N, run, tree, prov, own, (prov > 0) ? sprintf("%.0f%%", 100 * own / prov) : "-", rec, starts }')")
}

printf '%-6s %-9s %-7s %-8s %-7s %-11s %-7s %-13s %-13s %-9s\n' \
  N apply_s starts noop_s starts destroy_s starts peak_rss_MiB provider_MiB state_KiB
for n in "${sizes[@]}"; do
  dir=$(mktemp -d)
  starts=$dir/starts
  : >"$starts"
  cpu=$dir/provider-cpu
  : >"$cpu"
  printf '#!/bin/sh\necho start >> %q\nexec /usr/bin/time -a -o %q -f "%%U %%S %%M" %q "$@"\n' "$starts" "$cpu" "$REAL" >"$dir/terraform-provider-time"
  chmod +x "$dir/terraform-provider-time"
  time_static_deployment "$dir" "$n"
  count() { wc -l <"$starts" | tr -d ' '; }
  read -r t_apply rss1 c_apply < <(measure "$PIER" apply --dir "$dir")
  s_apply=$(count)
  p0=0 n0=0
  read -r p1 n1 < <(provider_cpu "$cpu")
  cpu_row "$n" apply "$c_apply" "$p0" "$p1" "$n0" "$n1" "$s_apply"
  size=$(( $(stat -c %s "$dir/state.json") / 1024 ))
  read -r t_noop rss2 c_noop < <(measure "$PIER" apply --dir "$dir")
  s_noop=$(( $(count) - s_apply ))
  read -r p2 n2 < <(provider_cpu "$cpu")
  cpu_row "$n" noop "$c_noop" "$p1" "$p2" "$n1" "$n2" "$s_noop"
  read -r t_destroy rss3 c_destroy < <(measure "$PIER" destroy --dir "$dir" --yes)
  s_destroy=$(( $(count) - s_apply - s_noop ))
  read -r p3 n3 < <(provider_cpu "$cpu")
  cpu_row "$n" destroy "$c_destroy" "$p2" "$p3" "$n2" "$n3" "$s_destroy"
  rss=$(( (rss1 > rss2 ? (rss1 > rss3 ? rss1 : rss3) : (rss2 > rss3 ? rss2 : rss3)) / 1024 ))
  printf '%-6s %-9s %-7s %-8s %-7s %-11s %-7s %-13s %-13s %-9s\n' \
    "$n" "$t_apply" "$s_apply" "$t_noop" "$s_noop" "$t_destroy" "$s_destroy" "$rss" "$(provider_rss "$cpu")" "$size"
  rm -rf "$dir"
done
echo
echo "CPU seconds (load average $(cut -d' ' -f1-3 /proc/loadavg)); pier = whole tree - providers; recorded = providers that reported / started"
printf '%-6s %-8s %-10s %-12s %-10s %-8s %s\n' N run tree_cpu provider_cpu pier_cpu pier/prov recorded
for r in "${cpu_rows[@]}"; do echo "$r"; done
