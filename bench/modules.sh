#!/usr/bin/env bash
# Plan time of no-op plans with modules, for issue 23's figures:
#   flat     1000 memo resources written flat (count = 1000)
#   mod100   the same 1000 memos as 100 module instances of 10 each
#   modN     N module instances (count = N) of one memo each, for
#            N = 250, 500, 1000: the cost must grow linearly with N
# Each deployment is applied once; then the no-op plans run alternately,
# RUNS rounds, so a shared machine's load falls on all of them alike. It
# prints the median wall and CPU time (user + system, pier and its
# providers) of each. Nothing here is a test: it prints a table.
#
#   bench/modules.sh [-r RUNS] [PIER]
set -euo pipefail
runs=5
while getopts r: opt; do
  case $opt in
    r) runs=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
pier=${1:-}
if [ -z "$pier" ]; then
  go build -tags urfave_cli_no_docs,grpcnotrace -o bin/pier ./cmd/pier
  pier=$PWD/bin/pier
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

head() {
  cat <<HCL
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
HCL
}
module_files() { # module_files DIR COUNT: a module of COUNT memos
  mkdir -p "$1/mod"
  cat >"$1/mod/main.pier.hcl" <<HCL
variable "state" {}
variable "name" { type = string }
resource "m" {
  count    = $2
  provider = provider.local
  type     = "memo"
  state    = var.state
  inputs   = { initialize_with = "\${var.name}-\${count.index}" }
}
HCL
}
module_call() { # module_call COUNT
  cat <<HCL
module "site" {
  source    = "./mod"
  count     = $1
  name      = "site-\${count.index}"
  state     = resource.state
  providers = { local = provider.local }
}
HCL
}

labels=(flat mod100 mod250 mod500 mod1000)
mkdir -p "$work/flat"
{ head; cat <<HCL
resource "m" {
  count    = 1000
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "site-\${floor(count.index / 10)}-\${count.index % 10}" }
}
HCL
} >"$work/flat/main.pier.hcl"
mkdir -p "$work/mod100"
module_files "$work/mod100" 10
{ head; module_call 100; } >"$work/mod100/main.pier.hcl"
for n in 250 500 1000; do
  mkdir -p "$work/mod$n"
  module_files "$work/mod$n" 1
  { head; module_call "$n"; } >"$work/mod$n/main.pier.hcl"
done
for l in "${labels[@]}"; do
  "$pier" apply --yes --dir "$work/$l" >/dev/null 2>&1 || { echo "bench: apply of $l failed" >&2; "$pier" apply --yes --dir "$work/$l" | tail -5; exit 1; }
done
for r in $(seq 1 "$runs"); do
  for l in "${labels[@]}"; do
    /usr/bin/time -o "$work/t" -f '%e %U %S' "$pier" plan --detailed-exitcode --dir "$work/$l" >/dev/null 2>&1 ||
      { echo "bench: plan of $l is not a no-op" >&2; exit 1; }
    read -r e u s <"$work/t"
    echo "$l $e $(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')" >>"$work/results"
  done
done
med() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
printf '%-8s %-12s %-12s\n' case wall_median cpu_median
for l in "${labels[@]}"; do
  printf '%-8s %-12s %-12s\n' "$l" \
    "$(awk -v l="$l" '$1==l {print $2}' "$work/results" | med)" \
    "$(awk -v l="$l" '$1==l {print $3}' "$work/results" | med)"
done
echo "runs: $runs; load: $(cut -d' ' -f1-3 /proc/loadavg)"
