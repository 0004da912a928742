package rpcapi_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

// pathsHCL is a deployment whose state file and var file are named
// relative to its directory.
const pathsHCL = `
variable "greeting" {}
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "memo" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = var.greeting }
}
`

// TestRelativePathsOverRPC applies a flake and an HCL deployment with the
// CLI, then plans and applies them over RPC from a Python client run in
// one directory against a server started in another: their relative paths
// (the state files, the var file) resolve against each deployment's
// directory, as the CLI resolves them, so nothing is new and nothing
// appears beside the server or the client.
func TestRelativePathsOverRPC(t *testing.T) {
	t.Parallel()
	testneed.Tool(t, "nix")
	python := grpcPython(t)
	pier := testbin.Pier(t)
	root := t.TempDir()
	flake, hcl, server, client := filepath.Join(root, "flake"), filepath.Join(root, "hcl"), filepath.Join(root, "server"), filepath.Join(root, "client")
	for _, d := range []string{flake, hcl, server, client} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyTree(t, filepath.Join(testbin.ModuleRoot(), "examples", "flake"), flake)
	files := map[string]string{"main.pier.hcl": pathsHCL, "values.hcl": `greeting = "hello"` + "\n"}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(hcl, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command(pier, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pier %v: %v\n%s", args, err, out)
		}
	}
	run(flake, "apply", "--flake", "path:"+flake)
	run(hcl, "apply", "--var-file", "values.hcl")

	script, err := filepath.Abs("testdata/paths.py")
	if err != nil {
		t.Fatal(err)
	}
	proto, err := filepath.Abs("pier1")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, script, pier, proto, t.TempDir(), server,
		"flake=flake:path:"+flake, "hcl=dir:"+hcl+",values.hcl")
	cmd.Dir = client
	cmd.Stderr = &testWriter{t: t}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("paths.py: %v\n%s", err, out)
	}
	got := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("paths.py line %q: %v", sc.Text(), err)
		}
		got[line["name"].(string)] = line
	}
	for name, noOp := range map[string]float64{"flake": 2, "hcl": 1} {
		g := got[name]
		if g["error"] != nil || g["create"] != 0.0 || g["no_op"] != noOp || g["created"] != 0.0 {
			t.Errorf("%s over RPC: %v; want nothing to create, %v unchanged, nothing created", name, g, noOp)
		}
	}
	for _, d := range []string{server, client} {
		if left, _ := os.ReadDir(d); len(left) != 0 {
			var names []string
			for _, e := range left {
				names = append(names, e.Name())
			}
			t.Errorf("files appeared in %s: %v", d, names)
		}
	}
}
