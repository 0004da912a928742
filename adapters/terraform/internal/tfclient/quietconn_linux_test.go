package tfclient

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestQuietConn: the quiet wrapper reads and writes what the socket
// carries, and fails as a net.Conn does, with the same messages: at a
// deadline, after Close, and at the peer's end.
func TestQuietConn(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	plain, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer := <-accepted
	if peer == nil {
		t.Fatal("accept failed")
	}
	c := quiet(plain)
	if _, ok := c.(*quietConn); !ok {
		t.Fatalf("quiet(%T) = %T, not the wrapper", plain, c)
	}

	// Larger than a socket buffer, so that Write waits for room.
	big := make([]byte, 8<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(peer, int64(len(big))))
		got <- b
	}()
	if n, err := c.Write(big); err != nil || n != len(big) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if b := <-got; string(b) != string(big) {
		t.Fatalf("the peer read %d bytes, not what was written", len(b))
	}
	if _, err := peer.Write([]byte("pong")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, err := io.ReadFull(c, buf[:4]); err != nil || string(buf[:n]) != "pong" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}

	// A deadline: the same error as the plain connection's.
	if err := c.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	_, qerr := c.Read(buf)
	var ne net.Error
	if !errors.As(qerr, &ne) || !ne.Timeout() || !errors.Is(qerr, os.ErrDeadlineExceeded) {
		t.Errorf("Read past the deadline = %v, not a timeout", qerr)
	}
	_ = plain.SetReadDeadline(time.Now().Add(-time.Second))
	if _, perr := plain.Read(buf); perr == nil || qerr == nil || perr.Error() != qerr.Error() {
		t.Errorf("Read past the deadline says %q, the plain connection %q", qerr, perr)
	}
	_ = c.SetReadDeadline(time.Time{})

	// The peer's end, then Close.
	peer.Close()
	if _, err := c.Read(buf); err != io.EOF {
		t.Errorf("Read at the peer's end = %v, not EOF", err)
	}
	c.Close()
	_, qerr = c.Read(buf)
	if !errors.Is(qerr, net.ErrClosed) {
		t.Errorf("Read after Close = %v, not net.ErrClosed", qerr)
	}
	if _, perr := plain.Read(buf); perr == nil || qerr == nil || perr.Error() != qerr.Error() {
		t.Errorf("Read after Close says %q, the plain connection %q", qerr, perr)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Write after Close = %v, not net.ErrClosed", err)
	}
}
