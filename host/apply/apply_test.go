package apply_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/host/apply"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/internal/testbin"
)

// TestApplyInProcess runs the scheduler in the test process, against the
// real local adapter, so that the race detector sees it: a fan-out of
// memos feeding files, applied, re-planned as unchanged, and destroyed.
func TestApplyInProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`
provider "local" {
  builtin = "local"
  parallelism = 3
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "m" {
  count    = 30
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "v${count.index}" }
}
`)
	for i := range 10 {
		fmt.Fprintf(&b, `
resource "f%d" {
  provider = provider.local
  type     = "file"
  state    = resource.state
  inputs   = { name = "f%d.txt", contents = "${resource.m[%d].outputs.value}+${resource.m[%d].outputs.value}" }
}
`, i, i, i, i+10)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	newEngine := func() (*engine.Engine, *events) {
		src, err := hclsource.Load(dir, hclsource.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ev := &events{}
		return engine.New(engine.Config{Source: src, Dir: dir, PierExecutable: testbin.Pier(t), Builtins: builtin.Capabilities, Parallelism: 8, Events: ev.add}), ev
	}

	e, ev := newEngine()
	p, err := plan.Make(t.Context(), e, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Summary(); s.Create != 40 {
		t.Fatalf("plan %+v, want 40 creates", s)
	}
	res, err := apply.Run(t.Context(), e, plan.NewRunTimePlanner(e), nil, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil || res.Created != 40 {
		t.Fatalf("apply: %d created, %v", res.Created, err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "f3.txt"))
	if err != nil || string(data) != "v3+v13" {
		t.Fatalf("f3.txt = %q, %v", data, err)
	}
	if got := ev.count(engine.StatusApplied); got != 40 {
		t.Errorf("%d APPLIED events, want 40", got)
	}

	e, _ = newEngine()
	p, err = plan.Make(t.Context(), e, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Summary(); s.NoOp != 40 || p.HasChanges() {
		t.Errorf("re-plan %+v, want 40 unchanged", s)
	}
	if started := e.ProvidersStarted(); started["local"] != 1 {
		t.Errorf("an unchanged plan started %v, want only the state handler's process", started)
	}
	e.Close()

	e, _ = newEngine()
	defer e.Close()
	p, err = plan.MakeDestroy(t.Context(), e)
	if err != nil {
		t.Fatal(err)
	}
	res, err = apply.Run(t.Context(), e, plan.NewRunTimePlanner(e), nil, p)
	if err != nil || res.Err() != nil || res.Destroyed != 40 {
		t.Fatalf("destroy: %d destroyed, %v %v", res.Destroyed, err, res.Err())
	}
	if _, err := os.Stat(filepath.Join(dir, "f3.txt")); !os.IsNotExist(err) {
		t.Errorf("f3.txt survived destroy: %v", err)
	}
}

type events struct {
	mu  sync.Mutex
	all []engine.Event
}

func (e *events) add(ev engine.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, ev)
}

func (e *events) count(s engine.Status) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, ev := range e.all {
		if ev.Type == engine.EventStatus && ev.Status == s {
			n++
		}
	}
	return n
}

// TestPlanRunsOnAnotherEngine: a plan carries its state handlers, so an
// engine that did not make it applies it, and the first engine keeps
// nothing of it.
func TestPlanRunsOnAnotherEngine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(`
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "m" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "v" }
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	newEngine := func() *engine.Engine {
		src, err := hclsource.Load(dir, hclsource.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return engine.New(engine.Config{Source: src, Dir: dir, PierExecutable: testbin.Pier(t), Builtins: builtin.Capabilities})
	}
	planner := newEngine()
	p, err := plan.Make(t.Context(), planner, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	planner.Close()
	runner := newEngine()
	res, err := apply.Run(t.Context(), runner, plan.NewRunTimePlanner(runner), nil, p)
	if err != nil || res.Err() != nil || res.Created != 1 {
		t.Fatalf("apply on another engine: %+v, %v, %v", res, err, res.Err())
	}
	// The runner holds the state's lock until it closes.
	runner.Close()
	checker := newEngine()
	defer checker.Close()
	again, err := plan.Make(t.Context(), checker, plan.Options{})
	if err != nil {
		t.Fatalf("plan after apply: %v", err)
	}
	if again.HasChanges() {
		t.Fatalf("plan after apply: changes %v", again.Summary())
	}
}
