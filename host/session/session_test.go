package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/lockfile"
)

func writeMemo(t *testing.T, dir, name string) {
	t.Helper()
	hcl := `provider "p" { executable = "/bin/true" }
resource "` + name + `" {
  provider = provider.p
  type     = "memo"
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOnce: a one-command deployment's first operation uses the source
// Open loaded; a deployment kept open sees the files as they are at each
// operation.
func TestOnce(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		once bool
		want []string // the resource each of two snapshots sees
	}{
		"kept open": {once: false, want: []string{"after", "after"}},
		"once":      {once: true, want: []string{"before", "after"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeMemo(t, dir, "before")
			d, err := Open(Options{Dir: dir, Lock: lockfile.ModeOff, Once: tc.once})
			if err != nil {
				t.Fatal(err)
			}
			writeMemo(t, dir, "after")
			var got []string
			for range 2 {
				snap, err := d.Snapshot(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				if len(snap.Ready) != 1 {
					t.Fatalf("snapshot has %d ready resources, want 1", len(snap.Ready))
				}
				got = append(got, snap.Ready[0].Address.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("snapshots (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOpenNeedsOneDeployment: a directory or a flake, not both or neither.
func TestOpenNeedsOneDeployment(t *testing.T) {
	t.Parallel()
	tests := map[string]Options{
		"neither": {},
		"both":    {Dir: ".", Flake: "."},
	}
	for name, opts := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := Open(opts); err == nil {
				t.Errorf("Open(%+v) succeeded", opts)
			}
		})
	}
}
