#!/usr/bin/env bash
# Side by side: pier and OpenTofu driving the same terraform-provider-time
# v0.14.2 binary on N time_static resources (count = N): fresh apply,
# no-op apply, destroy, peak RSS of the largest process, and the CPU of the
# whole process tree.
#
#   bench/vs-tofu.sh [N ...]          (default: 100 1000)
#   REPS=5 bench/vs-tofu.sh 1000      (runs per tool and size; default 5)
#   PIER=/tmp/pier-old bench/vs-tofu.sh 1000   (a pier built elsewhere,
#                                     e.g. from an older commit)
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
# Each repetition runs pier's three commands then tofu's, swapping the
# order every other repetition, so that load from elsewhere on the machine
# falls on both. The SDK's logging is off for both (TF_LOG_SDK,
# TF_LOG_SDK_PROTO, TF_LOG_SDK_FRAMEWORK, TF_LOG_PROVIDER). Both use their
# default parallelism. Times are wall-clock seconds of the command; peak
# RSS is GNU time's maximum resident set size, which for a process tree
# is that of its largest process; CPU is user + system of the command and
# all its waited-for descendants (bridges and providers). The load average
# is printed with the results: on a busy machine the ratios mean more than
# the seconds. Not run in CI; nothing here is a test.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
. bench/lib.sh
TOFU_VERSION=v1.12.6
TIME_VERSION=0.14.2
cache=${XDG_CACHE_HOME:-$HOME/.cache}/pier-bench
TOFU=$cache/tofu-$TOFU_VERSION/tofu
REPS=${REPS:-5}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100 1000)

if [ -n "${PIER:-}" ]; then
  pier_version=$PIER
else
  go build -o bin/pier ./cmd/pier
  PIER=$repo/bin/pier
  pier_version=$(git -C "$repo" describe --always --dirty 2>/dev/null || echo '?')
fi
make -s tfproviders >/dev/null
PROVIDER=$repo/bin/tfproviders/terraform-provider-time

if [ ! -x "$TOFU" ]; then
  echo "bench: building OpenTofu $TOFU_VERSION into $TOFU (once)" >&2
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
cat >"$cliconf" <<EOF
provider_installation {
  filesystem_mirror {
    path    = "$mirror"
    include = ["registry.opentofu.org/hashicorp/time"]
  }
}
EOF
export TF_CLI_CONFIG_FILE=$cliconf TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
export TF_LOG_SDK=off TF_LOG_SDK_PROTO=off TF_LOG_SDK_FRAMEWORK=off TF_LOG_PROVIDER=off
unset TF_LOG TF_PLUGIN_CACHE_DIR

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# measure OUT CMD...: runs CMD in the current directory and appends
# "seconds rss_kib cpu_seconds" to OUT.
measure() {
  local out=$1 t=$work/time
  shift
  if ! /usr/bin/time -o "$t" -f '%e %M %U %S' "$@" >"$work/cmd.out" 2>"$work/cmd.err"; then
    echo "bench: $* failed in $PWD:" >&2
    tail -n 20 "$work/cmd.out" "$work/cmd.err" >&2
    exit 1
  fi
  awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$t" >>"$out"
}

pier_dir() { # pier_dir DIR N
  mkdir -p "$1"
  ln -sf "$PROVIDER" "$1/terraform-provider-time"
  time_static_deployment "$1" "$2"
}

tofu_dir() { # tofu_dir DIR N
  mkdir -p "$1"
  cat >"$1/main.tf" <<EOF
terraform {
  required_providers {
    time = { source = "hashicorp/time", version = "$TIME_VERSION" }
  }
}
resource "time_static" "t" {
  count    = $2
  triggers = { index = count.index }
}
EOF
  (cd "$1" && "$TOFU" init -input=false >"$work/init.out" 2>&1) || {
    cat "$work/init.out" >&2
    exit 1
  }
}

run_pier() { # run_pier N REP
  local d=$work/pier-$1-$2
  pier_dir "$d" "$1"
  (cd "$d" &&
    measure "$work/pier-$1-apply" "$PIER" apply --dir . &&
    measure "$work/pier-$1-noop" "$PIER" apply --dir . &&
    measure "$work/pier-$1-destroy" "$PIER" destroy --dir . --yes)
  rm -rf "$d"
}

run_tofu() { # run_tofu N REP
  local d=$work/tofu-$1-$2
  tofu_dir "$d" "$1"
  (cd "$d" &&
    measure "$work/tofu-$1-apply" "$TOFU" apply -input=false -auto-approve &&
    measure "$work/tofu-$1-noop" "$TOFU" apply -input=false -auto-approve &&
    measure "$work/tofu-$1-destroy" "$TOFU" destroy -input=false -auto-approve)
  rm -rf "$d"
}

column_median() { # column_median FILE COLUMN
  awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }'; }

echo "pier $pier_version, OpenTofu $TOFU_VERSION, terraform-provider-time v$TIME_VERSION, $REPS runs each, $(nproc) cores"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for n in "${sizes[@]}"; do
  for rep in $(seq "$REPS"); do
    if [ $((rep % 2)) -eq 1 ]; then
      run_pier "$n" "$rep"
      run_tofu "$n" "$rep"
    else
      run_tofu "$n" "$rep"
      run_pier "$n" "$rep"
    fi
  done
  echo
  echo "N = $n (medians of $REPS; load average now $(cut -d' ' -f1-3 /proc/loadavg))"
  printf '%-14s %10s %10s %12s\n' run pier tofu pier/tofu
  for run in apply noop destroy; do
    p=$(column_median "$work/pier-$n-$run" 1)
    t=$(column_median "$work/tofu-$n-$run" 1)
    printf '%-14s %9ss %9ss %12s\n' "$run" "$p" "$t" "$(ratio "$p" "$t")"
  done
  pr=0 tr=0
  for run in apply noop destroy; do
    pr=$(awk -v a="$pr" -v b="$(column_median "$work/pier-$n-$run" 2)" 'BEGIN { print (b > a) ? b : a }')
    tr=$(awk -v a="$tr" -v b="$(column_median "$work/tofu-$n-$run" 2)" 'BEGIN { print (b > a) ? b : a }')
  done
  printf '%-14s %7sMiB %7sMiB %12s\n' "peak RSS" $((pr / 1024)) $((tr / 1024)) "$(ratio "$pr" "$tr")"
  for run in apply noop destroy; do
    p=$(column_median "$work/pier-$n-$run" 3)
    t=$(column_median "$work/tofu-$n-$run" 3)
    printf '%-14s %9ss %9ss %12s\n' "cpu $run" "$p" "$t" "$(ratio "$p" "$t")"
  done
done
