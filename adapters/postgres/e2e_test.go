package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pierhq/pier/adapters/postgres/pgtest"
	"github.com/pierhq/pier/internal/testbin"
	pierschema "github.com/pierhq/pier/schema"
)

// checkout is one copy of a deployment in its own directory, as one team
// member's machine would hold it, driven through the real pier binary.
type checkout struct {
	t       testing.TB
	dir     string
	pier    string
	env     []string
	journal string // every exec that runs appends its resource's name
}

// spec describes the test deployment: n exec resources with once = true in
// a chain (each depends on the one before, so a kill lands between
// recorded steps), recorded in pg_state key. Each one, when created,
// appends its name to the journal and then waits for gate to exist, if a
// gate is set, or sleeps pause.
type spec struct {
	key      string
	n        int
	gate     string
	pause    string // seconds, for sleep
	schema   string
	conninfo string
}

func (s spec) hcl(journal string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `provider "local" {
  builtin = "local"
}
provider "pg" {
  builtin = "postgres"
}
resource "state" {
  provider = provider.pg
  type     = "pg_state"
  inputs   = { key = %q%s%s }
}
`, s.key, optional("schema", s.schema), optional("conninfo", s.conninfo))
	for i := range s.n {
		wait := ""
		switch {
		case s.gate != "":
			// Bounded (about 2 minutes), so that a test that dies before
			// opening the gate leaves no loop running.
			wait = fmt.Sprintf("; i=0; while [ ! -e %s ] && [ $i -lt 6000 ]; do sleep 0.02; i=$((i+1)); done", s.gate)
		case s.pause != "":
			wait = "; sleep " + s.pause
		}
		deps := ""
		if i > 0 {
			deps = fmt.Sprintf("\n  depends_on = [resource.r%d]", i-1)
		}
		fmt.Fprintf(&b, `resource "r%d" {
  provider = provider.local
  type     = "exec"
  state    = resource.state%s
  inputs = {
    executable = "/bin/sh"
    args       = ["-c", "echo r%d >> %s%s; echo made-r%d"]
    once       = true
  }
}
`, i, deps, i, journal, wait, i)
	}
	return b.String()
}

func optional(k, v string) string {
	if v == "" {
		return ""
	}
	return fmt.Sprintf(", %s = %q", k, v)
}

func newCheckout(t testing.TB, srv *pgtest.Server, s spec, journal string) *checkout {
	t.Helper()
	c := &checkout{t: t, dir: t.TempDir(), pier: testbin.Pier(t), journal: journal}
	c.env = append(baseEnv(), srv.Env(pgtest.Superuser)...)
	if err := os.WriteFile(filepath.Join(c.dir, "main.pier.hcl"), []byte(s.hcl(journal)), 0o644); err != nil {
		t.Fatal(err)
	}
	return c
}

// baseEnv is the environment without any libpq variable of the machine
// running the tests.
func baseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") {
			env = append(env, kv)
		}
	}
	return env
}

func (c *checkout) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, c.pier, args...)
	cmd.Dir = c.dir
	cmd.Env = c.env
	return cmd
}

// run runs pier to completion: stdout, stderr, exit code.
func (c *checkout) run(args ...string) (string, string, int) {
	c.t.Helper()
	cmd := c.command(context.Background(), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return out.String(), errb.String(), ee.ExitCode()
	case err != nil:
		c.t.Fatalf("run pier %v: %v", args, err)
	}
	return out.String(), errb.String(), 0
}

func (c *checkout) mustRun(args ...string) string {
	c.t.Helper()
	out, errs, code := c.run(args...)
	if code != 0 {
		c.t.Fatalf("pier %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// journalCounts counts how often each resource was created.
func journalCounts(t testing.TB, path string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]int{}
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, l := range strings.Fields(string(b)) {
		out[l]++
	}
	return out
}

// recorded reads the resources a state records, as a reader (no lock).
func recorded(t testing.TB, srv *pgtest.Server, key, schema string) map[string]map[string]any {
	t.Helper()
	s, err := Open(t.Context(), Config{Conninfo: srv.Conninfo(), Key: key, Schema: schema, ReadOnly: true})
	if err != nil {
		t.Fatalf("read state %q: %v", key, err)
	}
	defer s.Close(t.Context())
	out := map[string]map[string]any{}
	rs, _ := s.State()["resources"].(map[string]any)
	for k, v := range rs {
		out[k], _ = v.(map[string]any)
	}
	return out
}

// pendingOps lists the addresses with a pending operation in key's
// state (schema.PendingOperationsKey).
func pendingOps(t testing.TB, srv *pgtest.Server, key string) map[string]bool {
	t.Helper()
	s, err := Open(t.Context(), Config{Conninfo: srv.Conninfo(), Key: key, ReadOnly: true})
	if err != nil {
		t.Fatalf("read state %q: %v", key, err)
	}
	defer s.Close(t.Context())
	out := map[string]bool{}
	ops, _ := s.State()[pierschema.PendingOperationsKey].(map[string]any)
	for addr := range ops {
		out[addr] = true
	}
	return out
}

// waitUnlocked waits until a writer can take key's lock, and releases it.
func waitUnlocked(t testing.TB, srv *pgtest.Server, key string) {
	t.Helper()
	var err error
	for range 600 {
		var s *Store
		s, err = Open(t.Context(), Config{Conninfo: srv.Conninfo(), Key: key})
		if err == nil {
			s.Close(t.Context())
			return
		}
		var le *LockedError
		if !errors.As(err, &le) {
			break
		}
		sleepBriefly()
	}
	t.Fatalf("the lock of %q was not released: %v", key, err)
}

// waitFor waits until path exists or the process exits.
func waitFor(t testing.TB, path string, done <-chan error) {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("pier exited (%v) before %s appeared", err, path)
		case <-deadline:
			t.Fatalf("%s did not appear within 2 minutes", path)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func touch(t testing.TB, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

func start(t testing.TB, cmd *exec.Cmd, out, errb *bytes.Buffer) <-chan error {
	t.Helper()
	cmd.Stdout, cmd.Stderr = out, errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return done
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestConcurrentApplies starts two applies of one state from two
// checkouts at once, 20 times: exactly one wins, the loser names the
// winner's pid and command, and the state records each resource once.
func TestConcurrentApplies(t *testing.T) {
	t.Parallel()
	srv := pgtest.Current(t)
	tmp := t.TempDir()
	for trial := range 20 {
		key := fmt.Sprintf("%s-%d", t.Name(), trial)
		gate := filepath.Join(tmp, fmt.Sprintf("gate-%d", trial))
		journal := filepath.Join(tmp, fmt.Sprintf("journal-%d", trial))
		s := spec{key: key, n: 3, gate: gate}
		a, b := newCheckout(t, srv, s, journal), newCheckout(t, srv, s, journal)
		var outA, errA, outB, errB bytes.Buffer
		ca, cb := a.command(t.Context(), "apply"), b.command(t.Context(), "apply")
		doneA, doneB := start(t, ca, &outA, &errA), start(t, cb, &outB, &errB)
		// The winner waits at the gate, so the first to exit is the loser.
		var loser, winner *exec.Cmd
		var loserErr *bytes.Buffer
		var winnerDone <-chan error
		var lerr error
		select {
		case lerr = <-doneA:
			loser, winner, loserErr, winnerDone = ca, cb, &errA, doneB
		case lerr = <-doneB:
			loser, winner, loserErr, winnerDone = cb, ca, &errB, doneA
		case <-time.After(2 * time.Minute):
			t.Fatalf("trial %d: neither apply finished", trial)
		}
		touch(t, gate)
		werr := <-winnerDone
		// 4 is pier's "state locked" exit code, as for a state file.
		if exitCode(lerr) != 4 || exitCode(werr) != 0 {
			t.Fatalf("trial %d: exit codes %d (first out) and %d, want 4 (state locked) then 0\nA stderr:\n%s\nB stderr:\n%s", trial, exitCode(lerr), exitCode(werr), errA.String(), errB.String())
		}
		msg := loserErr.String()
		if want := fmt.Sprintf("locked by pid %d (pier apply)", winner.Process.Pid); !strings.Contains(msg, want) {
			t.Fatalf("trial %d: the loser (pid %d) says:\n%s\nwant it to name the holder: %q", trial, loser.Process.Pid, msg, want)
		}
		if !strings.Contains(msg, " since ") {
			t.Errorf("trial %d: the loser does not say since when: %s", trial, msg)
		}
		rec := recorded(t, srv, key, "")
		if len(rec) != 3 {
			t.Errorf("trial %d: %d resources recorded, want 3", trial, len(rec))
		}
		for name, n := range journalCounts(t, journal) {
			if n != 1 {
				t.Errorf("trial %d: %s created %d times", trial, name, n)
			}
		}
	}
}

// TestKillMidApply kills pier with SIGKILL at 20 points of an apply: the
// log stays readable, PostgreSQL releases the lock, a re-apply converges,
// and no resource the state had recorded is created again.
func TestKillMidApply(t *testing.T) {
	t.Parallel()
	srv := pgtest.Current(t)
	tmp := t.TempDir()
	for trial := range 20 {
		key := fmt.Sprintf("%s-%d", t.Name(), trial)
		journal := filepath.Join(tmp, fmt.Sprintf("journal-%d", trial))
		c := newCheckout(t, srv, spec{key: key, n: 6, pause: "0.03"}, journal)
		cmd := c.command(t.Context(), "apply")
		var out, errb bytes.Buffer
		done := start(t, cmd, &out, &errb)
		// The kill point: after the (trial mod 7)-th line of the journal
		// (0: at once, before any create), so the 20 trials spread over
		// the whole apply, from before the first event to after the last.
		point := trial % 7
		for journalLines(journal) < point {
			select {
			case <-done:
				goto exited
			case <-time.After(5 * time.Millisecond):
			}
		}
		// Then a random moment within that step: while the program runs,
		// while its event is recorded, or between steps.
		time.Sleep(rand.N(40 * time.Millisecond))
		cmd.Process.Signal(syscall.SIGKILL)
		<-done
	exited:
		waitUnlocked(t, srv, key)
		before := recorded(t, srv, key, "")
		beforeJournal := journalCounts(t, journal)
		pend := pendingOps(t, srv, key)
		t.Logf("trial %d: killed after %d create(s) began; %d recorded, %d pending", trial, point, len(before), len(pend))
		// A create that began and was not recorded is never silent: its
		// pending operation stays until the user says what became of it.
		// Here there is nothing to adopt (exec makes no object), so each
		// is resolved as absent, and the re-apply runs it again.
		for name := range beforeJournal {
			if before[name] == nil && !pend[name] {
				t.Errorf("trial %d: the create of %s began, and it is neither recorded nor pending", trial, name)
			}
		}
		for name := range pend {
			c.mustRun("state", "resolve", name, "--absent")
		}
		c.mustRun("apply")
		after := recorded(t, srv, key, "")
		if len(after) != 6 {
			t.Errorf("trial %d: %d resources recorded after the re-apply, want 6", trial, len(after))
		}
		counts := journalCounts(t, journal)
		for name, e := range before {
			if counts[name] != beforeJournal[name] {
				t.Errorf("trial %d: %s was recorded before the re-apply and was created again", trial, name)
			}
			if fmt.Sprint(after[name]["outputProperties"]) != fmt.Sprint(e["outputProperties"]) {
				t.Errorf("trial %d: %s changed: %v → %v", trial, name, e, after[name])
			}
		}
		if out := c.mustRun("plan"); !strings.Contains(out, "No changes") {
			t.Errorf("trial %d: the re-apply did not converge; plan says:\n%s", trial, out)
		}
	}
}

func journalLines(path string) int {
	b, _ := os.ReadFile(path)
	return bytes.Count(b, []byte{'\n'})
}

// TestReaderDuringApply reads the state from a second checkout while an
// apply holds the lock: state list, plan and output answer at once, with
// what was recorded so far.
func TestReaderDuringApply(t *testing.T) {
	t.Parallel()
	srv := pgtest.Current(t)
	tmp := t.TempDir()
	key := t.Name()
	journal := filepath.Join(tmp, "journal")
	// r0 is created by a first apply; the second apply adds r1, which
	// waits at the gate while the readers run.
	gate := filepath.Join(tmp, "gate")
	touch(t, gate)
	a := newCheckout(t, srv, spec{key: key, n: 1}, journal)
	a.mustRun("apply")
	if err := os.Remove(gate); err != nil {
		t.Fatal(err)
	}
	s := spec{key: key, n: 2, gate: gate}
	a = newCheckout(t, srv, s, journal)
	b := newCheckout(t, srv, s, journal)
	cmd := a.command(t.Context(), "apply")
	var out, errb bytes.Buffer
	done := start(t, cmd, &out, &errb)
	// r1 is being created once the journal names it: the apply holds the
	// lock until the gate opens.
	for !strings.Contains(readFile(journal), "r1") {
		select {
		case err := <-done:
			t.Fatalf("apply exited early: %v\n%s", err, errb.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	list := b.mustRun("state", "list")
	if !strings.Contains(list, "r0\texec") || strings.Contains(list, "r1") {
		t.Errorf("state list during the apply:\n%s\nwant r0 only: the snapshot before r1 is recorded", list)
	}
	plan := b.mustRun("plan")
	if !strings.Contains(plan, "r1 will be created") {
		t.Errorf("plan during the apply:\n%s", plan)
	}
	if _, errs, code := b.run("apply"); code != 4 || !strings.Contains(errs, "locked by pid") {
		t.Errorf("a second apply during the first: exit %d, stderr:\n%s", code, errs)
	}
	touch(t, gate)
	if err := <-done; err != nil {
		t.Fatalf("apply: %v\n%s", err, errb.String())
	}
	if list := b.mustRun("state", "list"); !strings.Contains(list, "r1\texec") {
		t.Errorf("state list after the apply:\n%s", list)
	}
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// TestServerStopsMidApply stops PostgreSQL (immediate mode: no goodbye to
// the clients) while an apply runs, on a server of its own: the apply
// fails promptly with a clear error, nothing it had recorded is lost, and
// after a restart a re-apply converges.
func TestServerStopsMidApply(t *testing.T) {
	t.Parallel()
	srv, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Stop("fast")
		os.RemoveAll(srv.Dir)
	})
	tmp := t.TempDir()
	key := t.Name()
	journal := filepath.Join(tmp, "journal")
	gate := filepath.Join(tmp, "gate")
	c := newCheckout(t, srv, spec{key: key, n: 4, gate: gate}, journal)
	// Record r0 and r1 first, then start the apply that stops at r2.
	touch(t, gate)
	c2 := newCheckout(t, srv, spec{key: key, n: 2, gate: gate}, journal)
	c2.mustRun("apply")
	if err := os.Remove(gate); err != nil {
		t.Fatal(err)
	}
	before := recorded(t, srv, key, "")
	cmd := c.command(t.Context(), "apply")
	var out, errb bytes.Buffer
	done := start(t, cmd, &out, &errb)
	for !strings.Contains(readFile(journal), "r2") {
		select {
		case err := <-done:
			t.Fatalf("apply exited early: %v\n%s", err, errb.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := srv.Stop("immediate"); err != nil {
		t.Fatal(err)
	}
	touch(t, gate) // r2's program finishes; its event cannot be recorded
	select {
	case err := <-done:
		if exitCode(err) == 0 {
			t.Fatalf("apply succeeded with the server stopped:\n%s", out.String())
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("apply did not fail within 2 minutes of the server stopping")
	}
	msg := errb.String()
	t.Logf("pier said, with the server stopped:\n%s", msg)
	if !strings.Contains(msg, "r2") || !strings.Contains(msg, "PostgreSQL state") {
		t.Errorf("the error does not say what failed to be recorded, and where:\n%s", msg)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	after := recorded(t, srv, key, "")
	for name, e := range before {
		if fmt.Sprint(after[name]) != fmt.Sprint(e) {
			t.Errorf("%s was recorded before the stop and is now %v (was %v)", name, after[name], e)
		}
	}
	// r2's create was cut off by the stop: it is pending, and apply
	// refuses it until the user resolves it (exec makes no object).
	if !pendingOps(t, srv, key)["r2"] {
		t.Errorf("r2's interrupted create is not recorded as pending")
	}
	c.mustRun("state", "resolve", "r2", "--absent")
	c.mustRun("apply")
	if out := c.mustRun("plan"); !strings.Contains(out, "No changes") {
		t.Errorf("the re-apply did not converge; plan says:\n%s", out)
	}
	if got := recorded(t, srv, key, ""); len(got) != 4 {
		t.Errorf("%d resources recorded after the re-apply, want 4", len(got))
	}
	counts := journalCounts(t, journal)
	for _, name := range []string{"r0", "r1"} {
		if counts[name] != 1 {
			t.Errorf("%s, recorded before the stop, was created %d times", name, counts[name])
		}
	}
}

// TestPasswordFromPassfileStaysSecret connects over TCP with password
// authentication as a role with the least privileges the docs list (it
// owns the schema an administrator made for it, and nothing more), the
// password in a PGPASSFILE: it appears in no output, in no command line or
// environment of pier's processes, and nowhere in the stored state.
func TestPasswordFromPassfileStaysSecret(t *testing.T) {
	t.Parallel()
	srv := pgtest.Current(t)
	const password = "pw-7f3c9a1e-do-not-print"
	if _, err := srv.Psql(`CREATE ROLE deployer LOGIN PASSWORD '` + password + `';
		CREATE SCHEMA team AUTHORIZATION deployer;
		REVOKE CREATE ON SCHEMA public FROM PUBLIC;`); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	passfile := filepath.Join(tmp, "pgpass")
	if err := os.WriteFile(passfile, []byte(fmt.Sprintf("127.0.0.1:%d:postgres:deployer:%s\n", srv.Port, password)), 0o600); err != nil {
		t.Fatal(err)
	}
	key := t.Name()
	journal := filepath.Join(tmp, "journal")
	gate := filepath.Join(tmp, "gate")
	c := newCheckout(t, srv, spec{key: key, n: 2, gate: gate, schema: "team"}, journal)
	c.env = append(baseEnv(), "PGHOST=127.0.0.1", "PGPORT="+strconv.Itoa(srv.Port), "PGUSER=deployer",
		"PGDATABASE=postgres", "PGPASSFILE="+passfile, "PGSSLMODE=disable")
	cmd := c.command(t.Context(), "apply")
	var out, errb bytes.Buffer
	done := start(t, cmd, &out, &errb)
	for !strings.Contains(readFile(journal), "r0") {
		select {
		case err := <-done:
			t.Fatalf("apply exited early: %v\n%s", err, errb.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	// While the apply runs, with its state handler connected: every
	// process's command line and environment.
	procs, _ := filepath.Glob("/proc/[0-9]*")
	scanned := 0
	for _, p := range procs {
		for _, f := range []string{"cmdline", "environ"} {
			b, err := os.ReadFile(filepath.Join(p, f))
			if err != nil {
				continue
			}
			scanned++
			if bytes.Contains(b, []byte(password)) {
				t.Errorf("the password is in %s/%s", p, f)
			}
		}
	}
	if scanned == 0 {
		t.Error("read no /proc/*/cmdline or environ")
	}
	touch(t, gate)
	if err := <-done; err != nil {
		t.Fatalf("apply: %v\n%s", err, errb.String())
	}
	outs := []string{out.String(), errb.String()}
	o, e, _ := c.run("state", "list")
	outs = append(outs, o, e)
	o, e, _ = c.run("state", "dump")
	outs = append(outs, o, e)
	for _, s := range outs {
		if strings.Contains(s, password) {
			t.Errorf("the password is in pier's output:\n%s", s)
		}
	}
	if !strings.Contains(o, "made-r1") {
		t.Errorf("state dump as deployer:\n%s", o)
	}
	dump, err := srv.Psql("SELECT concat_ws(' ', (SELECT string_agg(t::text, ' ') FROM team.events t), (SELECT string_agg(t::text, ' ') FROM team.snapshots t), (SELECT string_agg(t::text, ' ') FROM team.holders t))")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dump, "made-r1") || strings.Contains(dump, password) {
		t.Errorf("stored rows hold the password, or not the state:\n%s", dump)
	}
	// A read-only role, granted what docs/postgres.md lists for readers,
	// can plan and list; it cannot apply.
	if _, err := srv.Psql(`CREATE ROLE reader LOGIN PASSWORD '` + password + `';
		GRANT USAGE ON SCHEMA team TO reader; GRANT SELECT ON ALL TABLES IN SCHEMA team TO reader;`); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(passfile, []byte(fmt.Sprintf("127.0.0.1:%d:postgres:reader:%s\n", srv.Port, password)), 0o600); err != nil {
		t.Fatal(err)
	}
	reader := *c
	reader.env = append(slices.Clone(c.env), "PGUSER=reader")
	if list := reader.mustRun("state", "list"); !strings.Contains(list, "r1\texec") {
		t.Errorf("state list as reader:\n%s", list)
	}
	if plan := reader.mustRun("plan"); !strings.Contains(plan, "No changes") {
		t.Errorf("plan as reader:\n%s", plan)
	}
	if _, errs, code := reader.run("apply"); code == 0 || !strings.Contains(errs, "permission denied") {
		t.Errorf("apply as reader: exit %d\n%s", code, errs)
	}

	// A wrong password fails with an error that does not repeat it.
	if err := os.WriteFile(passfile, []byte(fmt.Sprintf("127.0.0.1:%d:postgres:deployer:wrong-%s\n", srv.Port, password)), 0o600); err != nil {
		t.Fatal(err)
	}
	o, e, code := c.run("apply")
	if code == 0 || strings.Contains(o+e, password) || !strings.Contains(e, "password authentication failed") {
		t.Errorf("apply with a wrong password: exit %d\n%s%s", code, o, e)
	}
}
