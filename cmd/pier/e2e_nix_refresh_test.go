package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

// A Nix-shaped resource member's refresh = true, beside its inputs, works
// as in HCL: every plan reads it, so an edit of the file is drift without
// --refresh.
func TestNixRefreshTrue(t *testing.T) {
	t.Parallel()
	testneed.Tool(t, "nix")
	git := testneed.Tool(t, "git")
	src, err := os.ReadFile("../../examples/flake/flake.nix")
	if err != nil {
		t.Fatal(err)
	}
	const at = `                name = "motd.txt";`
	if !strings.Contains(string(src), at) {
		t.Fatalf("examples/flake/flake.nix no longer has %q", at)
	}
	// refresh sits beside inputs: after the inputs block's closing brace.
	const after = "              outputsSkeleton = { };\n              state = [ \"state\" ];\n            };\n          };"
	flake := string(src)
	i := strings.Index(flake, at)
	j := strings.Index(flake[i:], after)
	if j < 0 {
		t.Fatalf("examples/flake/flake.nix: site.motd no longer ends as expected")
	}
	flake = flake[:i+j] + "              refresh = true;\n" + flake[i+j:]
	d := &deployment{t: t, dir: t.TempDir(), pier: testbin.Pier(t)}
	d.writeRaw("flake.nix", flake)
	for _, args := range [][]string{{"init", "-q"}, {"add", "flake.nix"}} {
		cmd := exec.Command(git, args...)
		cmd.Dir = d.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	d.mustRun("apply", "--flake", ".")
	if err := os.WriteFile(filepath.Join(d.dir, "motd.txt"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := d.mustRun("plan", "--flake", ".")
	if !strings.Contains(out, "# site.motd has changed outside of pier") || !strings.Contains(out, "# site.motd will be updated in place") {
		t.Errorf("plan of a flake whose refresh = true member was edited:\n%s", out)
	}
}
