package providersdk

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/pierhq/pier/schema/rawio"
)

// TestQuietStreams: ServeIO reads and writes the host's non-blocking pipes
// by raw system calls (package rawio tests those) and any other stream as
// it is.
func TestQuietStreams(t *testing.T) {
	t.Parallel()
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "requests"), os.NewFile(uintptr(fds[1]), "frames")
	defer r.Close()
	defer w.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var buf bytes.Buffer
	for _, tc := range []struct {
		name string
		got  any
		raw  bool
	}{
		{"non-blocking pipe, read end", quietReader(r), true},
		{"non-blocking pipe, write end", quietWriter(w), true},
		{"regular file", quietWriter(file), false},
		{"buffer", quietReader(&buf), false},
	} {
		if _, raw := tc.got.(*rawio.File); raw != tc.raw {
			t.Errorf("%s: read or written by raw system calls = %v, want %v", tc.name, raw, tc.raw)
		}
	}
}
