package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/nixops4state"
)

// State integrity through the real pier and its local adapter: the events
// pier writes carry a checksum that every reader checks, invalid UTF-8 is
// refused, and an emptied state file is not read silently as "nothing
// recorded". A refused file is left as it is, for the user to restore.

func integrityDeployment(t *testing.T) *deployment {
	t.Helper()
	d := newDeployment(t, map[string]string{"main.pier.hcl": header + `
resource "a" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "alpha" }
}
`})
	d.mustRun("apply")
	return d
}

// refusedEverywhere runs the commands that read the state file and checks
// that each refuses it with want in its error, and that none changed it.
func refusedEverywhere(t *testing.T, d *deployment, want string) {
	t.Helper()
	path := filepath.Join(d.dir, "state.json")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"plan"}, {"apply", "--yes"}, {"state", "list"}, {"statefile", "verify", "state.json"}, {"statefile", "compact", "state.json"}} {
		out, errs, code := d.run(cmd...)
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("pier %v: exit %d, want 1 and %q\nstdout:\n%s\nstderr:\n%s", cmd, code, want, out, errs)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Errorf("a refused state file was changed:\nbefore %q\nafter  %q", before, after)
	}
	if n := d.count("create", "alpha"); n != 1 {
		t.Errorf("a was created %d times, want once", n)
	}
}

// TestStateEventChecksum: one byte of a recorded output changed ("alpha"
// to "alpja", say a bad disk block) used to be read as the new value. Now
// plan, apply, state list, verify and compact refuse the file and name the
// event, although the resolved-state cache beside it still holds the state
// as it was.
func TestStateEventChecksum(t *testing.T) {
	t.Parallel()
	d := integrityDeployment(t)
	path := filepath.Join(d.dir, "state.json")
	if _, err := os.Stat(path + ".cache"); err != nil {
		t.Fatalf("apply left no resolved-state cache: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(data, []byte(`"value":"alpha"`))
	if i < 0 {
		t.Fatalf("no recorded output in the state:\n%s", data)
	}
	data[i+len(`"value":"alp`)] ^= 0x02 // h (0x68) to j (0x6a)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	refusedEverywhere(t, d, "checksum mismatch")
}

// TestStateInvalidUTF8: a byte that is not UTF-8, here in an event
// written as NixOps4 writes them (no checksum), used to be read as U+FFFD:
// verify said ok and compact made the replacement permanent.
func TestStateInvalidUTF8(t *testing.T) {
	t.Parallel()
	d := integrityDeployment(t)
	path := filepath.Join(d.dir, "state.json")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"index":0,"meta":{"time":"2026-12-01T00:00:00Z"},"patch":[{"op":"add","path":"/resources/note","value":{"type":"echo","input_properties":{"value":"caf` + "\xe9" + `"},"output_properties":{}}}]}` + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	refusedEverywhere(t, d, "invalid UTF-8")
}

// TestEmptyStateFileWarns: a state.json of 0 bytes plans to create
// everything; pier now says why.
func TestEmptyStateFileWarns(t *testing.T) {
	t.Parallel()
	d := integrityDeployment(t)
	if err := os.WriteFile(filepath.Join(d.dir, "state.json"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs, code := d.run("plan")
	if code != 0 || !strings.Contains(out, "a will be created") {
		t.Fatalf("plan over an empty state file: exit %d\n%s\n%s", code, out, errs)
	}
	if n := strings.Count(errs, "holds no events"); n != 1 {
		t.Errorf("plan warned %d times of the empty state file, want once:\n%s", n, errs)
	}
}

// TestNixOps4ReadsChecksummedEvents: the checksum is a member of each
// event's meta, which NixOps4's reader takes as an open map; a state file
// pier wrote, compacted included, is one NixOps4 reads.
func TestNixOps4ReadsChecksummedEvents(t *testing.T) {
	t.Parallel()
	d := integrityDeployment(t)
	path := filepath.Join(d.dir, "state.json")
	for _, step := range []string{"applied", "compacted"} {
		if step == "compacted" {
			d.mustRun("statefile", "compact", "state.json")
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(`"pierChecksum":"crc32c:`)) {
			t.Fatalf("%s: no checksum in the state file:\n%s", step, data)
		}
		st, err := nixops4state.ReadFile(data)
		if err != nil {
			t.Fatalf("%s: NixOps4 would refuse the state file: %v\n%s", step, err, data)
		}
		if got := st.Resources["a"].OutputProperties["value"]; got != "alpha" {
			t.Errorf("%s: NixOps4 reads a's value as %v", step, got)
		}
	}
}
