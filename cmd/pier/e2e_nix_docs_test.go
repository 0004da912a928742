package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

// TestNixOps4FileExample applies the complete nixops4.nix of
// docs/nixops4.md as it is printed there, and plans one of its members.
func TestNixOps4FileExample(t *testing.T) {
	t.Parallel()
	testneed.Tool(t, "nix")
	doc, err := os.ReadFile("../../docs/nixops4.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## A complete nixops4.nix\n")
	_, block, ok2 := strings.Cut(section, "```nix\n")
	block, _, ok3 := strings.Cut(block, "```\n")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/nixops4.md has no nix block under \"## A complete nixops4.nix\"")
	}
	d := &deployment{t: t, dir: t.TempDir(), pier: testbin.Pier(t)}
	d.writeRaw("nixops4.nix", block)
	out := d.mustRun("apply", "--file", "nixops4.nix")
	if !strings.Contains(out, "2 created") {
		t.Errorf("apply of the documented nixops4.nix:\n%s", out)
	}
	if got, err := os.ReadFile(filepath.Join(d.dir, "file.txt")); err != nil || string(got) != "Hello from nixops4.nix\n" {
		t.Errorf("file.txt = %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(d.dir, "nixops4.state.json")); err != nil {
		t.Errorf("no state file beside nixops4.nix: %v", err)
	}
	out = d.mustRun("plan", "--file", "nixops4.nix", `myDeployment."file.txt"`)
	if !strings.Contains(out, "No changes") {
		t.Errorf("plan of one member after apply:\n%s", out)
	}
}
