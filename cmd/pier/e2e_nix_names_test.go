package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/nixops4state"
	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

// quotedNamesFlake has member names NixOps4 allows and a dotted address
// could not spell: members."file.txt" is in NixOps4's own integration
// test (test/integration-test-nixops4-with-local/check-file.nix at
// 53d855472af18d85457f327fa9aeb268543ff74e), and one output read through
// a quoted name feeds another member.
const quotedNamesFlake = `{
  outputs = { self }:
    let local = { builtin = "local"; }; in
    {
      nixops4 = {
        _type = "nixops4Component";
        rootFunction = { outputValues, ... }: {
          members = {
            state.resource = {
              provider = local;
              type = "state_file";
              inputs.name = "state.json";
              outputsSkeleton = { };
              state = null;
            };
            "my.memo".resource = {
              provider = local;
              type = "memo";
              inputs.initialize_with = "MEMO";
              outputsSkeleton.value = { };
              state = [ "state" ];
            };
            site.members."file.txt".resource = {
              provider = local;
              type = "file";
              inputs = {
                name = "file.txt";
                contents = "CONTENTS ${outputValues."my.memo".value}\n";
              };
              outputsSkeleton = { };
              state = [ "state" ];
            };
          };
        };
      };
    };
}
`

func gitFlake(t *testing.T, flake string) *deployment {
	t.Helper()
	testneed.Tool(t, "nix")
	git := testneed.Tool(t, "git")
	d := &deployment{t: t, dir: t.TempDir(), pier: testbin.Pier(t)}
	d.writeRaw("flake.nix", flake)
	for _, args := range [][]string{{"init", "-q"}, {"add", "flake.nix"}} {
		cmd := exec.Command(git, args...)
		cmd.Dir = d.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return d
}

// TestNixQuotedMemberNames loads, applies, lists and targets members whose
// names hold a dot: their addresses quote them, and the state keys them
// unquoted, as NixOps4 does.
func TestNixQuotedMemberNames(t *testing.T) {
	t.Parallel()
	d := gitFlake(t, quotedNamesFlake)
	out := d.mustRun("apply", "--flake", ".")
	if !strings.Contains(out, `site."file.txt"`) || !strings.Contains(out, `"my.memo"`) {
		t.Errorf("apply does not quote the names:\n%s", out)
	}
	got, err := os.ReadFile(filepath.Join(d.dir, "file.txt"))
	if err != nil || string(got) != "CONTENTS MEMO\n" {
		t.Fatalf("file.txt = %q, %v; want the memo's output in it", got, err)
	}
	list := d.mustRun("state", "list", "--flake", ".")
	for _, want := range []string{"\"my.memo\"\tmemo", "site.\"file.txt\"\tfile"} {
		if !strings.Contains(list, want) {
			t.Errorf("state list lacks %q:\n%s", want, list)
		}
	}
	raw, err := os.ReadFile(filepath.Join(d.dir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	n4, err := nixops4state.ReadFile(raw)
	if err != nil {
		t.Fatalf("NixOps4 cannot read the state: %v", err)
	}
	if _, ok := n4.Deployments["site"].Resources["file.txt"]; !ok {
		t.Errorf("NixOps4 does not find deployments.site.resources.\"file.txt\": %+v", n4.Deployments)
	}
	if _, ok := n4.Resources["my.memo"]; !ok {
		t.Errorf("NixOps4 does not find resources.\"my.memo\": %+v", n4.Resources)
	}
	// An unchanged flake plans nothing, so the quoted names round-trip
	// through the state.
	if out := d.mustRun("plan", "--flake", "."); !strings.Contains(out, "No changes") {
		t.Errorf("plan after apply:\n%s", out)
	}

	// Targeting a quoted member on the command line.
	d.writeRaw("flake.nix", strings.Replace(quotedNamesFlake, "CONTENTS", "NEW", 1))
	out = d.mustRun("apply", "--flake", ".", `site."file.txt"`)
	if !strings.Contains(out, `~ site."file.txt"`) || !strings.Contains(out, "1 updated") {
		t.Errorf("apply of the quoted member:\n%s", out)
	}
	if got, _ := os.ReadFile(filepath.Join(d.dir, "file.txt")); string(got) != "NEW MEMO\n" {
		t.Errorf("file.txt = %q after the targeted apply", got)
	}
	if _, errs, code := d.run("plan", "--flake", ".", `site."file.txt`); code == 0 || !strings.Contains(errs, "quoted name") {
		t.Errorf("an unclosed quote: exit %d, stderr:\n%s", code, errs)
	}
}
