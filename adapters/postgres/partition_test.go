package postgres

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pierhq/pier/adapters/postgres/pgtest"
)

// blackHole is a TCP proxy on 127.0.0.1 to the test server that can stop
// forwarding: after drop, what either side sends is read and discarded,
// and no close is passed on, as across a network partition. Both sides'
// TCP stacks keep answering (the proxy's does), so only what needs the
// peer itself to answer can notice.
type blackHole struct {
	ln       net.Listener
	target   string
	dropping atomic.Bool
	mu       sync.Mutex
	conns    []net.Conn
	wg       sync.WaitGroup
}

func newBlackHole(t testing.TB, target string) *blackHole {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &blackHole{ln: ln, target: target}
	b.wg.Go(b.accept)
	t.Cleanup(b.close)
	return b
}

func (b *blackHole) port() int { return b.ln.Addr().(*net.TCPAddr).Port }

// drop stops forwarding, for good.
func (b *blackHole) drop() { b.dropping.Store(true) }

func (b *blackHole) accept() {
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", b.target)
		if err != nil {
			c.Close()
			continue
		}
		b.mu.Lock()
		b.conns = append(b.conns, c, s)
		b.mu.Unlock()
		b.wg.Go(func() { b.pipe(s, c) })
		b.wg.Go(func() { b.pipe(c, s) })
	}
}

// pipe copies src to dst until src ends, or discards it once dropping.
func (b *blackHole) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !b.dropping.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if !b.dropping.Load() && !errors.Is(err, net.ErrClosed) {
				dst.Close() // a close passes while the network works
			}
			return
		}
	}
}

func (b *blackHole) close() {
	b.ln.Close()
	b.mu.Lock()
	for _, c := range b.conns {
		c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

// lockHeld reports whether some session holds key's advisory lock.
func lockHeld(t testing.TB, srv *pgtest.Server, key string) bool {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), srv.Conninfo())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	u := uint64(lockID(DefaultSchema, key))
	var n int
	if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted
		AND classid = $1::bigint::oid AND objid = $2::bigint::oid AND objsubid = 1`, int64(u>>32), int64(u&0xffffffff)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// eventCount counts key's events.
func eventCount(t testing.TB, srv *pgtest.Server, key string) int {
	t.Helper()
	out, err := srv.Psql(fmt.Sprintf("SELECT count(*) FROM pier.events WHERE state_key = '%s'", key))
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("event count %q: %v", out, err)
	}
	return n
}

// TestPartitionedWriterLosesLock (issue 24, item 7): an apply reaches the
// server through a proxy that then black-holes the connection while the
// apply holds the lock. The server ends the apply's session, and so frees
// its lock, within the session timeout, and another pier takes it; the
// partitioned apply writes nothing more and fails, saying the lock is
// lost. Without the session bounds the lock stays held for hours.
func TestPartitionedWriterLosesLock(t *testing.T) {
	t.Parallel()
	srv := pgtest.Current(t)
	const password = "pw-partition-4c1d"
	if _, err := srv.Psql(`CREATE ROLE partitioned LOGIN SUPERUSER PASSWORD '` + password + `'`); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	passfile := filepath.Join(tmp, "pgpass")
	proxy := newBlackHole(t, "127.0.0.1:"+strconv.Itoa(srv.Port))
	if err := os.WriteFile(passfile, []byte(fmt.Sprintf("127.0.0.1:%d:postgres:partitioned:%s\n", proxy.port(), password)), 0o600); err != nil {
		t.Fatal(err)
	}
	// The real mechanism with a shorter bound, so that the test takes
	// seconds, not minutes.
	const bound = 8 * time.Second
	key := t.Name()
	journal := filepath.Join(tmp, "journal")
	gate := filepath.Join(tmp, "gate")
	a := newCheckout(t, srv, spec{key: key, n: 2, gate: gate}, journal)
	a.env = append(baseEnv(), "PGHOST=127.0.0.1", "PGPORT="+strconv.Itoa(proxy.port()), "PGUSER=partitioned",
		"PGDATABASE=postgres", "PGPASSFILE="+passfile, "PGSSLMODE=disable", SessionTimeoutEnv+"="+bound.String())
	var out, errb bytes.Buffer
	done := start(t, a.command(t.Context(), "apply"), &out, &errb)
	for !strings.Contains(readFile(journal), "r0") {
		select {
		case err := <-done:
			t.Fatalf("apply exited early: %v\n%s", err, errb.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if !lockHeld(t, srv, key) {
		t.Fatal("the apply does not hold its state's lock")
	}
	events := eventCount(t, srv, key)

	cut := time.Now()
	proxy.drop()
	// Generous for a loaded machine; without the bounds it is hours.
	deadline := cut.Add(3 * bound)
	for lockHeld(t, srv, key) {
		if time.Now().After(deadline) {
			t.Fatalf("the partitioned apply's lock is still held %s after the partition (bound %s)", time.Since(cut).Round(time.Second), bound)
		}
		time.Sleep(100 * time.Millisecond)
	}
	freed := time.Since(cut)
	t.Logf("lock freed %s after the partition (bound %s)", freed.Round(100*time.Millisecond), bound)

	// Another pier takes the lock (plan -out holds it while it plans).
	b := newCheckout(t, srv, spec{key: key, n: 2}, filepath.Join(tmp, "journal-b"))
	if _, errs, code := b.run("plan", "-out", filepath.Join(tmp, "plan")); code != 0 {
		t.Fatalf("another pier could not take the freed lock: exit %d\n%s", code, errs)
	}

	// The partitioned apply finishes its create, and must not record it.
	touch(t, gate)
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the partitioned apply did not exit")
	}
	if exitCode(err) != 1 {
		t.Errorf("partitioned apply: %v, want exit 1\n%s", err, errb.String())
	}
	for _, want := range []string{"r0", "the connection to PostgreSQL was lost, or did not answer within", "the state lock with it", "the change was made but not recorded"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("partitioned apply's stderr lacks %q:\n%s", want, errb.String())
		}
	}
	if got := eventCount(t, srv, key); got != events {
		t.Errorf("the state has %d events, %d before the partition: the partitioned apply wrote after losing its lock", got, events)
	}
	if p := pendingOps(t, srv, key); !p["r0"] {
		t.Errorf("pending operations %v: r0's create, which the partitioned apply made, must stay pending", p)
	}
	if _, ok := recorded(t, srv, key, "")["r0"]; ok {
		t.Error("r0 is recorded, although its apply had lost the lock")
	}
}
