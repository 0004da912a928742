package nixsource

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testneed"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/source"
)

// TestResolveRounds feeds outputs by hand between rounds, as the engine
// does after applying the ready resources.
func TestResolveRounds(t *testing.T) {
	t.Parallel()
	needNix(t)
	type round struct {
		known source.Outputs
		want  snapView
		// reused means the round must be answered without running nix.
		reused bool
	}
	provider := func(typ string, inputs map[string]any) readyView { return readyView{Type: typ, Inputs: inputs} }
	cases := map[string]struct {
		flake  string
		rounds []round
	}{
		"single file resource": {
			flake: "single",
			rounds: []round{{
				want: snapView{
					Ready:   map[string]readyView{"hello": provider("file", map[string]any{"name": "hello.txt", "contents": "hello from a flake\n"})},
					Blocked: map[string]blockedView{},
				},
			}},
		},
		"output interpolated into an input": {
			flake: "interp",
			rounds: []round{
				{
					want: snapView{
						Ready:   map[string]readyView{"db": provider("value", map[string]any{"value": "main-db"})},
						Blocked: map[string]blockedView{"web": {WaitsOn: []string{"db"}, Unknown: []string{"contents"}}},
					},
				},
				{
					known: source.Outputs{"db": {"value": "db-7"}},
					want: snapView{
						Ready: map[string]readyView{
							"db": provider("value", map[string]any{"value": "main-db"}),
							"web": {Type: "file", DependsOn: []string{"db"},
								Inputs: map[string]any{"name": "web.conf", "contents": "database = db-7\n"}},
						},
						Blocked: map[string]blockedView{},
					},
				},
				// Only outputs nobody waits on are new: nix need not run.
				{
					reused: true,
					known:  source.Outputs{"db": {"value": "db-7"}, "web": {"path": "/x"}},
					want: snapView{
						Ready: map[string]readyView{
							"db": provider("value", map[string]any{"value": "main-db"}),
							"web": {Type: "file", DependsOn: []string{"db"},
								Inputs: map[string]any{"name": "web.conf", "contents": "database = db-7\n"}},
						},
						Blocked: map[string]blockedView{},
					},
				},
				// db changed (an update): web is evaluated and traced afresh.
				{
					known: source.Outputs{"db": {"value": "db-8"}, "web": {"path": "/x"}},
					want: snapView{
						Ready: map[string]readyView{
							"db": provider("value", map[string]any{"value": "main-db"}),
							"web": {Type: "file", DependsOn: []string{"db"},
								Inputs: map[string]any{"name": "web.conf", "contents": "database = db-8\n"}},
						},
						Blocked: map[string]blockedView{},
					},
				},
			},
		},
		"member set depends on an output": {
			flake: "structural",
			rounds: []round{
				{
					want: snapView{
						Ready:   map[string]readyView{"size": provider("value", map[string]any{"value": "2"})},
						Blocked: map[string]blockedView{"replicas": {WaitsOn: []string{"size"}, Structural: true}},
					},
				},
				{
					known: source.Outputs{"size": {"value": "2"}},
					want: snapView{
						Ready: map[string]readyView{
							"size":        provider("value", map[string]any{"value": "2"}),
							"replicas.r0": {Type: "value", Inputs: map[string]any{"value": "replica-0"}, DependsOn: []string{"size"}},
							"replicas.r1": {Type: "value", Inputs: map[string]any{"value": "replica-1"}, DependsOn: []string{"size"}},
						},
						Blocked: map[string]blockedView{},
					},
				},
			},
		},
		"chain of dependent resources": {
			flake: "chain20",
			rounds: []round{
				{
					known: source.Outputs{"chain.c0": {"value": "c0"}, "chain.c1": {"value": "c0/c1"}},
					want: snapView{
						Ready: map[string]readyView{
							"chain.c0": provider("value", map[string]any{"value": "c0"}),
							"chain.c1": {Type: "value", Inputs: map[string]any{"value": "c0/c1"}, DependsOn: []string{"chain.c0"}},
							"chain.c2": {Type: "value", Inputs: map[string]any{"value": "c0/c1/c2"}, DependsOn: []string{"chain.c1"}},
						},
						Blocked: map[string]blockedView{
							"chain.c3": {WaitsOn: []string{"chain.c2"}, Unknown: []string{"value"}},
							"chain.c4": {WaitsOn: []string{"chain.c3"}, Unknown: []string{"value"}},
						},
					},
				},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src, err := New("path:"+copyFlake(t, tc.flake, nil), Options{})
			if err != nil {
				t.Fatal(err)
			}
			evaluated := 0
			for i, r := range tc.rounds {
				snap, err := src.Resolve(t.Context(), r.known)
				if err != nil {
					t.Fatalf("round %d: %v", i+1, err)
				}
				got := view(snap)
				if tc.flake == "chain20" {
					// Only the chain is of interest here.
					for k := range got.Ready {
						if strings.HasPrefix(k, "free") {
							delete(got.Ready, k)
						}
					}
				}
				if d := cmp.Diff(r.want, got); d != "" {
					t.Errorf("round %d (-want +got):\n%s", i+1, d)
				}
				if r.reused {
					if snap.Evaluation != nil {
						t.Errorf("round %d: evaluated (%+v), want the last round's answer", i+1, snap.Evaluation)
					}
					continue
				}
				evaluated++
				if snap.Evaluation == nil || snap.Evaluation.Round != evaluated || snap.Evaluation.Duration <= 0 {
					t.Errorf("round %d: evaluation = %+v, want round %d", i+1, snap.Evaluation, evaluated)
				}
			}
		})
	}
}

// TestResolveErrors checks that Nix errors and cycles name the members.
func TestResolveErrors(t *testing.T) {
	t.Parallel()
	needNix(t)
	cases := map[string]struct {
		flake      string
		attr       string
		known      source.Outputs
		wantMember string
		wantDecl   string
		wantBuild  string
		wantCycle  []string
		wantText   []string
	}{
		"cycle through a composite": {
			flake:     "cycle",
			wantCycle: []string{"a", "group.b", "c"},
			wantText: []string{"dependency cycle: a → group.b → c → a " +
				"(a needs group.b.value; group.b needs c.value; c needs a.value)"},
		},
		"type error in a nested member": {
			flake:      "typeerror",
			wantMember: "web.db",
			wantText:   []string{"member web.db:", "cannot add a string to an integer", "/typeerror/flake.nix:18:34"},
		},
		"provider without executable": {
			flake:    "baddecl",
			wantDecl: "web.server",
			wantText: []string{"/baddecl/flake.nix:8:11: flake path:", "resource web.server: provider has no executable"},
		},
		"known resource lacks a declared output": {
			flake:      "interp",
			known:      source.Outputs{"db": {"other": "x"}},
			wantMember: "web",
			wantText:   []string{"member web: resource db has no output 'value': its provider returned [ other ]"},
		},
		"top-level members depend on an output": {
			flake:    "rootdep",
			wantText: []string{"infinite recursion encountered", "/rootdep/flake.nix:7:9"},
		},
		"provider derivation fails to build": {
			flake:     "badbuild",
			wantBuild: "svc",
			wantText:  []string{"resource svc (provider provider-", "-broken-provider/bin/provider): realise /nix/store/", "broken-provider.drv", "fails on purpose"},
		},
		"attribute the flake lacks": {
			flake:    "single",
			attr:     "#nope",
			wantText: []string{"#nope: ", "does not provide attribute"},
		},
		"attribute that is no component": {
			flake:    "typeerror",
			attr:     "#plain",
			wantText: []string{"is not a NixOps4 component"},
		},
		"throw in a nested member": {
			flake:      "throw",
			wantMember: "app.config",
			wantText:   []string{"/throw/flake.nix:13:13: evaluate flake", "member app.config:", "app.config needs a domain name"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src, err := New("path:"+copyFlake(t, tc.flake, nil)+tc.attr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = src.Resolve(t.Context(), tc.known)
			if err == nil {
				t.Fatal("Resolve succeeded, want an error")
			}
			for _, w := range tc.wantText {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			var ee *EvalError
			var ce *CycleError
			var de *DeclError
			var re *RealiseError
			switch {
			case tc.wantBuild != "":
				if !errors.As(err, &re) {
					t.Fatalf("error %v is not a *RealiseError", err)
				}
				if got := re.Resource.String(); got != tc.wantBuild {
					t.Errorf("resource = %q, want %q", got, tc.wantBuild)
				}
			case tc.wantDecl != "":
				if !errors.As(err, &de) {
					t.Fatalf("error %v is not a *DeclError", err)
				}
				if got := de.Resource.String(); got != tc.wantDecl {
					t.Errorf("resource = %q, want %q", got, tc.wantDecl)
				}
			case tc.wantCycle != nil:
				if !errors.As(err, &ce) {
					t.Fatalf("error %v is not a *CycleError", err)
				}
				if d := cmp.Diff(tc.wantCycle, strs(ce.Cycle)); d != "" {
					t.Errorf("cycle (-want +got):\n%s", d)
				}
			default:
				if !errors.As(err, &ee) {
					t.Fatalf("error %v is not an *EvalError", err)
				}
				if got := ee.Member.String(); got != tc.wantMember {
					t.Errorf("member = %q, want %q", got, tc.wantMember)
				}
			}
		})
	}
}

// TestResolveRealisesDerivationProvider checks that a provider built by a
// derivation exists when Resolve returns its resource, by running it.
func TestResolveRealisesDerivationProvider(t *testing.T) {
	t.Parallel()
	needNix(t)
	src, err := New("path:"+copyFlake(t, "drvprovider", nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := src.Resolve(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Ready) != 1 {
		t.Fatalf("ready = %v, want one resource", view(snap))
	}
	r := snap.Ready[0]
	p := snap.Providers[r.Provider]
	if p == nil || !strings.HasPrefix(p.Executable, "/nix/store/") || !strings.HasSuffix(p.Executable, "/bin/provider") {
		t.Fatalf("provider = %+v, want a store path ending in /bin/provider", p)
	}
	req := `{"createResourceRequest":{"type":"value","inputProperties":{"value":"built"},"isStateful":false}}` + "\n"
	cmd := exec.CommandContext(t.Context(), p.Executable, p.Args...)
	cmd.Stdin = strings.NewReader(req)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run realised provider %s: %v", p.Executable, err)
	}
	var resp map[string]map[string]map[string]any
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("provider response %q: %v", out, err)
	}
	if got := resp["createResourceResponse"]["outputProperties"]["value"]; got != "built" {
		t.Errorf("provider answered %s, want value built", out)
	}
}

// TestResolveStatefulWithStateFile checks a resource whose state handler is
// pier's own state_file, with pier taken in as a path: flake input.
func TestResolveStatefulWithStateFile(t *testing.T) {
	t.Parallel()
	needNix(t)
	dir := copyFlake(t, "stateful", map[string]string{"@PIER_DIR@": pierDir(t)})
	src, err := New("path:"+dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := src.Resolve(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := snapView{
		Ready: map[string]readyView{
			"state":     {Type: "state_file", Inputs: map[string]any{"name": "pier-state.json"}},
			"app.token": {Type: "memo", Inputs: map[string]any{"initialize_with": "first"}, State: "state"},
		},
		Blocked: map[string]blockedView{},
	}
	if d := cmp.Diff(want, view(snap)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, r := range snap.Ready {
		p := snap.Providers[r.Provider]
		if d := cmp.Diff([]string{"adapter", "local"}, p.Args); d != "" {
			t.Errorf("%s: args (-want +got):\n%s", r.Address, d)
		}
		if d := cmp.Diff([]string{"destroy"}, p.Operations); d != "" {
			t.Errorf("%s: operations (-want +got):\n%s", r.Address, d)
		}
		if fi, err := os.Stat(p.Executable); err != nil || fi.Mode()&0o111 == 0 || !strings.HasPrefix(p.Executable, "/nix/store/") {
			t.Errorf("%s: executable %s is not an executable store path: %v", r.Address, p.Executable, err)
		}
	}
	if got := snap.Ready[0].Provider; got != snap.Ready[1].Provider {
		t.Errorf("equal provider declarations got different names %s and %s", got, snap.Ready[1].Provider)
	}
}

// TestResolveGitFlake checks git+file: flakes, including uncommitted
// changes in the working tree, and a plain path inside a git repository.
func TestResolveGitFlake(t *testing.T) {
	t.Parallel()
	needNix(t)
	testneed.Tool(t, "git")
	dir := copyFlake(t, "interp", nil)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "flake")
	dbValue := func(ref string) any {
		t.Helper()
		src, err := New(ref, Options{})
		if err != nil {
			t.Fatal(err)
		}
		snap, err := src.Resolve(t.Context(), nil)
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		return view(snap).Ready["db"].Inputs["value"]
	}
	if got := dbValue("git+file://" + dir); got != "main-db" {
		t.Errorf("clean tree: db value = %v, want main-db", got)
	}
	flake := filepath.Join(dir, "flake.nix")
	data, err := os.ReadFile(flake)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(flake, bytes.ReplaceAll(data, []byte(`"main-db"`), []byte(`"dirty-db"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"git+file://" + dir, dir + "#nixops4"} {
		if got := dbValue(ref); got != "dirty-db" {
			t.Errorf("%s with a dirty tree: db value = %v, want dirty-db", ref, got)
		}
	}
}

// TestResolveRelativeRef resolves "." against the working directory.
func TestResolveRelativeRef(t *testing.T) {
	needNix(t)
	dir := copyFlake(t, "single", nil)
	t.Chdir(dir)
	src, err := New(".", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := src.Installable(), dir+"#nixops4"; got != want {
		t.Errorf("installable = %q, want %q", got, want)
	}
	snap, err := src.Resolve(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Ready) != 1 || snap.Ready[0].Address.String() != "hello" {
		t.Errorf("ready = %v, want hello", view(snap))
	}
}

// TestResolveReusesUnchangedRound checks that a round with the same known
// outputs as the last one runs no nix and gives the same answer.
func TestResolveReusesUnchangedRound(t *testing.T) {
	t.Parallel()
	needNix(t)
	dir := copyFlake(t, "interp", nil)
	src, err := New("path:"+dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	known := source.Outputs{"db": {"value": "db-1"}}
	first, err := src.Resolve(t.Context(), known)
	if err != nil {
		t.Fatal(err)
	}
	// Without nix the flake cannot be evaluated: proof that the second
	// round does not run it.
	src.opts.NixBin = filepath.Join(t.TempDir(), "no-nix-here")
	second, err := src.Resolve(t.Context(), source.Outputs{"db": {"value": "db-1"}})
	if err != nil {
		t.Fatalf("unchanged round: %v", err)
	}
	if second.Evaluation != nil {
		t.Errorf("unchanged round reported an evaluation: %+v", second.Evaluation)
	}
	if d := cmp.Diff(view(first), view(second)); d != "" {
		t.Errorf("unchanged round (-first +second):\n%s", d)
	}
	if first.Ready[0] == second.Ready[0] {
		t.Error("unchanged round shares resources with the last snapshot")
	}
	// web's outputs are new, but no member waits on them.
	third, err := src.Resolve(t.Context(), source.Outputs{"db": {"value": "db-1"}, "web": {"path": "/x"}})
	if err != nil {
		t.Fatalf("round with outputs nobody waits on: %v", err)
	}
	if d := cmp.Diff(view(first), view(third)); d != "" || third.Evaluation != nil {
		t.Errorf("round with outputs nobody waits on: evaluation %+v (-first +third):\n%s", third.Evaluation, d)
	}
	for name, k := range map[string]source.Outputs{
		"changed output": {"db": {"value": "db-2"}, "web": {"path": "/x"}},
		"removed output": {"db": {"value": "db-1"}},
	} {
		if _, err := src.Resolve(t.Context(), k); err == nil {
			t.Errorf("%s: Resolve did not run nix", name)
		}
	}
}

// TestResolveRunsNixForAWaitedOutput checks that a new output a member
// waits on is evaluated, not answered from the last round.
func TestResolveRunsNixForAWaitedOutput(t *testing.T) {
	t.Parallel()
	needNix(t)
	src, err := New("path:"+copyFlake(t, "interp", nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Resolve(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	snap, err := src.Resolve(t.Context(), source.Outputs{"db": {"value": "db-1"}})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Evaluation == nil || snap.Evaluation.Round != 2 {
		t.Errorf("evaluation = %+v, want round 2", snap.Evaluation)
	}
	if got := view(snap).Ready["web"].Inputs["contents"]; got != "database = db-1\n" {
		t.Errorf("web contents = %v", got)
	}
}

// TestResolveGitSubdirPositions checks that an error in a flake kept in a
// subdirectory of a git repository points at the user's file, though nix
// copies the whole repository to the store.
func TestResolveGitSubdirPositions(t *testing.T) {
	t.Parallel()
	needNix(t)
	testneed.Tool(t, "git")
	repo := t.TempDir()
	dir := filepath.Join(repo, "deploy", "prod")
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(copyFlake(t, "typeerror", nil), dir); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	src, err := New(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Resolve(t.Context(), nil)
	if want := dir + "/flake.nix:18:34"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v does not point at %s", err, want)
	}
}
