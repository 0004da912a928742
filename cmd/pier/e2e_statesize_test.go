package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// A state pier writes must be one pier can read: states larger than the
// 64 MiB bound on an ordinary response line are read whole, and destroy
// and state forget work on them. The data is generated here, not kept in
// testdata: these states are 80 and 100 MB.

// blobDeployment declares the blob provider (testdata/providers/blob.py),
// whose outputs are as large as its inputs ask, in a state_file.
const blobDeployment = `
provider "local" { builtin = "local" }
provider "blob" {
  executable = "BLOB_PROVIDER"
  operations = ["destroy"]
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
`

func blobResource(name string, size int, fill string) string {
	return `
resource "` + name + `" {
  provider = provider.blob
  type     = "blob"
  state    = resource.state
  inputs   = { size = ` + strconv.Itoa(size) + `, fill = "` + fill + `" }
}
`
}

// bigStates runs the large-state tests one at a time: each pier command
// holds a few hundred MB while it reads such a state, and a 2-core CI
// machine runs the rest of the package beside them.
var bigStates sync.Mutex

func newBlobDeployment(t *testing.T, resources string) *deployment {
	t.Helper()
	bigStates.Lock()
	t.Cleanup(bigStates.Unlock)
	prov, err := filepath.Abs("testdata/providers/blob.py")
	if err != nil {
		t.Fatal(err)
	}
	return newDeployment(t, map[string]string{
		"main.pier.hcl": strings.ReplaceAll(blobDeployment+resources, "BLOB_PROVIDER", prov),
	})
}

// timed runs pier and logs how long it took, so that a slow run on CI
// shows where the time went.
func (d *deployment) timed(args ...string) string {
	d.t.Helper()
	start := time.Now()
	out := d.mustRun(args...)
	d.t.Logf("pier %s: %s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	return out
}

// TestStateLargerThanAFrame is issue 11's case: two resources with 40 MiB
// outputs each make an 80 MiB state, which apply writes and every later
// command must read.
func TestStateLargerThanAFrame(t *testing.T) {
	t.Parallel()
	const size = 40 << 20
	d := newBlobDeployment(t, blobResource("a", size, "a")+blobResource("b", size, "b"))
	d.timed("apply", "--yes")
	if fi, err := os.Stat(filepath.Join(d.dir, "state.json")); err != nil || fi.Size() < 2*size {
		t.Fatalf("state file after apply: %v, %v; want more than %d bytes", fi, err, 2*size)
	}
	if out := d.timed("plan"); !strings.Contains(out, "2 unchanged") {
		t.Errorf("plan on an 80 MiB state:\n%s\nwant 2 unchanged", out)
	}
	if got := listed(d.timed("state", "list")); got != "a b" {
		t.Errorf("state list = %q, want a b", got)
	}
	d.timed("state", "forget", "b")
	if out := d.timed("destroy", "--yes"); !strings.Contains(out, "1 destroyed") {
		t.Errorf("destroy:\n%s\nwant 1 destroyed", out)
	}
	if got := listed(d.timed("state", "list")); got != "" {
		t.Errorf("state list after forget b and destroy = %q, want nothing", got)
	}
}

// listed is the addresses pier state list prints, space-separated.
func listed(out string) string {
	var addrs []string
	for _, line := range strings.Split(out, "\n") {
		if addr, _, ok := strings.Cut(line, "\t"); ok {
			addrs = append(addrs, addr)
		}
	}
	return strings.Join(addrs, " ")
}

// TestStateWithOneHugeEvent is issue 11's second case: one event line of
// 100 MB, larger than any response line but a state. It is written here
// as pier writes a state_file, then read through pier.
func TestStateWithOneHugeEvent(t *testing.T) {
	t.Parallel()
	const size = 100_000_000
	d := newBlobDeployment(t, blobResource("big", size, "z"))
	entry := map[string]any{
		"type":              "blob",
		"provider":          "blob",
		"input_properties":  map[string]any{"size": size, "fill": "z"},
		"output_properties": map[string]any{"data": strings.Repeat("z", size)},
	}
	var log bytes.Buffer
	for _, ev := range []map[string]any{
		{"index": 0, "meta": map[string]any{"time": "2026-01-01T00:00:00Z", "event": "init"}, "patch": []any{
			map[string]any{"op": "add", "path": "", "value": map[string]any{"_type": "nixopsState", "resources": map[string]any{}, "deployments": map[string]any{}}},
		}},
		{"index": 1, "meta": map[string]any{"time": "2026-01-01T00:00:01Z", "event": "create"}, "patch": []any{
			map[string]any{"op": "add", "path": "/resources/big", "value": entry},
		}},
	} {
		line, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		log.Write(line)
		log.WriteByte('\n')
	}
	entry = nil
	if err := os.WriteFile(filepath.Join(d.dir, "state.json"), log.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	log = bytes.Buffer{}
	if out := d.timed("plan"); !strings.Contains(out, "1 unchanged") {
		t.Errorf("plan on a state with a 100 MB event:\n%s\nwant 1 unchanged", out)
	}
	if got := listed(d.timed("state", "list")); got != "big" {
		t.Errorf("state list = %q, want big", got)
	}
	if out := d.timed("destroy", "--yes"); !strings.Contains(out, "1 destroyed") {
		t.Errorf("destroy:\n%s\nwant 1 destroyed", out)
	}
}
