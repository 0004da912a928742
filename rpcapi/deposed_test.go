package rpcapi_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
)

// TestDeposedKeyField replaces a resource create_before_destroy over RPC:
// the destroy of the deposed object names it in deposed_key, and its
// address is the resource's own, not "s (deposed KEY)".
func TestDeposedKeyField(t *testing.T) {
	t.Parallel()
	python := grpcPython(t)
	pier := testbin.Pier(t)
	dir := t.TempDir()
	deployment := func(typ, inputs string) {
		hcl := `
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "s" {
  provider = provider.local
  type     = "` + typ + `"
  state    = resource.state
  inputs   = ` + inputs + `
  lifecycle { create_before_destroy = true }
}
`
		if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(hcl), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	deployment("memo", `{ initialize_with = "x" }`)
	apply := exec.Command(pier, "apply")
	apply.Dir = dir
	if out, err := apply.CombinedOutput(); err != nil {
		t.Fatalf("pier apply: %v\n%s", err, out)
	}
	// Another type is another object: replaced, the new one first.
	deployment("file", `{ name = "s.txt", contents = "x" }`)

	script, err := filepath.Abs("testdata/deposed.py")
	if err != nil {
		t.Fatal(err)
	}
	proto, err := filepath.Abs("pier1")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, script, pier, proto, t.TempDir(), dir)
	cmd.Dir = t.TempDir()
	cmd.Stderr = &testWriter{t: t}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("deposed.py: %v\n%s", err, out)
	}
	var seen [][3]string
	if err := json.Unmarshal(out, &seen); err != nil {
		t.Fatalf("deposed.py printed %q: %v", out, err)
	}
	kinds := map[string]bool{}
	for _, s := range seen {
		if strings.Contains(s[1], "deposed") {
			t.Errorf("%s event with address %q: the key belongs in deposed_key", s[0], s[1])
		}
		if s[2] != "" {
			if s[1] != "s" {
				t.Errorf("%s event of deposed object %s has address %q, want s", s[0], s[2], s[1])
			}
			kinds[s[0]] = true
		}
	}
	if !kinds["status"] || !kinds["applied"] {
		t.Errorf("no status and applied events carry a deposed_key: %v", seen)
	}
}
