# Kill trials of a state handler, sourced by bench/killtrials.sh:
# KILL=statefile kills the `pier adapter local` process serving a
# state_file, KILL=pgstate the `pier adapter postgres` process serving a
# pg_state (the server comes from the PG* environment: PGHOST, PGPORT,
# PGUSER, PGDATABASE, PGPASSFILE …), in the middle of an apply, while a
# second apply waits for the lock (issue 24, item 2).
#
# Each trial applies 20 resources of the objects provider, four at a
# time, each create taking 200 ms after it made its object. A random 0-1 s
# after the first object appears (the handler has served by then), it
# kills the first apply's state handler with SIGKILL, and at
# once starts a second apply, which retries while the state is locked
# (exit 4), beside the first. Once both are done a third apply runs, as a
# user would. Per trial:
#   first      the first apply's exit code (1: it saw its handler die; 0
#              only if it had finished before the kill)
#   second     the second apply's exit code
#   recorded   objects the state records after the three applies
#   pending    pending creates the state keeps
#   named      objects the first apply named as not recorded
#   twice      object names made more than once
#   lost       objects that exist but that no record or pending create
#              names: lost to pier without a word
# twice and lost must be 0.

# handler_hcl MODE KEY writes the deployment.
handler_hcl() {
  local state
  if [ "$1" = pgstate ]; then
    state='provider "pg" { builtin = "postgres" }
resource "state" {
  provider = provider.pg
  type     = "pg_state"
  inputs   = { key = "'"$2"'" }
}'
  else
    state='resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}'
  fi
  cat <<HCL
provider "local" { builtin = "local" }
provider "obj" {
  executable  = "$PROV"
  operations  = ["destroy", "import"]
  parallelism = 4
}
$state
resource "r" {
  count    = 20
  provider = provider.obj
  type     = "obj"
  state    = resource.state
  inputs   = { name = "r\${count.index}", delay = 0.2 }
}
HCL
}

# handler_count DIR prints "recorded pending lost" from the state and the
# objects that exist.
handler_count() {
  (cd "$1" && "$PIER" state pull --out pulled.log >/dev/null 2>&1 && "$PIER" statefile show pulled.log 2>/dev/null || echo '{}') |
    OBJECTS=$1/objects python3 -c '
import json, os, re, sys
d = json.load(sys.stdin)
ids = {e.get("output_properties", {}).get("id") for e in d.get("resources", {}).values()}
pending = {p.get("input_properties", {}).get("name") for p in d.get("pierPendingOperations", {}).values() if p.get("operation") == "create"}
objs = [f for f in os.listdir(os.environ["OBJECTS"]) if re.fullmatch(r"r[0-9]+\.[0-9]+", f)]
lost = [f for f in objs if f not in ids and f.rsplit(".", 1)[0] not in pending]
print(len(ids - {None}), len(pending), len(lost))'
}

handler_trials() {
  local mode=$1 trials=$2 victim
  case $mode in
  statefile) victim='adapter local$' ;;
  pgstate)
    victim='adapter postgres$'
    [ -n "${PGHOST:-}" ] || { echo "bench: KILL=pgstate needs a PostgreSQL server in the PG* environment (PGHOST, PGUSER, …)" >&2; exit 1; }
    ;;
  esac
  printf '%-6s %-7s %-6s %-7s %-9s %-8s %-6s %-6s %s\n' trial kill_s first second recorded pending named twice lost
  local t_twice=0 t_lost=0 t_named=0 t_pending=0 t_first_ok=0
  for trial in $(seq 1 "$trials"); do
    local dir key delay pid handler first second rec pend lost named twice
    dir=$(mktemp -d)
    mkdir "$dir/objects"
    key="killtrial-$$-$trial"
    handler_hcl "$mode" "$key" >"$dir/main.pier.hcl"
    delay=$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.2f", rand() * 1.0 }')
    (cd "$dir" && exec setsid "$PIER" apply --yes >apply1.out 2>&1) &
    pid=$!
    # Once the handler has served (the first object is being made).
    for _ in $(seq 1 1200); do
      [ -n "$(ls "$dir/objects")" ] && break
      sleep 0.05
    done
    sleep "$delay"
    handler=$(pgrep -s "$pid" -f "$victim" || true)
    [ -n "$handler" ] && kill -9 $handler 2>/dev/null || true
    # The second apply waits for the lock while the first goes on.
    (
      cd "$dir"
      for _ in $(seq 1 600); do
        set +e
        "$PIER" apply --yes >apply2.out 2>&1
        c=$?
        set -e
        [ "$c" -ne 4 ] && break
        sleep 0.05
      done
      echo "$c" >apply2.code
    ) &
    local second_pid=$!
    set +e
    wait "$pid"
    first=$?
    wait "$second_pid"
    set -e
    second=$(cat "$dir/apply2.code")
    (cd "$dir" && "$PIER" apply --yes >apply3.out 2>&1) || true
    read -r rec pend lost < <(handler_count "$dir")
    named=$(grep -c '^  r\[[0-9]*\] (create): ' "$dir/apply1.out" || true)
    twice=$(ls "$dir/objects" | grep -E '^r[0-9]+\.[0-9]+$' | sed 's/\.[0-9]*$//' | sort | uniq -d | wc -l)
    printf '%-6s %-7s %-6s %-7s %-9s %-8s %-6s %-6s %s\n' "$trial" "$delay" "$first" "$second" "$rec" "$pend" "$named" "$twice" "$lost"
    t_twice=$((t_twice + twice)) t_lost=$((t_lost + lost)) t_named=$((t_named + named)) t_pending=$((t_pending + pend))
    [ "$first" -eq 0 ] && t_first_ok=$((t_first_ok + 1))
    if [ "$twice" -gt 0 ] || [ "$lost" -gt 0 ]; then
      echo "  kept for inspection: $dir" >&2
    else
      rm -rf "$dir"
    fi
  done
  echo
  echo "$trials trials ($mode): $t_twice objects made twice; $t_lost lost without a word; $t_named named unrecorded by the first apply; $t_pending pending creates kept; $t_first_ok first applies exited 0 (load average $(cut -d' ' -f1-3 /proc/loadavg))"
}
