package statefile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestHeldBy: the probe names the holder while the lock is held, and
// nobody before the sidecar exists or after the lock is released; it
// never creates the sidecar.
func TestHeldBy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if h, err := HeldBy(path); h != nil || err != nil {
		t.Fatalf("HeldBy without a sidecar = %v, %v; want nil, nil", h, err)
	}
	if _, err := os.Stat(lockPath(path)); !os.IsNotExist(err) {
		t.Fatalf("HeldBy created the sidecar: %v", err)
	}
	k, err := AcquireLock(path, Options{Holder: &Holder{PID: 4242, Command: "pier apply", User: "u", Host: "h"}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := HeldBy(path)
	if err != nil || h == nil || h.PID != 4242 || h.Command != "pier apply" || h.Host != "h" || h.Since.IsZero() {
		t.Errorf("HeldBy while locked = %+v, %v; want pid 4242, pier apply on h, with a start", h, err)
	}
	if err := k.Release(); err != nil {
		t.Fatal(err)
	}
	if h, err := HeldBy(path); h != nil || err != nil {
		t.Errorf("HeldBy after release = %+v, %v; want nil, nil", h, err)
	}
}
