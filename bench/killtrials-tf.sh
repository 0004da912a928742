# Kill trials of the Terraform bridge, sourced by bench/killtrials.sh:
# KILL=tfprovider kills terraform-provider-time, KILL=tfholder the
# `pier tf hold` process that holds it, in the middle of an apply that pier
# survives. Needs bin/tfproviders (make tfproviders).
#
# Each trial applies 12 time_sleep (create durations 1.0-1.6 s, four at a
# time), each with a trigger naming it. Once the provider has begun a
# create, it waits a random 0-1.5 s and kills the victim with SIGKILL; the
# apply goes on and fails. Then it applies again. The provider's protocol
# data files (TF_LOG_SDK_PROTO_DATA_DIR) say which creates it received
# (ApplyResourceChange requests) and which objects it made (responses with
# a new state), by trigger. Per trial:
#   begun      creates the provider received during the first apply
#   made       objects it made then (it answered with the new state)
#   recorded   objects the state records after the first apply
#   pending    pending creates the state keeps after the first apply
#   forgotten  creates begun but neither recorded nor pending: pier lost
#              track of an object that may exist (the bug of issue 24)
#   lost       objects made but neither recorded nor pending
#   again      creates begun in the first apply that the second sent again
#   twice      objects made by both applies
# forgotten, lost, again and twice must be 0.

# tf_wrapper DIR writes DIR/terraform-provider-time, a wrapper that notes
# its pid and its parent's (the holder) in DIR/pids, turns on the SDK's
# protocol data files into DIR/proto, and its trace log into DIR/tflog.
tf_wrapper() {
  cat >"$1/terraform-provider-time" <<SH
#!/bin/sh
echo "\$\$ \$PPID" >'$1/pids.tmp' && mv '$1/pids.tmp' '$1/pids'
unset TF_LOG_SDK TF_LOG_SDK_PROTO TF_LOG_SDK_FRAMEWORK TF_LOG_PROVIDER
mkdir -p '$1/proto'
export TF_LOG=TRACE TF_LOG_SDK_PROTO_DATA_DIR='$1/proto'
exec '$TFTIME' "\$@" 2>>'$1/tflog'
SH
  chmod +x "$1/terraform-provider-time"
}

# tf_triggers DIR KIND prints the sorted triggers (r0..r11) of the
# ApplyResourceChange protocol data files of KIND in DIR/proto:
# Request_Config (creates received) or Response_NewState (objects made).
tf_triggers() {
  [ -d "$1/proto" ] || return 0
  find "$1/proto" -name "*_ApplyResourceChange_$2.msgpack" -exec grep -aoh 'tok-r[0-9]*-' {} + 2>/dev/null |
    sed 's/^tok-//; s/-$//' | sort -u
}

# tf_count WORDS... counts words; tf_minus A B prints the words of A not in
# B; tf_and A B those in both.
tf_count() { wc -w <<<"$1" | tr -d ' '; }
tf_minus() { comm -23 <(tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -u) <(tr ' ' '\n' <<<"$2" | sed '/^$/d' | sort -u) | tr '\n' ' '; }
tf_and() { comm -12 <(tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -u) <(tr ' ' '\n' <<<"$2" | sed '/^$/d' | sort -u) | tr '\n' ' '; }

tf_trials() {
  local victim=$1 trials=$2
  TFTIME=$PWD/bin/tfproviders/terraform-provider-time
  [ -x "$TFTIME" ] || { echo "bench: needs $TFTIME: run make tfproviders" >&2; exit 1; }
  printf '%-6s %-7s %-6s %-5s %-9s %-8s %-10s %-5s %-6s %-6s %s\n' trial kill_s begun made recorded pending forgotten lost again twice exits
  local t_begun=0 t_made=0 t_forgot=0 t_lost=0 t_again=0 t_twice=0 t_pending=0
  for trial in $(seq 1 "$trials"); do
    local dir
    dir=$(mktemp -d)
    mkdir "$dir/run1" "$dir/run2"
    cat >"$dir/main.pier.hcl" <<HCL
provider "local" { builtin = "local" }
provider "time" {
  terraform   = "./terraform-provider-time"
  parallelism = 4
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "r" {
  count    = 12
  provider = provider.time
  type     = "time_sleep"
  state    = resource.state
  inputs   = { create_duration = "\${1000 + 53 * count.index}ms", triggers = { k = "tok-r\${count.index}-" } }
}
HCL
    tf_wrapper "$dir/run1"
    cp "$dir/run1/terraform-provider-time" "$dir/terraform-provider-time"
    local delay
    delay=$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.2f", rand() * 1.5 }')
    (cd "$dir" && exec "$PIER" apply --yes >apply1.out 2>&1) &
    local pid=$!
    # Wait (bounded) for the provider to begin a create, then kill.
    local i=0
    until grep -q '"Calling provider defined Resource Create"' "$dir/run1/tflog" 2>/dev/null; do
      i=$((i + 1))
      [ $i -lt 3000 ] || { echo "bench: trial $trial: no create began in 60 s" >&2; break; }
      sleep 0.02
    done
    sleep "$delay"
    local pids
    read -r -a pids <"$dir/run1/pids"
    case $victim in
    tfprovider) kill -9 "${pids[0]}" 2>/dev/null || true ;;
    tfholder) kill -9 "${pids[1]}" 2>/dev/null || true ;;
    esac
    local code1=0 code2=0
    wait "$pid" || code1=$?
    local begun made recorded pending
    begun=$(tf_triggers "$dir/run1" Request_Config | tr '\n' ' ')
    made=$(tf_triggers "$dir/run1" Response_NewState | tr '\n' ' ')
    read -r recorded pending < <(cd "$dir" && "$PIER" statefile show state.json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
rec = sorted(e["input_properties"]["triggers"]["k"][4:-1] for e in d.get("resources", {}).values() if e.get("type") == "time_sleep")
pend = sorted(p["input_properties"]["triggers"]["k"][4:-1] for p in d.get("pierPendingOperations", {}).values() if p.get("operation") == "create")
print(",".join(rec) or "-", ",".join(pend) or "-")')
    recorded=${recorded//,/ } pending=${pending//,/ }
    recorded=${recorded/#-/} pending=${pending/#-/}
    # The second apply, through a fresh wrapper and data directory.
    tf_wrapper "$dir/run2"
    cp "$dir/run2/terraform-provider-time" "$dir/terraform-provider-time"
    (cd "$dir" && "$PIER" apply --yes >apply2.out 2>&1) || code2=$?
    local begun2 made2
    begun2=$(tf_triggers "$dir/run2" Request_Config | tr '\n' ' ')
    made2=$(tf_triggers "$dir/run2" Response_NewState | tr '\n' ' ')
    local forgotten lost again twice
    forgotten=$(tf_minus "$begun" "$recorded $pending")
    lost=$(tf_minus "$made" "$recorded $pending")
    again=$(tf_and "$begun" "$begun2")
    twice=$(tf_and "$made" "$made2")
    printf '%-6s %-7s %-6s %-5s %-9s %-8s %-10s %-5s %-6s %-6s %s\n' "$trial" "$delay" \
      "$(tf_count "$begun")" "$(tf_count "$made")" "$(tf_count "$recorded")" "$(tf_count "$pending")" \
      "$(tf_count "$forgotten")" "$(tf_count "$lost")" "$(tf_count "$again")" "$(tf_count "$twice")" "$code1,$code2"
    t_begun=$((t_begun + $(tf_count "$begun"))) t_made=$((t_made + $(tf_count "$made")))
    t_pending=$((t_pending + $(tf_count "$pending")))
    t_forgot=$((t_forgot + $(tf_count "$forgotten"))) t_lost=$((t_lost + $(tf_count "$lost")))
    t_again=$((t_again + $(tf_count "$again"))) t_twice=$((t_twice + $(tf_count "$twice")))
    if [ -n "${KEEP:-}" ]; then echo "  kept $dir"; else rm -rf "$dir"; fi
  done
  echo
  echo "$trials trials, $victim killed: $t_begun creates begun, $t_made objects made, $t_pending pending creates kept; $t_forgot forgotten, $t_lost records lost, $t_again sent again, $t_twice objects made twice (load average $(cut -d' ' -f1-3 /proc/loadavg))"
}
