package statefile

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/pierhq/pier/schema"
)

// logWithResources is a log of the init event and n create events, one per
// resource, as pier writes it.
func logWithResources(tb testing.TB, n int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	line, err := initEvent("2026-01-01T00:00:00Z").encodeLine()
	if err != nil {
		tb.Fatal(err)
	}
	buf.Write(line)
	for i := range n {
		ev := Event{Index: int64(i + 1), Meta: Meta{Time: "2026-01-01T00:00:00Z", Event: "create", NixopsVersion: "bench"}, Patch: createPatch(fmt.Sprint("resource-", i))}
		line, err := ev.encodeLine()
		if err != nil {
			tb.Fatal(err)
		}
		buf.Write(line)
	}
	return buf.Bytes()
}

// benchmarkAppend appends one create event (including its fsync) to a log
// that already holds n resources. Its cost must not grow with n.
func benchmarkAppend(b *testing.B, n int) {
	path := filepath.Join(b.TempDir(), "state.json")
	// Synced, so the first timed fsync does not also flush the setup.
	if err := writeFileSync(path, logWithResources(b, n)); err != nil {
		b.Fatal(err)
	}
	l, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := l.Append(Meta{Event: "create"}, createPatch(fmt.Sprint("new-", i))); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkAppend10(b *testing.B)    { benchmarkAppend(b, 10) }
func BenchmarkAppend10000(b *testing.B) { benchmarkAppend(b, 10_000) }

// benchmarkReplay replays a log of n create events, one per resource.
func benchmarkReplay(b *testing.B, n int) {
	data := logWithResources(b, n)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rep, err := Replay(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Events) != n+1 {
			b.Fatalf("%d events, want %d", len(rep.Events), n+1)
		}
	}
}

func BenchmarkReplay1000(b *testing.B)   { benchmarkReplay(b, 1_000) }
func BenchmarkReplay10000(b *testing.B)  { benchmarkReplay(b, 10_000) }
func BenchmarkReplay100000(b *testing.B) { benchmarkReplay(b, 100_000) }

// benchmarkApplyUpdate applies an update to one member deep inside a
// resource of a state holding n resources: the in-memory path.
func benchmarkApplyUpdate(b *testing.B, n int) {
	rep, d, err := replay(logWithResources(b, n))
	if err != nil || rep == nil {
		b.Fatal(err)
	}
	p := mustPatch(b, `[{"op":"replace","path":"/resources/resource-0/outputProperties/id","value":"x"}]`)
	b.ReportAllocs()
	for b.Loop() {
		if err := d.applyPatch(p); err != nil {
			b.Fatal(err)
		}
		d.commit()
	}
}

func BenchmarkApplyUpdate10(b *testing.B)    { benchmarkApplyUpdate(b, 10) }
func BenchmarkApplyUpdate10000(b *testing.B) { benchmarkApplyUpdate(b, 10_000) }

// benchmarkApplyArray appends to an array inside one resource, which goes
// to json-patch on that array only: it must not grow with n either.
func benchmarkApplyArray(b *testing.B, n int) {
	_, d, err := replay(logWithResources(b, n))
	if err != nil {
		b.Fatal(err)
	}
	if err := d.applyPatch(mustPatch(b, `[{"op":"add","path":"/resources/resource-0/outputProperties/list","value":[]}]`)); err != nil {
		b.Fatal(err)
	}
	d.commit()
	p := mustPatch(b, `[{"op":"add","path":"/resources/resource-0/outputProperties/list/0","value":1},{"op":"remove","path":"/resources/resource-0/outputProperties/list/0"}]`)
	b.ReportAllocs()
	for b.Loop() {
		if err := d.applyPatch(p); err != nil {
			b.Fatal(err)
		}
		d.commit()
	}
}

func BenchmarkApplyArray10(b *testing.B)    { benchmarkApplyArray(b, 10) }
func BenchmarkApplyArray10000(b *testing.B) { benchmarkApplyArray(b, 10_000) }

// benchmarkRead reads a state file of n resources as a planning command
// does: from its resolved-state cache when cached, by replaying otherwise.
func benchmarkRead(b *testing.B, n int, cached bool) {
	path := filepath.Join(b.TempDir(), "state.json")
	if err := writeFileSync(path, logWithResources(b, n)); err != nil {
		b.Fatal(err)
	}
	if cached {
		l, err := Open(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		s, err := Read(path)
		if err != nil {
			b.Fatal(err)
		}
		if (s.Encoded() != nil) != cached {
			b.Fatalf("read from the cache: %v, want %v", s.Encoded() != nil, cached)
		}
	}
}

func BenchmarkRead10000(b *testing.B)       { benchmarkRead(b, 10_000, false) }
func BenchmarkReadCached10000(b *testing.B) { benchmarkRead(b, 10_000, true) }

// benchmarkChangeOne is a command that changes one of n resources, as
// the local adapter runs it: it reads the state (from its cache), opens
// the log taking the read over, appends one update and closes the log,
// which rewrites the cache. Opening decodes only the resource the update
// reaches (lazy.go), and Close splices the cache (splice.go): what is
// left grows with the state is reading and hashing the files.
func benchmarkChangeOne(b *testing.B, n int) {
	path := filepath.Join(b.TempDir(), "state.json")
	if err := writeFileSync(path, logWithResources(b, n)); err != nil {
		b.Fatal(err)
	}
	l, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s, err := Read(path)
		if err != nil {
			b.Fatal(err)
		}
		l, err := Open(path, Options{Snapshot: s})
		if err != nil {
			b.Fatal(err)
		}
		i++
		if _, err := l.Append(Meta{Event: "update"}, createPatch(fmt.Sprint("resource-", i%n))); err != nil {
			b.Fatal(err)
		}
		if err := l.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkChangeOne10000(b *testing.B) { benchmarkChangeOne(b, 10_000) }

// BenchmarkApplyCreate applies what the engine records when it creates a
// resource (the pending operation; then the resource, with members in the
// engine's order, and the pending operation's removal) and removes the
// resource again: the in-memory cost of recording a create.
func BenchmarkApplyCreate(b *testing.B) {
	_, d, err := replay(logWithResources(b, 1000))
	if err != nil {
		b.Fatal(err)
	}
	pending := mustPatch(b, `[{"op":"add","path":"/pierPendingOperations","value":{}},{"op":"add","path":"/pierPendingOperations/t[9]","value":{"operation":"create","provider":"time","type":"time_static","started":"2026-12-04T03:48:22.619817667Z","input_properties":{"triggers":{"index":9}}}}]`)
	created := mustPatch(b, `[{"op":"add","path":"/resources/t[9]","value":{"type":"time_static","input_properties":{"triggers":{"index":9}},"output_properties":{"__tf":{"schema_version":0},"day":4,"hour":3,"id":"2026-12-04T03:48:23Z","minute":48,"month":12,"rfc3339":"2026-12-04T03:48:23Z","second":23,"triggers":{"index":"9"},"unix":1796356103,"year":2026},"provider":"time","dependencies":["state"]}},{"op":"remove","path":"/pierPendingOperations"}]`)
	destroyed := mustPatch(b, `[{"op":"remove","path":"/resources/t[9]"}]`)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range []schema.Patch{pending, created, destroyed} {
			if err := d.applyPatch(p); err != nil {
				b.Fatal(err)
			}
			d.commit()
		}
	}
}
