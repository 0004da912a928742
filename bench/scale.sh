#!/usr/bin/env bash
# pier at scale: N memo resources in one state handler (state_file, and
# pg_state on a throwaway PostgreSQL server), for issue 25's 100,000-resource
# figures. Half the memos are independent, a quarter read one of those and
# a quarter read one of that quarter, so planning settles outputs in three
# rounds. For each handler and N it measures:
#
#   apply    a fresh apply (once per N: it is slow and its cost is steady)
#   plan     `pier plan` with nothing changed
#   noop     `pier apply` with nothing changed
#   change   `pier apply` changing one memo's input (an in-place update)
#
# and prints medians of RUNS runs (the no-op and change runs alternate) of
# wall time, CPU (user + system of the whole process tree), CPU per
# resource, the CPU of the state handler's adapter kind (for state_file
# that is every `pier adapter local`, the memos' too), and the peak RSS
# (VmHWM) of the command and of the state handler's adapter process, read
# by bench/procpeak while they run. pg_state's PostgreSQL server is not
# in pier's process tree: its CPU is in none of the columns.
#
#   bench/scale.sh [-r RUNS] [-s HANDLERS] [N ...]
#     RUNS      default 5
#     HANDLERS  comma-separated, default state_file,pg_state
#     N         default 10000 50000 100000
#   PIER="/tmp/pier-old bin/pier" bench/scale.sh 10000
#       compares pier binaries: the first makes the fresh apply, then each
#       run measures each binary in turn on the same state, so that load
#       from elsewhere falls on all alike (rows are numbered by binary)
#   PROFILE=DIR bench/scale.sh 100000   (CPU and heap profiles of the last
#       run into DIR, K-HANDLER-N-RUN.cpu and .heap, K the binary's number)
#   KEEP=1 keeps the deployments, states and raw figures
#
# The PostgreSQL server (initdb + postgres from /usr/lib/postgresql/*/bin,
# as nobody when run as root) listens only on a Unix socket in a temporary
# directory, with PostgreSQL's default durability (fsync on), and is
# stopped at exit. Prints the load average with the results: the CPU and
# RSS columns mean more than wall time on a shared machine. Not run in CI;
# nothing here is a test.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=5 handlers=state_file,pg_state
while getopts r:s: opt; do
  case $opt in
    r) runs=$OPTARG ;;
    s) handlers=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 50000 100000)
if [ -z "${PIER:-}" ]; then
  go build -tags urfave_cli_no_docs,grpcnotrace -o bin/pier ./cmd/pier
  PIER=$PWD/bin/pier
fi
work=$(mktemp -d /tmp/pier-scale-XXXXXX)
go build -o "$work/procpeak" ./bench/procpeak
PEAK=$work/procpeak

pg_dir=
cleanup() {
  if [ -n "$pg_dir" ] && [ -f "$pg_dir/data/postmaster.pid" ]; then
    as_pg "$pg_bin/pg_ctl" stop -w -m fast -D "$pg_dir/data" >/dev/null 2>&1 || true
  fi
  [ -n "${KEEP:-}" ] && echo "bench: kept $work" >&2 && return
  rm -rf "$work" "$pg_dir"
}
trap cleanup EXIT

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}

start_pg() {
  pg_bin=${PIER_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)}
  pg_dir=$(mktemp -d /tmp/pier-pg-XXXXXX)
  [ "$(id -u)" = 0 ] && chown nobody "$pg_dir"
  as_pg "$pg_bin/initdb" -D "$pg_dir/data" -U postgres --auth-local=trust -E UTF8 >/dev/null 2>&1
  cat >>"$pg_dir/data/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$pg_dir'
EOF
  as_pg "$pg_bin/pg_ctl" start -w -t 120 -D "$pg_dir/data" -l "$pg_dir/server.log" >/dev/null
  export PGHOST=$pg_dir PGUSER=postgres PGDATABASE=postgres PGSSLMODE=disable
}

deployment() { # deployment DIR N HANDLER
  local q=$(($2 / 4))
  mkdir -p "$1"
  {
    echo 'provider "local" { builtin = "local" }'
    if [ "$3" = pg_state ]; then
      echo 'provider "pg" { builtin = "postgres" }'
      echo "resource \"state\" {
  provider = provider.pg
  type     = \"pg_state\"
  inputs   = { key = \"scale-$2-$(basename "$1")\" }
}"
    else
      echo 'resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}'
    fi
    cat <<HCL
variable "v" { default = "0" }
resource "a" {
  count    = $(($2 - 2 * q))
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = count.index == 5 ? "changed-\${var.v}" : "a-\${count.index}" }
}
resource "b" {
  count    = $q
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "b-\${resource.a[count.index].outputs.value}" }
}
resource "c" {
  count    = $q
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "c-\${resource.b[count.index].outputs.value}" }
}
HCL
  } >"$1/main.pier.hcl"
}

measure() { # measure OUT PIER-ARGS...
  local out=$1
  shift
  if ! "$PEAK" -o "$out" -- "$PIER" "$@" >"$work/cmd.out" 2>"$work/cmd.err"; then
    echo "bench: pier $* failed:" >&2
    tail -n 20 "$work/cmd.out" "$work/cmd.err" >&2
    exit 1
  fi
}

field() { # field FILE NAME -> the median of NAME=VALUE over FILE's lines
  awk -v k="$2" '{ for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$1" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

read -ra piers <<<"$PIER"
for p in "${piers[@]}"; do echo "pier: $p ($("$p" version 2>/dev/null | sed -n 2p))"; done
echo "$runs runs, $(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-3s %-10s %-7s %-7s %8s %8s %10s %9s %11s %11s %6s\n' pier handler N run wall_s cpu_s cpu_us/res hdl_cpu_s cmd_rss_MiB hdl_rss_MiB load1
IFS=, read -ra hs <<<"$handlers"
for h in "${hs[@]}"; do
  [ "$h" = pg_state ] && [ -z "$pg_dir" ] && start_pg
  adapter=local
  [ "$h" = pg_state ] && adapter=postgres
  for n in "${sizes[@]}"; do
    d=$work/$h-$n
    deployment "$d" "$n" "$h"
    r=$work/$h-$n.res
    PIER=${piers[0]} measure "$r.1.apply" apply --dir "$d" --yes
    # v is the input of the one memo the change run changes; plan and
    # noop run with the value last applied, so they change nothing.
    v=0
    for i in $(seq "$runs"); do
      for k in "${!piers[@]}"; do
        for run in plan noop change; do
          if [ -n "${PROFILE:-}" ] && [ "$i" = "$runs" ]; then
            mkdir -p "$PROFILE"
            export PIER_CPUPROFILE=$PROFILE/$((k + 1))-$h-$n-$run.cpu PIER_MEMPROFILE=$PROFILE/$((k + 1))-$h-$n-$run.heap
          fi
          case $run in
            plan) PIER=${piers[k]} measure "$r.$((k + 1)).plan" plan --dir "$d" --var "v=$v" ;;
            noop) PIER=${piers[k]} measure "$r.$((k + 1)).noop" apply --dir "$d" --yes --var "v=$v" ;;
            change)
              v=$((v + 1))
              PIER=${piers[k]} measure "$r.$((k + 1)).change" apply --dir "$d" --yes --var "v=$v"
              ;;
          esac
          unset PIER_CPUPROFILE PIER_MEMPROFILE
        done
      done
      echo "load1=$(cut -d' ' -f1 /proc/loadavg)" >>"$r.load"
    done
    for k in "${!piers[@]}"; do
      for run in apply plan noop change; do
        f=$r.$((k + 1)).$run
        [ -f "$f" ] || continue
        cpu=$(field "$f" cpu)
        printf '%-3s %-10s %-7s %-7s %8s %8s %10s %9s %11s %11s %6s\n' $((k + 1)) "$h" "$n" "$run" \
          "$(field "$f" wall)" "$cpu" \
          "$(awk -v c="$cpu" -v n="$n" 'BEGIN { printf "%.1f", c * 1e6 / n }')" \
          "$(field "$f" "$adapter.cpu")" \
          "$(awk -v k="$(field "$f" command.rss)" 'BEGIN { printf "%.0f", k / 1024 }')" \
          "$(awk -v k="$(field "$f" "$adapter.rss")" 'BEGIN { printf "%.0f", k / 1024 }')" \
          "$(field "$r.load" load1)"
      done
    done
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
