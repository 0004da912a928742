#!/usr/bin/env bash
# Side by side: pier and OpenTofu driving the same terraform-provider-time
# v0.14.2 binary on N time_static resources (count = N), every row of the
# table in issue 25: fresh plan, fresh apply, no-op apply, plan --refresh
# of the applied deployment (against `tofu plan`, which refreshes), destroy,
# the peak RSS of the tool's own processes, and the tool's own CPU against
# the provider's on the fresh apply; then the peak RSS of each process kind
# separately.
#
#   bench/vs-tofu.sh [-r REPS] [N ...]   (default: -r 5, N = 1000)
#   PIER=/tmp/pier-old bench/vs-tofu.sh  (a pier built elsewhere, e.g. from
#                                        an older commit)
#
# OpenTofu 1.12.6 is built from the Go module proxy once, into
# ${XDG_CACHE_HOME:-~/.cache}/pier-bench (never into the repository). Its
# go.mod has a replace directive, so `go install pkg@version` refuses it:
# the script downloads the module and builds cmd/tofu inside it (without
# release ldflags, so `tofu version` says 1.12.6-dev). tofu gets
# the provider from a filesystem mirror holding bin/tfproviders'
# terraform-provider-time, so `tofu init` downloads nothing; init runs
# before the timed runs and is not counted.
#
# Each repetition runs pier's five commands then tofu's, swapping the
# order every other repetition, so that load from elsewhere on the machine
# falls on both. The SDK's logging is off for both (TF_LOG_SDK,
# TF_LOG_SDK_PROTO, TF_LOG_SDK_FRAMEWORK, TF_LOG_PROVIDER). Both use their
# default parallelism. Every command runs under bench/procpeak, which gives
# its wall-clock time, its CPU (user + system of the command and every
# descendant it waited for, exact from wait4), and per kind of process
# (the command; `pier adapter terraform`, the bridges; `pier tf hold`;
# `pier adapter local`; the provider) the largest VmHWM and the summed
# CPU, read from /proc every 10 ms while they run, and the anonymous part
# of the resident set (RssAnon: the rest is file pages, mostly the
# executable's, which every process of the same binary shares). "Own" is everything but
# the provider: own RSS is the largest VmHWM of the tool's own processes
# (tofu has one), own CPU is the exact total less the provider's. Every
# figure is the median of the runs; the peak RSS rows take the largest
# median over the five commands. Each repetition runs the five commands
# twice, on fresh deployments: once only timed, for the wall rows, and
# once watched, for the RSS and per-kind CPU, because watching costs CPU
# that slows pier's tree of processes more than tofu's (bench/procpeak
# says how much). The load average is printed with the
# results: on a busy machine the ratios mean more than the seconds. Not
# run in CI; nothing here is a test.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
. bench/lib.sh
TOFU_VERSION=v1.12.6
TIME_VERSION=0.14.2
cache=${XDG_CACHE_HOME:-$HOME/.cache}/pier-bench
TOFU=$cache/tofu-$TOFU_VERSION/tofu
REPS=${REPS:-5}
while getopts r: opt; do
  case $opt in
  r) REPS=$OPTARG ;;
  *) echo "usage: bench/vs-tofu.sh [-r REPS] [N ...]" >&2; exit 64 ;;
  esac
done
shift $((OPTIND - 1))
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000)

if [ -n "${PIER:-}" ]; then
  pier_version=$PIER
else
  go build -tags urfave_cli_no_docs,grpcnotrace -o bin/pier ./cmd/pier
  PIER=$repo/bin/pier
  pier_version=$(git -C "$repo" describe --always --dirty 2>/dev/null || echo '?')
fi
# Only terraform-provider-time is needed: building it alone spares make
# tfproviders' openstack build in a fresh worktree.
PROVIDER=$repo/bin/tfproviders/terraform-provider-time
if [ ! -x "$PROVIDER" ]; then
  GOBIN=$repo/bin/tfproviders go install "github.com/hashicorp/terraform-provider-time@v$TIME_VERSION"
fi

if [ ! -x "$TOFU" ]; then
  echo "bench: building OpenTofu $TOFU_VERSION into $TOFU (once, about 20 minutes on two loaded cores)" >&2
  src=$(go mod download -json "github.com/opentofu/opentofu@$TOFU_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$src" ] || { echo "bench: go mod download of opentofu failed" >&2; exit 1; }
  mkdir -p "$(dirname "$TOFU")"
  (cd "$src" && go build -trimpath -o "$TOFU" ./cmd/tofu)
fi

# tofu finds the provider in an unpacked filesystem mirror; the CLI
# configuration forbids any other installation method, so a mistake here
# fails instead of downloading.
mirror=$cache/mirror
plat=$(go env GOOS)_$(go env GOARCH)
mkdir -p "$mirror/registry.opentofu.org/hashicorp/time/$TIME_VERSION/$plat"
cp -f "$PROVIDER" "$mirror/registry.opentofu.org/hashicorp/time/$TIME_VERSION/$plat/terraform-provider-time_v$TIME_VERSION"
cliconf=$cache/tofurc
cat >"$cliconf" <<CONF
provider_installation {
  filesystem_mirror {
    path    = "$mirror"
    include = ["registry.opentofu.org/hashicorp/time"]
  }
}
CONF
export TF_CLI_CONFIG_FILE=$cliconf TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
export TF_LOG_SDK=off TF_LOG_SDK_PROTO=off TF_LOG_SDK_FRAMEWORK=off TF_LOG_PROVIDER=off
unset TF_LOG TF_PLUGIN_CACHE_DIR PIER_CPUPROFILE PIER_MEMPROFILE

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/procpeak" ./bench/procpeak

# measure OUT CMD...: runs CMD in the current directory under procpeak,
# which appends its line (wall=, cpu=, KIND.rss=, KIND.cpu=) to OUT. With
# WATCH=false procpeak only times it (wall=, cpu=): see run_pier.
measure() {
  local out=$1
  shift
  if ! "$work/procpeak" -watch="${WATCH:-true}" -o "$out" -- "$@" >"$work/cmd.out" 2>"$work/cmd.err" </dev/null; then
    echo "bench: $* failed in $PWD:" >&2
    tail -n 20 "$work/cmd.out" "$work/cmd.err" >&2
    exit 1
  fi
}

pier_dir() { # pier_dir DIR N
  mkdir -p "$1"
  ln -sf "$PROVIDER" "$1/terraform-provider-time"
  time_static_deployment "$1" "$2"
}

tofu_dir() { # tofu_dir DIR N
  mkdir -p "$1"
  cat >"$1/main.tf" <<TF
terraform {
  required_providers {
    time = { source = "hashicorp/time", version = "$TIME_VERSION" }
  }
}
resource "time_static" "t" {
  count    = $2
  triggers = { index = count.index }
}
TF
  (cd "$1" && "$TOFU" init -input=false >"$work/init.out" 2>&1) || {
    cat "$work/init.out" >&2
    exit 1
  }
}

runs=(plan apply noop refresh destroy)
declare -A label=(
  [plan]="fresh plan" [apply]="fresh apply" [noop]="no-op apply"
  [refresh]="plan --refresh, applied" [destroy]="destroy"
)
declare -A goal=(
  [plan]="≤ 0.50" [apply]="≤ 0.50" [noop]="≤ 0.02" [refresh]="≤ 0.30" [destroy]="≤ 0.25"
)

# run_pier N REP and run_tofu N REP run the five commands on a fresh
# deployment twice: first only timed (WATCH=false; the wall rows come from
# these runs), then watched (RSS and CPU per kind). procpeak's reading of
# /proc every 10 ms costs CPU that slows down what it watches, pier's tree
# of eight processes more than tofu's two (see bench/procpeak), so wall
# times are never taken from a watched run.
run_pier() { # run_pier N REP
  WATCH=false run_pier_once "$1" "$2" timed
  run_pier_once "$1" "$2" watched
}

run_tofu() { # run_tofu N REP
  WATCH=false run_tofu_once "$1" "$2" timed
  run_tofu_once "$1" "$2" watched
}

run_pier_once() { # run_pier_once N REP MODE
  local d=$work/pier-$1-$2 o=$work/pier-$1-$3
  pier_dir "$d" "$1"
  (cd "$d" &&
    measure "$o-plan" "$PIER" plan --dir . &&
    measure "$o-apply" "$PIER" apply --dir . &&
    measure "$o-noop" "$PIER" apply --dir . &&
    measure "$o-refresh" "$PIER" plan --dir . --refresh &&
    measure "$o-destroy" "$PIER" destroy --dir . --yes)
  rm -rf "$d"
}

run_tofu_once() { # run_tofu_once N REP MODE
  local d=$work/tofu-$1-$2 o=$work/tofu-$1-$3
  tofu_dir "$d" "$1"
  (cd "$d" &&
    measure "$o-plan" "$TOFU" plan -input=false &&
    measure "$o-apply" "$TOFU" apply -input=false -auto-approve &&
    measure "$o-noop" "$TOFU" apply -input=false -auto-approve &&
    measure "$o-refresh" "$TOFU" plan -input=false &&
    measure "$o-destroy" "$TOFU" destroy -input=false -auto-approve)
  rm -rf "$d"
}

# value FILE EXPR: per line of FILE, EXPR evaluated by awk over the
# line's fields in f[KEY] (0 when absent); KIND.rss are KiB.
value() {
  awk -v expr="$2" '
    {
      delete f
      for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
      prov_rss = 0; prov_anon = 0; prov_cpu = 0; own_rss = 0
      for (k in f) {
        if (k ~ /^terraform-provider-.*\.rss$/) prov_rss = (f[k] > prov_rss) ? f[k] : prov_rss
        else if (k ~ /^terraform-provider-.*\.anon$/) prov_anon = (f[k] > prov_anon) ? f[k] : prov_anon
        else if (k ~ /^terraform-provider-.*\.cpu$/) prov_cpu += f[k]
        else if (k ~ /\.rss$/ && f[k] > own_rss) own_rss = f[k]
      }
      if (expr == "wall") print f["wall"] + 0
      else if (expr == "own_rss") print own_rss
      else if (expr == "prov_rss") print prov_rss
      else if (expr == "prov_anon") print prov_anon
      else if (expr == "prov_cpu") print prov_cpu
      else if (expr == "own_cpu") print f["cpu"] - prov_cpu
      else print f[expr] + 0
    }' "$1"
}

med() { # med FILE EXPR: the median of value FILE EXPR
  value "$1" "$2" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
maxof() { printf '%s\n' "$@" | sort -g | tail -n 1; }

echo "pier $pier_version, OpenTofu $TOFU_VERSION, terraform-provider-time v$TIME_VERSION, $REPS runs each, $(nproc) cores"
for n in "${sizes[@]}"; do
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  for rep in $(seq "$REPS"); do
    if [ $((rep % 2)) -eq 1 ]; then
      run_pier "$n" "$rep"
      run_tofu "$n" "$rep"
    else
      run_tofu "$n" "$rep"
      run_pier "$n" "$rep"
    fi
  done
  P=$work/pier-$n-watched T=$work/tofu-$n-watched
  echo
  echo "N = $n, medians of $REPS alternating runs; load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after"
  printf '%-36s %10s %10s %10s %8s\n' run pier tofu pier/tofu goal
  for run in "${runs[@]}"; do
    p=$(med "$work/pier-$n-timed-$run" wall) t=$(med "$work/tofu-$n-timed-$run" wall)
    printf '%-36s %9ss %9ss %10s %8s\n' "${label[$run]}" "$p" "$t" "$(ratio "$p" "$t")" "${goal[$run]}"
  done
  pr=() tr=()
  for run in "${runs[@]}"; do
    pr+=("$(med "$P-$run" own_rss)") tr+=("$(med "$T-$run" own_rss)")
  done
  p=$(maxof "${pr[@]}") t=$(maxof "${tr[@]}")
  printf '%-36s %7sMiB %7sMiB %10s %8s\n' "peak RSS, own processes (largest)" "$(mib "$p")" "$(mib "$t")" "$(ratio "$p" "$t")" "≤ 0.30"
  po=$(med "$P-apply" own_cpu) pp=$(med "$P-apply" prov_cpu)
  to=$(med "$T-apply" own_cpu) tp=$(med "$T-apply" prov_cpu)
  printf '%-36s %9s× %9s× %10s %8s\n' "own CPU / provider CPU, apply" "$(ratio "$po" "$pp")" "$(ratio "$to" "$tp")" "" "≤ 0.50"
  printf '  (fresh apply CPU: pier own %ss, its provider %ss; tofu own %ss, its provider %ss)\n' "$po" "$pp" "$to" "$tp"

  for metric in rss anon; do
    echo
    if [ $metric = rss ]; then
      echo "peak RSS per process kind, MiB (largest VmHWM of the kind's processes, median of $REPS)"
    else
      echo "of which anonymous, MiB (largest RssAnon; the rest is file pages, mostly the executable's, shared)"
    fi
    printf '%-34s' kind
    for run in "${runs[@]}"; do printf ' %8s' "$run"; done
    echo
    for k in "pier command:command" "pier bridges (adapter terraform):terraform" "pier holder (tf hold):hold" \
      "pier local adapter:local" "pier's provider:prov" "tofu:tofu command" "tofu's provider:tofu prov"; do
      name=${k%%:*} key=${k#*:} f=$P
      case $key in tofu\ *) f=$T key=${key#tofu } ;; esac
      if [ "$key" = prov ]; then key=prov_$metric; else key=$key.$metric; fi
      printf '%-34s' "$name"
      for run in "${runs[@]}"; do printf ' %8s' "$(mib "$(med "$f-$run" "$key")")"; done
      echo
    done
  done
  echo
  echo "CPU per process kind on the fresh apply, seconds (median of $REPS)"
  for k in command terraform hold local; do
    printf '  pier %-10s %6ss\n' "$k" "$(med "$P-apply" "$k.cpu")"
  done
  printf '  pier %-10s %6ss\n' provider "$(med "$P-apply" prov_cpu)"
  printf '  tofu %-10s %6ss\n' command "$(med "$T-apply" command.cpu)" provider "$(med "$T-apply" prov_cpu)"
done
