package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
)

// TestBigNumberChangePlansAsUpdate: numbers keep their full precision
// from HCL through the comparison, the provider's outputs and into state.
// 9007199254740993 and 9007199254740992 are one float64, so a float64
// anywhere on the way would plan the change as no change.
func TestBigNumberChangePlansAsUpdate(t *testing.T) {
	t.Parallel()
	d := &deployment{t: t, dir: t.TempDir(), pier: testbin.Pier(t)}
	deployment := func(n string) string {
		return `provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "big" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = ` + n + ` }
}
output "value" { value = resource.big.outputs.value }
`
	}
	d.writeRaw("main.pier.hcl", deployment("9007199254740993"))
	d.mustRun("apply")

	d.writeRaw("main.pier.hcl", deployment("9007199254740992"))
	out := d.mustRun("plan")
	for _, want := range []string{
		"# big will be updated in place",
		"~ initialize_with = 9007199254740993 -> 9007199254740992",
		"Plan: 0 to create, 1 to update, 0 to destroy, 0 unchanged.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	d.mustRun("apply")

	// The state log holds both numbers as written, and the memo's output
	// (the provider's answer) as it first was.
	raw, err := os.ReadFile(filepath.Join(d.dir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"initialize_with":9007199254740992`, `"value":9007199254740993`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("state log lacks %s:\n%s", want, raw)
		}
	}
	var value json.Number
	if err := json.Unmarshal([]byte(strings.TrimSpace(d.mustRun("output", "value"))), &value); err != nil || value != "9007199254740993" {
		t.Errorf("pier output value = %q (%v), want 9007199254740993", value, err)
	}
	if out := d.mustRun("plan"); !strings.Contains(out, "No changes.") {
		t.Errorf("plan after the update:\n%s", out)
	}
}
