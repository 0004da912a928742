package providersdk

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestQuietFile: a non-blocking pipe is read and written by raw system
// calls, with what it carries intact, EOF at its end and the file's own
// errors once closed; a blocking descriptor is left as it is.
func TestQuietFile(t *testing.T) {
	t.Parallel()
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "requests"), os.NewFile(uintptr(fds[1]), "frames")
	qr, ok := quietReader(r).(*quietFile)
	if !ok {
		t.Fatal("a non-blocking pipe's read end was not wrapped")
	}
	qw, ok := quietWriter(w).(*quietFile)
	if !ok {
		t.Fatal("a non-blocking pipe's write end was not wrapped")
	}
	// More than a pipe holds, so that both sides wait on the poller.
	big := make([]byte, 4<<20)
	for i := range big {
		big[i] = byte(i * 13)
	}
	errc := make(chan error, 1)
	go func() {
		n, err := qw.Write(big)
		if err == nil && n != len(big) {
			err = io.ErrShortWrite
		}
		w.Close()
		errc <- err
	}()
	got, err := io.ReadAll(qr)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("write: %v", err)
	}
	if string(got) != string(big) {
		t.Fatalf("read %d bytes, not the %d written", len(got), len(big))
	}
	if n, err := qr.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Errorf("Read at the end = %d, %v, not EOF", n, err)
	}
	r.Close()
	_, qerr := qr.Read(make([]byte, 8))
	_, ferr := r.Read(make([]byte, 8))
	if qerr == nil || ferr == nil || qerr.Error() != ferr.Error() {
		t.Errorf("Read after Close says %v, the file itself %v", qerr, ferr)
	}
	if _, err := qw.Write([]byte("x")); err == nil {
		t.Error("Write after Close succeeded")
	}

	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, ok := quietWriter(f).(*quietFile); ok {
		t.Error("a blocking file was wrapped")
	}
}
