package conformance

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pierhq/pier/internal/testneed"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/provider"
	"github.com/pierhq/pier/schema"
)

// Providers the tests run, relative to this package.
const (
	faultyProvider = "testdata/faulty.py"
	perlProvider   = "../../testdata/providers/perl/provider.pl"
	kvProvider     = "../../examples/providers/python-kv/provider.py"
)

// need skips the test when an interpreter is missing.
func need(t *testing.T, bin string) {
	t.Helper()
	testneed.Tool(t, bin)
}

// summary renders results as "ok name" / "FAIL name", the part of a
// result a test can pin down exactly (reasons carry stderr and paths).
func summary(t *testing.T, results []Result) []string {
	t.Helper()
	var out []string
	for _, r := range results {
		if r.Passed {
			out = append(out, "ok "+r.Name)
			continue
		}
		if r.Reason == "" {
			t.Errorf("check %q failed without a reason", r.Name)
		}
		out = append(out, "FAIL "+r.Name)
	}
	return out
}

// hangTimeout is the per-request bound of the hang case: far above any
// answer of faulty.py, however loaded the machine.
const hangTimeout = 20 * time.Second

func TestCheck(t *testing.T) {
	t.Parallel()
	// thing is faulty.py's resource that requires state; store is its
	// state provider.
	thing := func(fault string) Config {
		return Config{
			Provider: provider.Config{Executable: faultyProvider, Args: []string{fault},
				Operations: []schema.Operation{schema.OperationDestroy}},
			Type: "thing", Inputs: schema.Properties{"name": "a"}, UpdateInputs: schema.Properties{"name": "b"},
			Stateful: true, RequiresState: true,
		}
	}
	store := func(fault string) Config {
		return Config{
			Provider:      provider.Config{Executable: faultyProvider, Args: []string{fault}},
			Type:          "store",
			Inputs:        schema.Properties{"file": "state.json"},
			Stateful:      true,
			StateProvider: true,
		}
	}
	allThing := []string{
		"ok create", "ok update", "ok destroy", "ok several requests on one process",
		"ok error on unknown type", "ok error on unknown input field", "ok refuses create without state",
		"ok stdout carries only JSON lines", "ok clean exit when stdin closes",
	}
	// failing returns allThing with the named checks failed.
	failing := func(all []string, names ...string) []string {
		out := append([]string(nil), all...)
		for i, s := range out {
			for _, n := range names {
				if s == "ok "+n {
					out[i] = "FAIL " + n
				}
			}
		}
		return out
	}
	// without returns all without the named checks.
	without := func(all []string, names ...string) []string {
		var out []string
		for _, s := range all {
			keep := true
			for _, n := range names {
				keep = keep && s != "ok "+n
			}
			if keep {
				out = append(out, s)
			}
		}
		return out
	}
	allStore := []string{
		"ok create", "ok state read", "ok state event", "ok state read reflects event",
		"ok several requests on one process", "ok error on unknown type", "ok error on unknown input field",
		"ok stdout carries only JSON lines", "ok clean exit when stdin closes",
	}
	withRead := func(c Config) Config {
		c.Provider.Operations = append(c.Provider.Operations, schema.OperationRead)
		return c
	}
	// withReadResult inserts the read check's result after update.
	withReadResult := func(all []string, read string) []string {
		return append(append(append([]string(nil), all[:2]...), read), all[2:]...)
	}
	withTimeout := func(c Config, d time.Duration) Config { c.Provider.Timeout = d; return c }
	withExitTimeout := func(c Config, d time.Duration) Config { c.ExitTimeout = d; return c }

	tests := map[string]struct {
		interpreter string
		cfg         Config
		want        []string
	}{
		"correct provider": {"python3", thing("none"), allThing},
		"exits after one request": {"python3", thing("exit-after-one"),
			failing(allThing, CheckSeveral)},
		"logs to stdout": {"python3", thing("stdout-log"),
			failing(allThing, CheckUpdate, CheckStdout)},
		"crashes on unknown type": {"python3", thing("crash-unknown-type"),
			failing(allThing, CheckUnknownType)},
		"crashes on unknown type, no update": {"python3", Config{
			Provider: provider.Config{Executable: faultyProvider, Args: []string{"crash-unknown-type"}},
			Type:     "thing", Inputs: schema.Properties{"name": "a"}, Stateful: true,
		}, failing(without(allThing, CheckUpdate, CheckDestroy, CheckRequiresState), CheckUnknownType)},
		"accepts unknown input field": {"python3", thing("ignore-unknown-field"),
			failing(allThing, CheckUnknownField)},
		"pretends to be stateful": {"python3", thing("pretend-stateful"),
			failing(allThing, CheckRequiresState)},
		"schema-invalid create response": {"python3", thing("invalid-create"),
			failing(allThing, CheckCreate)},
		"wrong response kind for update": {"python3", thing("wrong-kind-update"),
			failing(allThing, CheckUpdate)},
		"refuses declared destroy": {"python3", thing("no-destroy"),
			failing(allThing, CheckDestroy)},
		"lingers after stdin closes": {"python3", withExitTimeout(thing("linger"), time.Second),
			failing(allThing, CheckCleanExit)},
		"exits non-zero after stdin closes": {"python3", thing("exit-nonzero"),
			failing(allThing, CheckCleanExit)},
		"writes after stdin closes": {"python3", thing("extra-after-last"),
			failing(allThing, CheckStdout)},
		// The bound covers every request of the session, and each process
		// the session restarts is a fresh Python: it must be long enough
		// for any of them on a loaded machine, so only the hang trips it.
		"hangs on create": {"python3", withTimeout(thing("hang-create"), hangTimeout),
			failing(allThing, CheckCreate)},
		"correct state provider": {"python3", store("none"), allStore},
		"declares read": {"python3", withRead(thing("none")),
			withReadResult(allThing, "ok read")},
		"read says gone": {"python3", withRead(thing("read-gone")),
			withReadResult(allThing, "FAIL read")},
		"state provider forgets events": {"python3", store("forget-event"),
			failing(allStore, CheckStateReflects)},
		"without optional checks": {"python3", Config{
			Provider: provider.Config{Executable: faultyProvider, Args: []string{"none"}},
			Type:     "thing", Inputs: schema.Properties{"name": "a"}, Stateful: true,
		}, without(allThing, CheckUpdate, CheckDestroy, CheckRequiresState)},
		"python-kv example": {"python3", Config{
			Provider: provider.Config{Executable: kvProvider, Operations: []schema.Operation{schema.OperationDestroy}},
			Type:     "kv", Inputs: schema.Properties{"dir": "kv", "key": "k", "value": "1"},
			UpdateInputs: schema.Properties{"dir": "kv", "key": "k2", "value": "2"},
			Stateful:     true, RequiresState: true,
		}, allThing},
		"perl note (stateless)": {"perl", Config{
			Provider: provider.Config{Executable: perlProvider, Operations: []schema.Operation{schema.OperationDestroy}},
			Type:     "note", Inputs: schema.Properties{"path": "note.txt", "text": "hi\n"},
			UpdateInputs: schema.Properties{"path": "note.txt", "text": "bye\n"},
		}, without(allThing, CheckRequiresState)},
		"perl token (requires state)": {"perl", Config{
			Provider: provider.Config{Executable: perlProvider, Operations: []schema.Operation{schema.OperationDestroy}},
			Type:     "token", Inputs: schema.Properties{"name": "t"}, UpdateInputs: schema.Properties{"name": "u"},
			Stateful: true, RequiresState: true,
		}, allThing},
		"perl ledger (state provider)": {"perl", Config{
			Provider: provider.Config{Executable: perlProvider},
			Type:     "ledger", Inputs: schema.Properties{"file": "ledger.json"},
			Stateful: true, StateProvider: true,
		}, allStore},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			need(t, tc.interpreter)
			cfg := tc.cfg
			exe, err := filepath.Abs(cfg.Provider.Executable)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Provider.Executable = exe
			cfg.Provider.Dir = t.TempDir()
			results, err := Check(t.Context(), cfg)
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			if diff := cmp.Diff(tc.want, summary(t, results)); diff != "" {
				for _, r := range results {
					if !r.Passed {
						t.Logf("%s: %s", r.Name, r.Reason)
					}
				}
				t.Errorf("results (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckReasons pins down that a failure explains itself in the
// guide's terms.
func TestCheckReasons(t *testing.T) {
	t.Parallel()
	need(t, "python3")
	tests := map[string]struct {
		fault, check, want string
	}{
		"exit after one":     {"exit-after-one", CheckSeveral, "exited after answering a request"},
		"stdout log":         {"stdout-log", CheckStdout, `"updating"`},
		"unknown field":      {"ignore-unknown-field", CheckUnknownField, "accepted an unknown input field"},
		"pretend stateful":   {"pretend-stateful", CheckRequiresState, "isStateful=false"},
		"crash":              {"crash-unknown-type", CheckUnknownType, "no such type pier-check-no-such-type"},
		"non-zero exit code": {"exit-nonzero", CheckCleanExit, "exit status 3"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			exe, err := filepath.Abs(faultyProvider)
			if err != nil {
				t.Fatal(err)
			}
			results, err := Check(t.Context(), Config{
				Provider: provider.Config{Executable: exe, Args: []string{tc.fault}, Dir: t.TempDir()},
				Type:     "thing", Inputs: schema.Properties{"name": "a"}, UpdateInputs: schema.Properties{"name": "b"},
				Stateful: true, RequiresState: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range results {
				if r.Name != tc.check {
					continue
				}
				if r.Passed || !strings.Contains(r.Reason, tc.want) {
					t.Errorf("%s: passed=%v reason %q, want a failure mentioning %q", r.Name, r.Passed, r.Reason, tc.want)
				}
				return
			}
			t.Errorf("no result for %s", tc.check)
		})
	}
}

func TestCheckErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		cfg  Config
		want string
	}{
		"missing executable": {Config{Provider: provider.Config{Executable: "/nonexistent/provider"}, Type: "x"}, "/nonexistent/provider"},
		"no type":            {Config{Provider: provider.Config{Executable: "/bin/true"}}, "no resource type"},
		"requires state but stateless": {Config{Provider: provider.Config{Executable: "/bin/true"}, Type: "x", RequiresState: true},
			"requires state"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Check(t.Context(), tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Check error = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}
