package rpcapi_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/adapters/postgres/pgtest"
	"github.com/pierhq/pier/internal/testbin"
)

// pgHCL keeps a memo's state in PostgreSQL.
const pgHCL = `
provider "local" { builtin = "local" }
provider "pg" { builtin = "postgres" }
resource "shared" {
  provider = provider.pg
  type     = "pg_state"
  inputs   = { key = "rpc" }
}
resource "memo" {
  provider = provider.local
  type     = "memo"
  state    = resource.shared
  inputs   = { initialize_with = "hello" }
}
`

// TestBuiltInProvidersOverRPC asks a real pier rpcapi, from a Python gRPC
// client, which providers ship inside pier: every adapter a deployment can
// name with builtin = NAME, each as it describes itself (the operations
// and types its own package publishes). Then a deployment whose state is a
// pg_state in a real PostgreSQL plans and applies over RPC, and its state
// is in the database.
func TestBuiltInProvidersOverRPC(t *testing.T) {
	t.Parallel()
	python := grpcPython(t)
	pier := testbin.Pier(t)
	srv, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop("fast"); err != nil {
			t.Error(err)
		}
		os.RemoveAll(srv.Dir)
	})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(pgHCL), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("testdata/builtins.py")
	if err != nil {
		t.Fatal(err)
	}
	proto, err := filepath.Abs("pier1")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, script, pier, proto, t.TempDir(), dir)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), srv.Env(pgtest.Superuser)...)
	cmd.Stderr = &testWriter{t: t}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("builtins.py: %v\n%s", err, out)
	}
	type builtin struct {
		ResourceTypes []string `json:"resource_types"`
		StateTypes    []string `json:"state_types"`
		Operations    []string `json:"operations"`
	}
	var got struct {
		Builtins        map[string]builtin
		Error           []string
		PlanDiagnostics []string `json:"plan_diagnostics"`
		Create          int
		Created         int
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("builtins.py printed %q: %v", out, err)
	}
	want := map[string]builtin{
		"local":    {ResourceTypes: []string{"exec", "file", "memo", "state_file"}, StateTypes: []string{"state_file"}, Operations: []string{"destroy", "read", "import", "preview"}},
		"postgres": {ResourceTypes: []string{"pg_state"}, StateTypes: []string{"pg_state"}, Operations: []string{"destroy"}},
	}
	if diff := cmp.Diff(want, got.Builtins); diff != "" {
		t.Errorf("GetBuiltInProviders (-want +got):\n%s", diff)
	}
	if len(got.Error) > 0 || got.Create != 1 || got.Created != 1 {
		t.Fatalf("open, plan and apply over RPC: %+v", got)
	}
	rows, err := srv.Psql("select count(*) from pier.events")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(rows) == "0" {
		t.Errorf("the apply recorded no event in PostgreSQL")
	}
}
