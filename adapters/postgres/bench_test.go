package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/adapters/postgres/pgtest"
	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/statefile"
)

// Benchmarks of pg_state beside state_file, on the same machine, against a
// server of their own with PostgreSQL's durability settings (fsync on; the
// tests' server turns it off), so both handlers pay for durable writes:
//
//	go test ./adapters/postgres -run '^$' -bench . -benchtime 3x
//
// They are measurements, not tests: nothing here asserts a time.

func durableServer(b *testing.B) *pgtest.Server {
	b.Helper()
	srv, err := pgtest.Start("fsync=on", "full_page_writes=on")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		srv.Stop("fast")
		os.RemoveAll(srv.Dir)
	})
	return srv
}

// memoBenchHCL is n memo resources recorded in one handler.
func memoBenchHCL(handler string, n int, key string) string {
	state := `resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}`
	if handler == "pg_state" {
		state = `resource "state" {
  provider = provider.pg
  type     = "pg_state"
  inputs   = { key = "` + key + `" }
}`
	}
	return fmt.Sprintf(`provider "local" {
  builtin = "local"
}
provider "pg" {
  builtin = "postgres"
}
%s
resource "m" {
  count    = %d
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "value-${count.index}" }
}
`, state, n)
}

func benchApply(b *testing.B, srv *pgtest.Server, dir string) {
	b.Helper()
	cmd := exec.Command(testbin.Pier(b), "apply")
	cmd.Dir = dir
	cmd.Env = append(baseEnv(), srv.Env(pgtest.Superuser)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("pier apply: %v\n%s", err, out)
	}
}

// BenchmarkNoopApply10000 re-applies an unchanged deployment of 10,000
// memo resources: the cost is starting pier, reading the state and
// planning; no provider but the state handler runs.
func BenchmarkNoopApply10000(b *testing.B) {
	srv := durableServer(b)
	for _, handler := range []string{"state_file", "pg_state"} {
		b.Run(handler, func(b *testing.B) {
			dir := b.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(memoBenchHCL(handler, 10000, "noop")), 0o644); err != nil {
				b.Fatal(err)
			}
			benchApply(b, srv, dir) // the fresh apply, not timed
			for b.Loop() {
				benchApply(b, srv, dir)
			}
		})
	}
}

// BenchmarkFreshApply1000 creates 1000 memo resources into an empty state.
func BenchmarkFreshApply1000(b *testing.B) {
	srv := durableServer(b)
	for _, handler := range []string{"state_file", "pg_state"} {
		b.Run(handler, func(b *testing.B) {
			i := 0
			for b.Loop() {
				b.StopTimer()
				dir := b.TempDir()
				i++
				if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(memoBenchHCL(handler, 1000, fmt.Sprintf("fresh-%d", i))), 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				benchApply(b, srv, dir)
			}
		})
	}
}

// benchState is a patch that adds n resources at once.
func benchState(b *testing.B, n int) schema.Patch {
	b.Helper()
	all := make(map[string]any, n)
	for i := range n {
		all[fmt.Sprintf("r%d", i)] = map[string]any{"type": "memo", "input_properties": map[string]any{"initialize_with": i}, "output_properties": map[string]any{"value": i}}
	}
	v, err := json.Marshal(all)
	if err != nil {
		b.Fatal(err)
	}
	return schema.Patch{{Op: "replace", Path: "/resources", Value: v}}
}

var benchEvent = schema.Patch{{Op: "replace", Path: "/resources/r0/output_properties/value", Value: json.RawMessage(`42`)}}

// BenchmarkAppend records one small event into a state of 10 and of
// 10,000 resources: the cost must not grow with the state.
func BenchmarkAppend(b *testing.B) {
	srv := durableServer(b)
	for _, n := range []int{10, 10000} {
		b.Run(fmt.Sprintf("state_file/%d", n), func(b *testing.B) {
			l, err := statefile.Open(filepath.Join(b.TempDir(), "state.json"), statefile.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			if _, err := l.Append(statefile.Meta{Event: "create"}, benchState(b, n)); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := l.Append(statefile.Meta{Event: "update"}, benchEvent); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("pg_state/%d", n), func(b *testing.B) {
			s, err := Open(b.Context(), Config{Conninfo: srv.Conninfo(), Key: strings.ReplaceAll(b.Name(), "/", "-")})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close(context.Background())
			if _, err := s.Append(b.Context(), statefile.Meta{Event: "create"}, benchState(b, n)); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := s.Append(b.Context(), statefile.Meta{Event: "update"}, benchEvent); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// memoState is a patch that records n memos as bench/scale.sh's
// deployment does: inputs and outputs of their own, a provider and a
// dependency each.
func memoState(b *testing.B, n int) schema.Patch {
	b.Helper()
	v := []byte(`{`)
	for i := range n {
		if i > 0 {
			v = append(v, ',')
		}
		v = fmt.Appendf(v, `"a[%d]":{"type":"memo","input_properties":{"initialize_with":"a-%d"},"output_properties":{"value":"a-%d"},"provider":"local","dependencies":["state"]}`, i, i, i)
	}
	return schema.Patch{{Op: "replace", Path: "/resources", Value: append(v, '}')}}
}

// BenchmarkStateRead100000 is what a pg_state adapter does for a command's
// state read of 100,000 memos, from opening the state to the bytes of the
// response's state, as providersdk sends it: the snapshot alone, and
// with an event after it.
func BenchmarkStateRead100000(b *testing.B) {
	srv := pgtest.Current(b)
	for _, events := range []int{0, 1} {
		b.Run(fmt.Sprintf("events=%d", events), func(b *testing.B) {
			key := strings.ReplaceAll(b.Name(), "/", "-")
			w, err := Open(b.Context(), Config{Conninfo: srv.Conninfo(), Key: key, SnapshotEvery: 1})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := w.Append(b.Context(), statefile.Meta{Event: "create"}, memoState(b, 100000)); err != nil {
				b.Fatal(err)
			}
			if err := w.Close(context.Background()); err != nil { // the snapshot
				b.Fatal(err)
			}
			if events > 0 {
				w, err := Open(b.Context(), Config{Conninfo: srv.Conninfo(), Key: key})
				if err == nil {
					_, err = w.Append(b.Context(), statefile.Meta{Event: "update"}, schema.Patch{{Op: "replace", Path: "/resources/a[5]/output_properties/value", Value: json.RawMessage(`"x"`)}})
				}
				if err != nil {
					b.Fatal(err)
				}
				if err := w.Close(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			req := &schema.StateResourceReadRequest{Resource: schema.ExtantResource{Type: StateType, InputProperties: schema.Properties{"key": key, "conninfo": srv.Conninfo()}}}
			b.ReportAllocs()
			for b.Loop() {
				p := New(Options{ReadOnly: true})
				var state []byte
				if er, ok := any(p).(interface {
					StateReadEncoded(context.Context, *schema.StateResourceReadRequest) ([]byte, bool, error)
				}); ok {
					state, ok, err = er.StateReadEncoded(b.Context(), req)
					if !ok && err == nil {
						b.Fatal("no encoded state")
					}
				} else {
					var r *schema.StateResourceReadResponse
					if r, err = p.StateRead(b.Context(), req); err == nil {
						state, err = (&schema.Response{StateResourceReadResponse: r}).AppendJSON(nil)
					}
				}
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(state)))
				p.Close()
			}
		})
	}
}
