package rawio

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFile: a non-blocking pipe is read and written by raw system
// calls, with what it carries intact, EOF at its end, a read deadline
// kept, and the file's own errors once closed; a blocking file is left
// as it is. (A write to a pipe whose read end is closed is not tested:
// a child that parallel tests fork may hold the read end until it
// execs.)
func TestFile(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	qr, qw := NewFile(r), NewFile(w)
	if qr == nil || qw == nil {
		t.Fatal("a pipe's ends were not wrapped")
	}
	// Nothing written yet: a past deadline ends the read at once.
	if err := r.SetReadDeadline(time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := qr.Read(make([]byte, 8)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("Read past its deadline = %v, want os.ErrDeadlineExceeded", err)
	}
	if err := r.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
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
	if NewFile(f) != nil {
		t.Error("a blocking file was wrapped")
	}
	if Wrap(f) != io.ReadWriter(f) {
		t.Error("Wrap of a blocking file is not the file")
	}
}
