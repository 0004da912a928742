#!/usr/bin/env bash
# Kill -9 trials of interrupted creates: are the objects a killed apply
# made but never recorded silently created again by the next apply?
#
#   bench/killtrials.sh [TRIALS] [PIER]     (default: 30, bin/pier built here)
#
# Each trial applies 20 resources of the objects provider
# (cmd/pier/testdata/providers/objects.py: every object is a file outside
# pier's state, and each create takes 50 ms after making its object), four
# at a time; kills pier's whole process group with SIGKILL after a random
# 0.3-1.5 s; then applies again. It counts, per trial:
#   orphans   objects that exist but are not recorded after the kill
#   reported  orphans the re-apply named as a pending create
#   silent    objects the re-apply made a second copy of
# The last must be 0. Nothing here is a test: it prints a table and totals.
#
#   KILL=tfprovider bench/killtrials.sh [TRIALS] [PIER]
#   KILL=tfholder   bench/killtrials.sh [TRIALS] [PIER]
#
# kill, instead of pier, the Terraform provider or the pier tf hold that
# holds it, mid-apply; see bench/killtrials-tf.sh.
#
#   KILL=statefile bench/killtrials.sh [TRIALS] [PIER]
#   KILL=pgstate   bench/killtrials.sh [TRIALS] [PIER]   (a server in PG*)
#
# kill the state handler's process (state_file, pg_state) mid-apply while
# a second apply waits for the lock; see bench/killtrials-handler.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
trials=${1:-30}
if [ $# -ge 2 ]; then PIER=$2; else go build -tags urfave_cli_no_docs,grpcnotrace -o bin/pier ./cmd/pier; PIER=$PWD/bin/pier; fi
PROV=$PWD/cmd/pier/testdata/providers/objects.py
command -v python3 >/dev/null || { echo "bench: needs python3" >&2; exit 1; }
case ${KILL:-pier} in
tfprovider | tfholder)
  . bench/killtrials-tf.sh
  tf_trials "$KILL" "$trials"
  exit
  ;;
statefile | pgstate)
  . bench/killtrials-handler.sh
  handler_trials "$KILL" "$trials"
  exit
  ;;
esac

printf '%-6s %-8s %-9s %-8s %-9s %-7s %s\n' trial kill_s recorded orphans reported silent reapply_exit
t_orph=0 t_rep=0 t_silent=0 t_hit=0
for trial in $(seq 1 "$trials"); do
  dir=$(mktemp -d)
  mkdir "$dir/objects"
  cat >"$dir/main.pier.hcl" <<HCL
provider "local" { builtin = "local" }
provider "obj" {
  executable  = "$PROV"
  operations  = ["destroy", "import"]
  parallelism = 4
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "r" {
  count    = 20
  provider = provider.obj
  type     = "obj"
  state    = resource.state
  inputs   = { name = "r\${count.index}", delay = 0.05 }
}
HCL
  delay=$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.2f", 0.3 + rand() * 1.2 }')
  (cd "$dir" && exec setsid "$PIER" apply --yes >apply1.out 2>&1) &
  pid=$!
  sleep "$delay"
  kill -9 -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  # Recorded names after the kill, and the objects that exist.
  recorded=$(cd "$dir" && { [ -e state.json ] && "$PIER" statefile show state.json 2>/dev/null || echo '{}'; } |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(sorted(e["input_properties"]["name"] for e in d.get("resources",{}).values())))')
  objects_before=$(ls "$dir/objects" | sed 's/\.[0-9]*$//' | sort | tr '\n' ' ')
  orphans=0
  for o in $objects_before; do
    case " $recorded " in *" $o "*) ;; *) orphans=$((orphans + 1)) ;; esac
  done
  set +e
  (cd "$dir" && "$PIER" apply --yes >apply2.out 2>&1)
  code=$?
  set -e
  reported=0
  for o in $objects_before; do
    case " $recorded " in *" $o "*) continue ;; esac
    idx=${o#r}
    if grep -q "pier was interrupted while provider \"obj\" was creating r\[$idx\]" "$dir/apply2.out"; then
      reported=$((reported + 1))
    fi
  done
  silent=$(ls "$dir/objects" | sed 's/\.[0-9]*$//' | sort | uniq -d | wc -l)
  nrec=$(wc -w <<<"$recorded")
  printf '%-6s %-8s %-9s %-8s %-9s %-7s %s\n' "$trial" "$delay" "$nrec" "$orphans" "$reported" "$silent" "$code"
  t_orph=$((t_orph + orphans)) t_rep=$((t_rep + reported)) t_silent=$((t_silent + silent))
  [ "$orphans" -gt 0 ] && t_hit=$((t_hit + 1))
  rm -rf "$dir"
done
echo
echo "$trials trials: $t_hit left orphans ($t_orph objects); $t_rep reported by the next apply; $t_silent silently created again (load average $(cut -d' ' -f1-3 /proc/loadavg))"
