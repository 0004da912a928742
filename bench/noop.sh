#!/usr/bin/env bash
# Compares pier binaries on a deployment of N stateful memo resources in
# one state_file: a no-op apply, and an apply that changes one resource.
# Runs alternate between the binaries, so that a shared machine's load
# falls on all of them alike; it prints medians of wall time and of CPU
# time (user + system, pier and its providers together).
#
#   bench/noop.sh [-n N] [-r RUNS] PIER [PIER ...]
#
# e.g. git worktree add /tmp/before OLDREV && (cd /tmp/before && go build
# -o /tmp/pier-before ./cmd/pier) && bench/noop.sh /tmp/pier-before bin/pier
# Nothing here is a test: it prints a table.
set -euo pipefail
n=10000 runs=7
while getopts n:r: opt; do
  case $opt in
    n) n=$OPTARG ;;
    r) runs=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: bench/noop.sh [-n N] [-r RUNS] PIER [PIER ...]" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
k=0
for b in "$@"; do
  k=$((k + 1))
  d=$work/$k
  mkdir -p "$d"
  cat > "$d/bench.pier.hcl" <<HCL
provider "local" { builtin = "local" }
variable "v" { default = "0" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "m" {
  count    = $n
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = count.index == 5 ? "changed-\${var.v}" : "value-\${count.index}" }
}
HCL
  "$b" apply --dir "$d" >/dev/null 2>&1
done
timed() { # timed LABEL CMD... -> appends "LABEL wall cpu"
  local label=$1
  shift
  /usr/bin/time -o "$work/t" -f '%e %U %S' "$@" >/dev/null 2>&1
  read -r e u s < "$work/t"
  echo "$label $e $(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')" >> "$work/results"
}
for r in $(seq 1 "$runs"); do
  k=0
  for b in "$@"; do
    k=$((k + 1))
    timed "$k noop" "$b" apply --dir "$work/$k"
    timed "$k change" "$b" apply --dir "$work/$k" --var "v=$r"
    "$b" apply --dir "$work/$k" >/dev/null 2>&1 # back to the no-op state
  done
done
printf '%-40s %-7s %-12s %-12s\n' binary run wall_median cpu_median
k=0
for b in "$@"; do
  k=$((k + 1))
  for run in noop change; do
    wall=$(awk -v k="$k" -v r="$run" '$1==k && $2==r {print $3}' "$work/results" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
    cpu=$(awk -v k="$k" -v r="$run" '$1==k && $2==r {print $4}' "$work/results" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
    printf '%-40s %-7s %-12s %-12s\n' "$b" "$run" "$wall" "$cpu"
  done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
