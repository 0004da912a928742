# Helpers shared by the bench scripts that drive N bridged time_static
# resources; source it from the repository root.

# pier_bins BINARY... sets bins to the pier binaries to compare, or to one
# built from this tree when none is given, and builds the Terraform test
# providers; REAL is terraform-provider-time.
pier_bins() {
  bins=("$@")
  if [ ${#bins[@]} -eq 0 ]; then
    go build -tags urfave_cli_no_docs,grpcnotrace -o bin/ ./cmd/pier ./cmd/pier-layout # pier ui runs pier-layout from pier's directory
    bins=("$PWD/bin/pier")
  fi
  make -s tfproviders >/dev/null
  REAL=$PWD/bin/tfproviders/terraform-provider-time
}

# wall CMD... -> seconds; fails loudly when pier fails.
wall() {
  local t
  t=$(mktemp)
  if ! /usr/bin/time -o "$t" -f '%e' "$@" >"$t.out" 2>"$t.err"; then
    echo "bench: $* failed:" >&2
    tail -n 20 "$t.out" "$t.err" >&2
    exit 1
  fi
  cat "$t"
  rm -f "$t" "$t.out" "$t.err"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# time_static_deployment DIR N writes DIR/bench.pier.hcl: N time_static
# (count = N) in one state_file, through DIR/terraform-provider-time.
time_static_deployment() {
  cat >"$1/bench.pier.hcl" <<HCL
provider "local" { builtin = "local" }
provider "time" { terraform = "./terraform-provider-time" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "t" {
  count    = $2
  provider = provider.time
  type     = "time_static"
  state    = resource.state
  inputs   = { triggers = { index = "\${count.index}" } }
}
HCL
}
