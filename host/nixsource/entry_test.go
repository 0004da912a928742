package nixsource

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/internal/nixops4state"
	"github.com/pierhq/pier/internal/testbin"
)

// writeFiles writes files (relative name → contents) under dir.
func writeFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// members is a deployment's members in NixOps4's raw shape: a state file
// and one memo, with builtin providers.
const members = `{
  state.resource = { provider.builtin = "local"; type = "state_file"; inputs.name = "state.json"; outputsSkeleton = { }; state = null; };
  greeting.resource = { provider.builtin = "local"; type = "memo"; inputs.initialize_with = "hello"; outputsSkeleton.value = { }; state = [ "state" ]; };
}`

// TestFileDeployment applies a deployment in a plain nixops4.nix with
// --file, as NixOps4's file evaluation reads one: the file evaluates to
// the component, imports beside it resolve, and relative paths are the
// file's directory's.
func TestFileDeployment(t *testing.T) {
	t.Parallel()
	needNix(t)
	dir, cwd := t.TempDir(), t.TempDir()
	writeFiles(t, dir, map[string]string{
		"nixops4.nix": `{ _type = "nixops4Component"; rootFunction = { outputValues, resourceProviderSystem, ... }: { members = import ./members.nix; }; }`,
		"members.nix": members,
	})
	file := filepath.Join(dir, "nixops4.nix")
	first := runPier(t, cwd, "apply", "--file", file)
	if d := cmp.Diff(map[string]float64{"created": 1, "updated": 0, "destroyed": 0}, first.summary(t)); d != "" {
		t.Errorf("apply --file (-want +got):\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(dir, "state.json")); err != nil {
		t.Errorf("the state file is not beside nixops4.nix: %v", err)
	}
	if left, _ := os.ReadDir(cwd); len(left) != 0 {
		t.Errorf("pier wrote into the working directory: %v", left)
	}
	again := runPier(t, dir, "plan", "--file", "nixops4.nix")
	if p := again.ofType("plan"); len(p) != 1 || p[0]["summary"].(map[string]any)["no_op"] != 1.0 {
		t.Errorf("plan --file after apply: %v", again.events)
	}

	writeFiles(t, dir, map[string]string{"bad.nix": `{ members = { }; }`})
	src, err := NewFile(filepath.Join(dir, "bad.nix"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Resolve(t.Context(), nil)
	var ee *EvalError
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "evaluate file "+filepath.Join(dir, "bad.nix")+": ") || !strings.Contains(err.Error(), "is not a NixOps4 component") {
		t.Errorf("a file that is not a component: err = %v", err)
	}
	if _, err := NewFile(dir, Options{}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("NewFile(a directory): err = %v", err)
	}
}

// TestLegacyExportShape reads flakes in NixOps4's export shape from
// before 2026-01-25: nixops4Deployments.NAME = { _type =
// "nixops4Deployment"; deploymentFunction; }.
func TestLegacyExportShape(t *testing.T) {
	t.Parallel()
	needNix(t)
	deployment := `{ _type = "nixops4Deployment"; deploymentFunction = { outputValues, resourceProviderSystem, ... }: { members = ` + members + `; }; }`
	one := `{ outputs = { self }: { nixops4Deployments.prod = ` + deployment + `; }; }`
	two := `{ outputs = { self }: { nixops4Deployments = { prod = ` + deployment + `; staging = ` + deployment + `; }; }; }`
	none := `{ outputs = { self }: { packages = { }; }; }`
	tests := map[string]struct {
		flake, attr string
		wantErr     string
		wantWarn    string
	}{
		"one deployment, no attribute": {flake: one, wantWarn: "#nixops4Deployments.prod is in NixOps4's export shape from before 2026-01-25"},
		"named by the reference":       {flake: two, attr: "#nixops4Deployments.staging", wantWarn: "#nixops4Deployments.staging is in NixOps4's export shape"},
		"several, none named":          {flake: two, wantErr: "several deployments in NixOps4's shape before 2026-01-25 (nixops4Deployments: prod staging); pick one with --flake REF#nixops4Deployments.NAME"},
		"neither shape":                {flake: none, wantErr: "#nixops4: flake 'path:"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"flake.nix": tc.flake})
			var warned []string
			src, err := New("path:"+dir+tc.attr, Options{Warn: func(m string) { warned = append(warned, m) }})
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				snap, err := src.Resolve(t.Context(), nil)
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
						t.Fatalf("Resolve: err = %v, want %q", err, tc.wantErr)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(snap.Ready) != 2 {
					t.Errorf("ready = %v, want state and greeting", snap.Ready)
				}
			}
			if len(warned) != 1 || !strings.Contains(warned[0], tc.wantWarn) {
				t.Errorf("warnings = %q, want one containing %q", warned, tc.wantWarn)
			}
		})
	}
}

// legacyDeployment is a deployment in the shape NixOps4's mkDeployment
// produced before commit 8ab123d (nix/lib/lib.nix and nix/deployment/ at
// 8ab123d's ancestor c55298b^): deploymentFunction takes { resources,
// deployments, resourceProviderSystem, ... } and returns { resources;
// deployments; }, nested deployments in the same shape, and reads outputs
// as resources.NAME.OUTPUT and deployments.NAME.resources.NAME.OUTPUT.
const legacyDeployment = `{
  _type = "nixops4Deployment";
  deploymentFunction = { resources, deployments, resourceProviderSystem, ... }: {
    resources = {
      state = { provider.builtin = "local"; type = "state_file"; inputs.name = "state.json"; outputsSkeleton = { }; state = null; };
      greeting = { provider.builtin = "local"; type = "memo"; inputs.initialize_with = "hello"; outputsSkeleton.value = { }; state = [ "state" ]; };
      echo = { provider.builtin = "local"; type = "memo"; inputs.initialize_with = "echo of ${deployments.web.resources.page.value}"; outputsSkeleton.value = { }; state = [ "state" ]; };
    };
    deployments.web = {
      resources.page = { provider.builtin = "local"; type = "memo"; inputs.initialize_with = "page for ${resources.greeting.value} on ${resourceProviderSystem}"; outputsSkeleton.value = { }; state = [ "state" ]; };
    };
  };
}`

// TestLegacyDeploymentFunction applies a deployment in the export shape
// NixOps4 shipped before 8ab123d, with outputs read across levels, and
// checks what it recorded as NixOps4 reads it.
func TestLegacyDeploymentFunction(t *testing.T) {
	t.Parallel()
	needNix(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"flake.nix": `{ outputs = { self }: { nixops4Deployments.prod = ` + legacyDeployment + `; }; }`})
	first := runPier(t, dir, "apply", "--flake", "path:"+dir)
	if d := cmp.Diff(map[string]float64{"created": 3, "updated": 0, "destroyed": 0}, first.summary(t)); d != "" {
		t.Errorf("apply (-want +got):\n%s\n%s", d, first.stderr)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := nixops4state.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	page := st.Deployments["web"].Resources["page"].OutputProperties["value"]
	if s, _ := page.(string); !strings.HasPrefix(s, "page for hello on ") {
		t.Errorf("web.page = %v, want it made from greeting's output", page)
	}
	if got := st.Resources["echo"].OutputProperties["value"]; got != "echo of "+page.(string) {
		t.Errorf("echo = %v, want it made from web.page's output", got)
	}
	again := runPier(t, dir, "plan", "--flake", "path:"+dir)
	if p := again.ofType("plan"); len(p) != 1 || p[0]["summary"].(map[string]any)["no_op"] != 3.0 {
		t.Errorf("plan after apply: %v", again.events)
	}

	// A name that is both a resource and a nested deployment has no one
	// address in a root component.
	clash := strings.Replace(legacyDeployment, "deployments.web = {", "deployments.echo = {", 1)
	clash = strings.Replace(clash, "deployments.web.resources.page.value", `"x"`, 1)
	writeFiles(t, dir, map[string]string{"flake.nix": `{ outputs = { self }: { nixops4Deployments.prod = ` + clash + `; }; }`})
	src, err := New("path:"+dir, Options{Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Resolve(t.Context(), nil); err == nil || !strings.Contains(err.Error(), "echo is both a resource and a nested deployment") {
		t.Errorf("Resolve of a clashing name: err = %v", err)
	}
}

// pierOut runs the real pier in dir and returns its stdout.
func pierOut(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.CommandContext(tb.Context(), testbin.Pier(tb), args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("pier %v: %v\n%s%s", args, err, out, stderr.String())
	}
	return string(out)
}

// TestMembersListAndStateDump runs pier members list and pier state dump
// PATH, the commands NixOps4 users type, on a flake in NixOps4's shape
// with a state file NixOps4 wrote.
func TestMembersListAndStateDump(t *testing.T) {
	t.Parallel()
	needNix(t)
	flake := copyFlake(t, "interop", nil)
	data, err := os.ReadFile(filepath.Join(flake, "nixops4-state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(flake, "state.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	ref := "path:" + flake
	if got := pierOut(t, flake, "members", "list", "--flake", ref); got != "app\nstate\ntoken\n" {
		t.Errorf("members list = %q, want app, state, token", got)
	}
	got := pierOut(t, flake, "members", "list", "--flake", ref, "--json", "app")
	if want := `{"message_type":"member","name":"motd","address":"app.motd","kind":"resource"}` + "\n"; got != want {
		t.Errorf("members list --json app = %q, want %q", got, want)
	}

	dump := pierOut(t, flake, "state", "dump", "--flake", ref, "state")
	st, err := nixops4state.ReadDocument([]byte(dump))
	if err != nil {
		t.Fatalf("state dump state is not a document NixOps4 reads: %v\n%s", err, dump)
	}
	if got := st.Resources["token"].OutputProperties["value"]; got != "from nixops4" {
		t.Errorf("state dump: token's value = %v\n%s", got, dump)
	}
	if got := st.Deployments["app"].Resources["motd"].InputProperties["initialize_with"]; got != "motd: from nixops4" {
		t.Errorf("state dump: app.motd's input = %v\n%s", got, dump)
	}
}
