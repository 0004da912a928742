package main

// Not a scenario: while pier runs, the test reads every descendant's argv and environment in /proc.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pierhq/pier/internal/testbin"
)

// These tests drive real Terraform providers (bin/tfproviders, built by
// `make tfproviders`) through pier's engine with the real pier binary: the
// engine starts `pier tf hold`, which starts the provider, and bridges
// (`pier adapter terraform --attach`) that share it.

// fixtureDeployment uses the fixture provider (plugin protocol 6), whose
// configuration holds a sensitive token, beside a time_sleep that keeps
// the run going long enough to look at every process while it runs.
const fixtureDeployment = `
variable "token" {
  type      = string
  sensitive = true
}
provider "local" { builtin = "local" }
provider "fixture" {
  terraform = "FIXTURE_PROVIDER"
  config    = { token = var.token, root = "${path.root}/files" }
}
provider "time" { terraform = "TIME_PROVIDER" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "secret_file" {
  provider = provider.fixture
  type     = "fixture_file"
  state    = resource.state
  inputs = {
    path              = "secret.txt"
    sensitive_content = "file-secret-content"
    metadata          = { owner = "ops", api_key = "meta-api-key" }
  }
}
resource "pause" {
  provider = provider.time
  type     = "time_sleep"
  state    = resource.state
  inputs   = { create_duration = "2s", triggers = { after = resource.secret_file.outputs.id } }
}
output "file_id" { value = resource.secret_file.outputs.id }
`

// fixtureToken is the fixture provider's default accepted token.
const fixtureToken = "fixture-secret-token"

func TestTerraformProviderConfigStaysSecret(t *testing.T) {
	t.Parallel()
	fixture := tfProviderForTest(t, "terraform-provider-fixture")
	timeProv := tfProviderForTest(t, "terraform-provider-time")
	d := &deployment{t: t, dir: t.TempDir(), pier: testbin.Pier(t)}
	hcl := strings.NewReplacer("FIXTURE_PROVIDER", fixture, "TIME_PROVIDER", timeProv).Replace(fixtureDeployment)
	// The token comes from a variable file: on pier's command line it
	// would be visible to every user of the machine.
	files := map[string]string{"main.pier.hcl": hcl, "secret.vars.hcl": fmt.Sprintf("token = %q\n", fixtureToken)}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(d.dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(d.dir, "files"), 0o755); err != nil {
		t.Fatal(err)
	}
	vars := []string{"--var-file", "secret.vars.hcl"}

	plan := d.mustRun(append([]string{"plan"}, vars...)...)
	if !strings.Contains(plan, "secret_file will be created") {
		t.Fatalf("plan:\n%s", plan)
	}
	// The fixture's schema marks these inputs sensitive: the plan shows
	// that they are set, not what they are.
	for _, want := range []string{`+ sensitive_content = "(sensitive value)"`, `+ metadata = {"api_key":"(sensitive value)","owner":"ops"}`} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan lacks %s:\n%s", want, plan)
		}
	}

	// Apply while watching every process's argv and environment.
	cmd := d.command(append([]string{"apply", "--verbose"}, vars...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	seen := map[string]bool{} // command lines seen while pier ran
	var leaks []string
	var runErr error
watch:
	for {
		leaks = append(leaks, scanProcs(t, cmd.Process.Pid, fixtureToken, seen)...)
		select {
		case runErr = <-waited:
			break watch
		case <-time.After(20 * time.Millisecond):
		}
	}
	if runErr != nil {
		t.Fatalf("apply: %v\n%s\n%s", runErr, stdout.String(), stderr.String())
	}
	if len(leaks) > 0 {
		t.Errorf("the provider token is on a command line or in an environment:\n%s", strings.Join(leaks, "\n"))
	}
	var sawBridge, sawProvider bool
	for c := range seen {
		sawBridge = sawBridge || strings.Contains(c, "adapter terraform --plugin "+fixture)
		sawProvider = sawProvider || strings.HasPrefix(c, fixture)
	}
	if !sawBridge || !sawProvider {
		t.Errorf("the watch missed the fixture bridge (%v) or provider (%v); saw:\n%s", sawBridge, sawProvider, strings.Join(slices.Sorted(maps.Keys(seen)), "\n"))
	}
	got, err := os.ReadFile(filepath.Join(d.dir, "files", "secret.txt"))
	if err != nil || string(got) != "file-secret-content" {
		t.Errorf("the fixture provider wrote %q, %v", got, err)
	}

	state, err := os.ReadFile(filepath.Join(d.dir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(d.dir, "state.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("state file mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	show := d.mustRun(append([]string{"state", "show"}, append(vars, "secret_file")...)...)
	dump := d.mustRun(append([]string{"state", "dump"}, vars...)...)
	for what, text := range map[string]string{
		"plan output": plan, "apply stdout": stdout.String(), "apply stderr (--verbose)": stderr.String(),
		"state file": string(state), "pier state show": show, "pier state dump": dump,
	} {
		if strings.Contains(text, fixtureToken) {
			t.Errorf("%s holds the provider token", what)
		}
	}
	// The schema marks sensitive_content and metadata.api_key sensitive:
	// state show hides them, in inputs and outputs alike.
	for _, secret := range []string{"file-secret-content", "meta-api-key"} {
		for what, text := range map[string]string{"pier state show": show, "pier plan": plan, "pier apply": stdout.String()} {
			if strings.Contains(text, secret) {
				t.Errorf("%s reveals %q:\n%s", what, secret, text)
			}
		}
	}
	var shown struct {
		InputProperties  map[string]any `json:"input_properties"`
		OutputProperties map[string]any `json:"output_properties"`
	}
	if err := json.Unmarshal([]byte(show), &shown); err != nil {
		t.Fatalf("state show: %v\n%s", err, show)
	}
	for name, props := range map[string]map[string]any{"inputs": shown.InputProperties, "outputs": shown.OutputProperties} {
		meta, _ := props["metadata"].(map[string]any)
		if props["sensitive_content"] != "(sensitive value)" || meta["api_key"] != "(sensitive value)" || meta["owner"] != "ops" {
			t.Errorf("state show %s: sensitive_content = %v, metadata = %v", name, props["sensitive_content"], props["metadata"])
		}
	}
	if shown.OutputProperties["content_sha256"] == "(sensitive value)" || shown.OutputProperties["path"] != "secret.txt" {
		t.Errorf("state show hides more than the sensitive attributes: %v", shown.OutputProperties)
	}

	out := d.mustRun(append([]string{"destroy", "--yes"}, vars...)...)
	if !strings.Contains(out, "2 destroyed") {
		t.Errorf("destroy:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(d.dir, "files", "secret.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("destroy left the fixture file: %v", err)
	}
}

// scanProcs reads the command line and environment of root and all its
// descendants, records the command lines in seen, and returns those that
// hold secret. Other processes on the machine are none of this test's
// business (and could mention the secret for their own reasons).
func scanProcs(t *testing.T, root int, secret string, seen map[string]bool) []string {
	t.Helper()
	pids, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		t.Fatal(err)
	}
	parent := map[int]int{}
	for _, p := range pids {
		stat, err := os.ReadFile(filepath.Join(p, "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(stat, ')')
		fields := strings.Fields(string(stat[i+1:]))
		pid, err1 := strconv.Atoi(filepath.Base(p))
		if i < 0 || len(fields) < 2 || err1 != nil {
			continue
		}
		ppid, err := strconv.Atoi(fields[1])
		if err == nil {
			parent[pid] = ppid
		}
	}
	under := func(pid int) bool {
		for n := 0; pid > 1 && n < 64; n++ {
			if pid == root {
				return true
			}
			pid = parent[pid]
		}
		return false
	}
	var leaks []string
	for pid := range parent {
		if !under(pid) {
			continue
		}
		p := "/proc/" + strconv.Itoa(pid)
		argv, err := os.ReadFile(filepath.Join(p, "cmdline"))
		if err != nil || len(argv) == 0 {
			continue // gone, or a zombie
		}
		line := strings.TrimSpace(strings.ReplaceAll(string(argv), "\x00", " "))
		seen[line] = true
		if strings.Contains(line, secret) {
			leaks = append(leaks, "argv of "+p+": "+line)
		}
		if env, err := os.ReadFile(filepath.Join(p, "environ")); err == nil && bytes.Contains(env, []byte(secret)) {
			leaks = append(leaks, "environment of "+p+" ("+line+")")
		}
	}
	return leaks
}
