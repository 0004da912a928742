package postgres

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/adapters/postgres/pgtest"
	"github.com/pierhq/pier/internal/testbin"
)

// memoDeployment is a deployment of memo resources recorded in one
// handler, state_file or pg_state.
func memoDeployment(handler, key string, values map[string]string) string {
	var b strings.Builder
	b.WriteString(`provider "local" {
  builtin = "local"
}
provider "pg" {
  builtin = "postgres"
}
resource "pgstate" {
  provider = provider.pg
  type     = "pg_state"
  inputs   = { key = "` + key + `" }
}
resource "filestate" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "deploy.state" }
}
`)
	for name, v := range values {
		b.WriteString(`resource "` + name + `" {
  provider = provider.local
  type     = "memo"
  state    = resource.` + handler + `
  inputs   = { initialize_with = "` + v + `" }
}
`)
	}
	return b.String()
}

func writeDeployment(t testing.TB, c *checkout, hcl string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(c.dir, "main.pier.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
}

func memoCheckout(t testing.TB, srv *pgtest.Server) *checkout {
	t.Helper()
	return &checkout{t: t, dir: t.TempDir(), pier: testbin.Pier(t), env: append(baseEnv(), srv.Env(pgtest.Superuser)...)}
}

// TestHistoryAndShowAt, for both handlers: state history lists every
// event with what it touched, and state show --at INDEX reproduces exactly
// what state show printed when INDEX was the last event.
func TestHistoryAndShowAt(t *testing.T) {
	t.Parallel()
	srv := pgtest.Current(t)
	for _, handler := range []string{"pgstate", "filestate"} {
		t.Run(handler, func(t *testing.T) {
			t.Parallel()
			c := memoCheckout(t, srv)
			key := strings.ReplaceAll(t.Name(), "/", "-")
			// Three applies: create a, then add b, then remove a.
			steps := []map[string]string{{"a": "one"}, {"a": "one", "b": "two"}, {"b": "two"}}
			var shown []string // state show b, or "" where b is absent, after each apply
			var lastIndex []int64
			for _, values := range steps {
				writeDeployment(t, c, memoDeployment(handler, key, values))
				c.mustRun("apply", "--yes") // the third apply destroys a
				out, _, code := c.run("state", "show", "b")
				if code != 0 {
					out = ""
				}
				shown = append(shown, out)
				hist := c.mustRun("state", "history", "--state", handler)
				lines := strings.Split(strings.TrimSpace(hist), "\n")
				idx, err := strconv.ParseInt(strings.SplitN(lines[len(lines)-1], "\t", 2)[0], 10, 64)
				if err != nil {
					t.Fatalf("history:\n%s", hist)
				}
				lastIndex = append(lastIndex, idx)
			}
			hist := c.mustRun("state", "history", "--state", handler)
			// Each event's paths also name the pending operation it
			// clears (/pierPendingOperations).
			for _, want := range []string{"create /resources/a", "create /resources/b", "destroy /resources/a"} {
				if !historyHas(hist, want) {
					t.Errorf("history lacks %q:\n%s", want, hist)
				}
			}
			for i, idx := range lastIndex {
				at := strconv.FormatInt(idx, 10)
				out, errs, code := c.run("state", "show", "--at", at, "--state", handler, "b")
				if shown[i] == "" {
					if code == 0 {
						t.Errorf("after apply %d, b was not recorded, yet show --at %s prints:\n%s", i, at, out)
					}
					continue
				}
				if code != 0 {
					t.Fatalf("state show --at %s b: exit %d: %s", at, code, errs)
				}
				if diff := cmp.Diff(shown[i], out); diff != "" {
					t.Errorf("show --at %s differs from state show after apply %d (-then +now):\n%s", at, i, diff)
				}
			}
			// --json: one object per event, with what it touched.
			for _, line := range strings.Split(strings.TrimSpace(c.mustRun("state", "history", "--state", handler, "--json")), "\n") {
				var ev struct {
					MessageType string   `json:"message_type"`
					State       string   `json:"state"`
					Index       *int64   `json:"index"`
					Touched     []string `json:"touched"`
				}
				if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.MessageType != "event" || ev.State != handler || ev.Index == nil {
					t.Errorf("history --json line %q: %v", line, err)
				}
			}
			// Without an address: every resource as it was.
			out := c.mustRun("state", "show", "--at", strconv.FormatInt(lastIndex[1], 10), "--state", handler)
			var all map[string]any
			if err := json.Unmarshal([]byte(out), &all); err != nil || len(all) != 2 {
				t.Errorf("show --at %d: %v\n%s", lastIndex[1], err, out)
			}
		})
	}
}

// TestMoveStateFileToPostgres changes a deployment's state handler from a
// state_file to a pg_state: the next apply moves the records, nothing is
// created again, and pull and push copy the log to a fresh key.
func TestMoveStateFileToPostgres(t *testing.T) {
	t.Parallel()
	srv := pgtest.Current(t)
	c := memoCheckout(t, srv)
	key := t.Name()
	values := map[string]string{"a": "one", "b": "two"}
	writeDeployment(t, c, memoDeployment("filestate", key, values))
	c.mustRun("apply")
	before := c.mustRun("state", "show", "a")
	writeDeployment(t, c, memoDeployment("pgstate", key, values))
	if plan := c.mustRun("plan"); !strings.Contains(plan, "moves from state filestate to pgstate") {
		t.Errorf("plan does not say the records move:\n%s", plan)
	}
	c.mustRun("apply")
	list := c.mustRun("state", "list")
	if !strings.Contains(list, "a\tmemo\tlocal\t(in pgstate)") || !strings.Contains(list, "b\tmemo\tlocal\t(in pgstate)") {
		t.Errorf("after the move:\n%s", list)
	}
	// The memo kept its first value: it was moved, not created again.
	after := c.mustRun("state", "show", "a")
	if !strings.Contains(after, `"value": "one"`) || strings.Count(before, "one") != strings.Count(after, "one") {
		t.Errorf("a before the move:\n%s\nafter:\n%s", before, after)
	}
	if plan := c.mustRun("plan"); !strings.Contains(plan, "No changes") {
		t.Errorf("plan after the move:\n%s", plan)
	}
	rec := recorded(t, srv, key, "")
	if len(rec) != 2 {
		t.Errorf("pg_state records %d resources, want 2", len(rec))
	}

	// A backup: pull the log, push it into an empty key, and the copy
	// holds the same state.
	backup := filepath.Join(c.dir, "backup.log")
	c.mustRun("state", "pull", "--state", "pgstate", "--out", backup)
	writeDeployment(t, c, memoDeployment("pgstate", key+"-copy", values))
	out := c.mustRun("state", "push", "--state", "pgstate", backup)
	if !strings.Contains(out, "Copied") {
		t.Errorf("push said:\n%s", out)
	}
	if diff := cmp.Diff(rec, recorded(t, srv, key+"-copy", "")); diff != "" {
		t.Errorf("the pushed copy differs (-original +copy):\n%s", diff)
	}
	if _, errs, code := c.run("state", "push", "--state", "pgstate", backup); code == 0 || !strings.Contains(errs, "push only into an empty state") {
		t.Errorf("a second push: exit %d: %s", code, errs)
	}
	// And into a state_file handler: the pulled log is a valid state_file.
	c2 := memoCheckout(t, srv)
	writeDeployment(t, c2, memoDeployment("filestate", key+"-unused", values))
	c2.mustRun("state", "push", "--state", "filestate", backup)
	if list := c2.mustRun("state", "list"); !strings.Contains(list, "a\tmemo\tlocal\t(in filestate)") {
		t.Errorf("state_file after push:\n%s", list)
	}
	if plan := c2.mustRun("plan"); !strings.Contains(plan, "No changes") {
		t.Errorf("plan of the pushed state_file:\n%s", plan)
	}
}

// historyHas reports whether a line of pier state history has the event
// and, among its comma-separated paths, the path of want ("EVENT PATH").
func historyHas(hist, want string) bool {
	event, path, _ := strings.Cut(want, " ")
	for _, line := range strings.Split(hist, "\n") {
		f := strings.Split(line, "\t")
		if len(f) == 4 && f[2] == event && slices.Contains(strings.Split(f[3], ","), path) {
			return true
		}
	}
	return false
}
