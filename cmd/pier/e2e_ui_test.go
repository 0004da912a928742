package main

// Not a scenario: the tests drive pier ui with a headless chromium and read the page it renders.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

// The web view's tests drive the real pier binary and a real headless
// chromium, and assert on what a person sees: nodes, statuses, counts.
// Screenshots go to the test's artifact directory (go test -artifacts
// keeps them).

// uiBound bounds every wait on the browser: generous, for a loaded
// machine; each wait ends as soon as its condition holds.
const uiBound = 3 * time.Minute

// startUI runs `pier ARGS` in dir and returns the URL it prints; the
// process is interrupted when the test ends.
func startUI(t *testing.T, dir string, env []string, args ...string) (url string, wait func() error) {
	t.Helper()
	return startUIWith(t, testbin.Pier(t), dir, env, args...)
}

// startUIWith is startUI with the pier binary at bin.
func startUIWith(t *testing.T, bin, dir string, env []string, args ...string) (url string, wait func() error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errOut, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	exited := make(chan struct{})
	t.Cleanup(func() {
		// As a user would: Ctrl-C, and again if running operations do
		// not finish; a test that failed may have left one waiting.
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
			return
		case <-time.After(10 * time.Second):
		}
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(uiBound):
			cmd.Process.Kill()
			<-exited
		}
	})
	found := make(chan string, 1)
	scan := func(r *bufio.Scanner) {
		sent := false
		for r.Scan() {
			line := strings.TrimSpace(r.Text())
			if !sent && strings.HasPrefix(line, "http://127.0.0.1:") {
				found <- line
				sent = true
			}
		}
	}
	var pipes sync.WaitGroup
	pipes.Add(2)
	go func() { defer pipes.Done(); scan(bufio.NewScanner(out)) }()
	go func() { defer pipes.Done(); scan(bufio.NewScanner(errOut)) }()
	go func() {
		pipes.Wait()
		state, err := cmd.Process.Wait()
		waitErr = err
		if err == nil && !state.Success() {
			waitErr = fmt.Errorf("pier %v: %s", args, state)
		}
		close(exited)
	}()
	select {
	case url = <-found:
	case <-exited:
		t.Fatalf("pier %v exited without printing a URL: %v", args, waitErr)
	case <-time.After(uiBound):
		t.Fatalf("pier %v printed no URL", args)
	}
	return url, func() error {
		select {
		case <-exited:
			return waitErr
		case <-time.After(uiBound):
			return fmt.Errorf("pier %v did not exit", args)
		}
	}
}

// newBrowser starts a headless chromium with an empty profile and no
// network of its own; it stops when the test ends.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	chromium := testneed.Tool(t, "chromium")
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 900),
	)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first call starts the browser, for as long as ctx lives: no
	// timeout on it.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// browse runs browser steps, failing the test with what it was doing and
// the page it saw.
func browse(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, uiBound)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		// What a person would read, without the graph's SVG.
		seen, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.outerHTML.replace(/<svg[\s\S]*<\/svg>/, "<svg>…</svg>")`))
		if len(seen) > 6000 {
			seen = seen[:6000]
		}
		t.Fatalf("%s: %v\npage body:\n%s", what, err, seen)
	}
}

// get runs one browser action that returns a value.
func get[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, uiBound)
	defer cancel()
	v, err := chromedp.Run(c, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// pageEval evaluates a JavaScript expression in the page.
func pageEval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	return get(t, ctx, "evaluate "+expr, chromedp.Evaluate[T](expr))
}

// screenshot saves the page as NAME.png in the test's artifact directory.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png := get(t, ctx, "screenshot "+name, chromedp.CaptureScreenshot())
	path := filepath.Join(t.ArtifactDir(), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// helloCopy copies examples/hello into a fresh directory, with its
// Python provider's path made absolute.
func helloCopy(t *testing.T) string {
	t.Helper()
	testneed.Tool(t, "python3")
	src, err := os.ReadFile("../../examples/hello/hello.pier.hcl")
	if err != nil {
		t.Fatal(err)
	}
	prov, err := filepath.Abs("../../examples/providers/python-kv/provider.py")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	hcl := strings.Replace(string(src), "../providers/python-kv/provider.py", prov, 1)
	if err := os.WriteFile(filepath.Join(dir, "hello.pier.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestUIGraphOfHello(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs("../../examples/hello")
	if err != nil {
		t.Fatal(err)
	}
	url, _ := startUI(t, t.TempDir(), nil, "ui", "--dir", dir)
	ctx := newBrowser(t)
	browse(t, ctx, "open the page", chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`body[data-graph="ready"] #graph svg`)))
	nodes := pageEval[[]string](t, ctx, `Array.from(document.querySelectorAll("#graph g.node")).map(g => g.dataset.address + " " + g.textContent.trim().replace(/\s+/g, " ")).sort()`)
	edges := pageEval[[]string](t, ctx, `Array.from(document.querySelectorAll("#graph g.edge")).map(g => g.dataset.from + " -> " + g.dataset.to + " " + g.getAttribute("class")).sort()`)
	wantNodes := []string{"born born exec (local)", "first first memo (local)", "greeting greeting kv (kv)", "note note file (local)", "state state state_file (local)"}
	wantEdges := []string{
		"born -> note edge dep reference", "first -> note edge dep reference",
		"state -> born edge dep state", "state -> first edge dep state", "state -> greeting edge dep state", "state -> note edge dep state",
	}
	if !slices.Equal(nodes, wantNodes) {
		t.Errorf("graph nodes:\n%q\nwant\n%q", nodes, wantNodes)
	}
	if !slices.Equal(edges, wantEdges) {
		t.Errorf("graph edges:\n%q\nwant\n%q", edges, wantEdges)
	}
	// The URL's token is gone from the address bar once it signed in.
	if location := pageEval[string](t, ctx, `location.href`); strings.Contains(location, "token") {
		t.Errorf("the page's address still carries the token: %s", location)
	}
	// A click on a node opens its resource view.
	browse(t, ctx, "open note", chromedp.Click(chromedp.CSS(`g.node[data-address="note"]`)), chromedp.WaitVisible(chromedp.CSS(`#details h2`)))
	details := get(t, ctx, "read note", chromedp.Text(chromedp.CSS(`#details`)))
	for _, want := range []string{"file · provider local", "Depends on", "first", "born", "Not recorded in state"} {
		if !strings.Contains(details, want) {
			t.Errorf("resource view of note does not show %q:\n%s", want, details)
		}
	}
	screenshot(t, ctx, "graph")
}

// TestUIGraphWithoutLayoutHelper: a pier installed without pier-layout
// beside it serves the page, and the graph view says what is missing and
// where pier looked.
func TestUIGraphWithoutLayoutHelper(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs("../../examples/hello")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.ReadFile(testbin.Pier(t))
	if err != nil {
		t.Fatal(err)
	}
	alone := filepath.Join(t.TempDir(), "pier")
	testbin.WriteExecutable(t, alone, exe, 0o755)
	url, _ := startUIWith(t, alone, t.TempDir(), nil, "ui", "--dir", dir)
	ctx := newBrowser(t)
	browse(t, ctx, "open the page", chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`#graph p.error`)))
	msg := get(t, ctx, "read the graph's error", chromedp.Text(chromedp.CSS(`#graph p.error`)))
	for _, want := range []string{"pier-layout is missing", filepath.Join(filepath.Dir(alone), "pier-layout"), "install it next to pier"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the graph view's error does not say %q:\n%s", want, msg)
		}
	}
	screenshot(t, ctx, "graph-without-helper")
}

// watchStatuses makes the page record every status a run row shows, in
// order, as "ADDRESS STATUS" in window.seen.
const watchStatuses = `(() => {
	window.seen = [];
	const last = new Map();
	const note = () => {
		for (const tr of document.querySelectorAll("#run-table tbody tr[data-address]")) {
			const s = tr.dataset.status || "";
			if (s && last.get(tr.dataset.address) !== s) {
				last.set(tr.dataset.address, s);
				window.seen.push(tr.dataset.address + " " + s);
			}
		}
	};
	new MutationObserver(note).observe(document.querySelector("#run-table tbody"), {subtree: true, childList: true, attributes: true, attributeFilter: ["data-status"]});
	return true;
})()`

// passedThrough reports whether seen shows addr going through statuses in
// that order (others may come between).
func passedThrough(seen []string, addr string, statuses ...string) bool {
	i := 0
	for _, s := range seen {
		if i < len(statuses) && s == addr+" "+statuses[i] {
			i++
		}
	}
	return i == len(statuses)
}

func TestUIPlanApplyAndHistory(t *testing.T) {
	t.Parallel()
	dir := helloCopy(t)
	url, _ := startUI(t, dir, nil, "ui")
	ctx := newBrowser(t)
	browse(t, ctx, "open the page", chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`body[data-graph="ready"] #graph svg`)))
	pageEval[bool](t, ctx, watchStatuses)

	browse(t, ctx, "plan", chromedp.Click(chromedp.CSS(`nav button[data-view="plan"]`)), chromedp.Click(chromedp.CSS(`#plan-button`)),
		chromedp.WaitVisible(chromedp.CSS(`body[data-plan="ready"] #plan-text`)))
	text := get(t, ctx, "read the plan", chromedp.Text(chromedp.CSS(`#plan-text`)))
	for _, want := range []string{"# born will be created", "+ first (local memo)", `+ initialize_with = "the first apply"`, "+ greeting (kv kv)", "# note will be created", "Plan: 4 to create, 0 to update, 0 to destroy"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page's plan does not show %q:\n%s", want, text)
		}
	}
	colours := pageEval[map[string]string](t, ctx, `Object.fromEntries(Array.from(document.querySelectorAll("#graph g.node")).map(g => [g.dataset.address, g.dataset.status || ""]))`)
	want := map[string]string{"state": "", "first": "create", "born": "create", "note": "create", "greeting": "create"}
	if !maps.Equal(colours, want) {
		t.Errorf("graph statuses after the plan: %v; want %v", colours, want)
	}
	screenshot(t, ctx, "plan")

	browse(t, ctx, "apply", chromedp.Click(chromedp.CSS(`#apply-button`)), chromedp.WaitVisible(chromedp.CSS(`dialog#confirm[open]`)),
		chromedp.Click(chromedp.CSS(`#confirm-apply`)), chromedp.WaitVisible(chromedp.CSS(`body[data-run="done"] #summary`)))
	summary := get(t, ctx, "read the summary", chromedp.Text(chromedp.CSS(`#summary`)))
	if summary != "Done: 4 created, 0 updated, 0 destroyed." {
		t.Errorf("summary %q; want 4 created", summary)
	}
	seen := pageEval[[]string](t, ctx, `window.seen`)
	for _, addr := range []string{"first", "born", "note", "greeting"} {
		if !passedThrough(seen, addr, "pending", "applying", "applied") {
			t.Errorf("%s did not go pending, applying, applied on the page; it showed %q", addr, seen)
		}
	}
	colours = pageEval[map[string]string](t, ctx, `Object.fromEntries(Array.from(document.querySelectorAll("#graph g.node")).map(g => [g.dataset.address, g.dataset.status || ""]))`)
	for _, addr := range []string{"first", "born", "note", "greeting"} {
		if colours[addr] != "applied" {
			t.Errorf("graph status of %s after the apply: %q; want applied", addr, colours[addr])
		}
	}
	note, err := os.ReadFile(filepath.Join(dir, "hello.txt"))
	if err != nil || !strings.HasPrefix(string(note), "Deployed by pier: the first apply, at ") {
		t.Errorf("hello.txt after the page's apply: %q, %v", note, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "kv", "greeting")); err != nil {
		t.Errorf("the kv provider's greeting: %v", err)
	}
	screenshot(t, ctx, "apply")

	// The history view lists the same events as pier state history.
	d := &deployment{t: t, dir: dir, pier: testbin.Pier(t)}
	var cli []string
	for _, line := range strings.Split(strings.TrimSpace(d.mustRun("state", "history", "--json")), "\n") {
		// Under --json a warning (no lock file) is a diagnostic line too.
		if !strings.Contains(line, `"message_type":"diagnostic"`) {
			cli = append(cli, line)
		}
	}
	browse(t, ctx, "open the history", chromedp.Click(chromedp.CSS(`nav button[data-view="history"]`)),
		chromedp.WaitVisible(chromedp.CSS(`body[data-history="ready"] table.events[data-state="state"]`)))
	rows := pageEval[[]string](t, ctx, `Array.from(document.querySelectorAll('#history table.events[data-state="state"] tbody tr')).map(tr => tr.children[0].textContent + " " + tr.children[2].textContent)`)
	if len(rows) != len(cli) || len(rows) < 5 {
		t.Fatalf("the history view lists %d events %q; pier state history lists %d", len(rows), rows, len(cli))
	}
	// The state after the first create is as pier state show --at says.
	at := -1
	for i, r := range rows {
		if strings.HasSuffix(r, " create") {
			at = i
			break
		}
	}
	if at < 0 {
		t.Fatalf("no create event in %q", rows)
	}
	browse(t, ctx, "show an earlier state", chromedp.Click(chromedp.CSS(fmt.Sprintf(`#history tr[data-index="%d"] td:nth-child(5) button`, at))),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#history-detail .state-at[data-at="%d"] pre`, at))))
	var shown struct {
		Resources map[string]struct {
			Inputs map[string]any `json:"inputs"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(get(t, ctx, "read the earlier state", chromedp.Text(chromedp.CSS(`#history-detail .state-at pre`)))), &shown); err != nil {
		t.Fatal(err)
	}
	var byCLI map[string]struct {
		InputProperties map[string]any `json:"input_properties"`
	}
	if err := json.Unmarshal([]byte(d.mustRun("state", "show", "--at", fmt.Sprint(at))), &byCLI); err != nil {
		t.Fatal(err)
	}
	if len(shown.Resources) != 1 || len(byCLI) != 1 {
		t.Errorf("after event %d the page shows %v and pier state show --at %v; want the one resource created first", at, shown.Resources, byCLI)
	}
	for addr, e := range byCLI {
		if !reflect.DeepEqual(shown.Resources[addr].Inputs, e.InputProperties) {
			t.Errorf("after event %d, %s's inputs: page %v, pier state show --at %v", at, addr, shown.Resources[addr].Inputs, e.InputProperties)
		}
	}
	// A diff from that event to the last lists what the later creates added.
	last := len(rows) - 1
	browse(t, ctx, "diff two events", chromedp.Click(chromedp.CSS(fmt.Sprintf(`#history tr[data-index="%d"] td:nth-child(6) button`, at))),
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`#history tr[data-index="%d"] td:nth-child(5) button`, last))),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#history-detail .state-at[data-at="%d"] table.diff`, last))))
	paths := pageEval[[]string](t, ctx, `Array.from(document.querySelectorAll("#history-detail table.diff tbody tr td:first-child, #history-detail table.diff > tr td:first-child")).map(td => td.textContent)`)
	for _, want := range []string{"/note", "/greeting", "/outputs/note"} {
		if !slices.Contains(paths, want) {
			t.Errorf("the diff from event %d to %d does not list %s: %q", at, last, want, paths)
		}
	}
	screenshot(t, ctx, "history")

	// The resource view shows note's recorded inputs and its history.
	browse(t, ctx, "open note", chromedp.Click(chromedp.CSS(`nav button[data-view="graph"]`)), chromedp.Click(chromedp.CSS(`g.node[data-address="note"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#details table.events`)))
	details := get(t, ctx, "read note", chromedp.Text(chromedp.CSS(`#details`)))
	for _, want := range []string{"note in state", `"name": "hello.txt"`, "History in state", "create"} {
		if !strings.Contains(details, want) {
			t.Errorf("resource view of note after the apply does not show %q:\n%s", want, details)
		}
	}
	screenshot(t, ctx, "resource")
}

// TestUIWatchesATerminalApply watches pier apply --ui from two browser
// contexts that share nothing: each sees every resource reach its final
// status and the counts pier prints. One resource waits for a file the
// test writes once both pages show it running, so the pages join a run
// under way; pier destroy --ui is watched the same way.
func TestUIWatchesATerminalApply(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": `
provider "local" { builtin = "local" }
provider "journal" {
  executable = "JOURNAL_PROVIDER"
  operations = ["destroy"]
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "a" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "a" }
}
resource "b" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "b" }
}
resource "gate" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "open", gate = "go" }
}
resource "note" {
  provider = provider.local
  type     = "file"
  state    = resource.state
  inputs   = { name = "note.txt", contents = "${resource.a.outputs.value}${resource.b.outputs.value} ${resource.gate.outputs.value}" }
}
`})
	first := newBrowser(t)
	// A browser context of its own: no cookie or storage of the first.
	// Its first call opens its tab, for as long as the context lives.
	second, cancel := chromedp.NewContext(first, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(second); err != nil {
		t.Fatal(err)
	}
	pages := map[string]context.Context{"first": first, "second": second}
	env := []string{"JOURNAL=" + filepath.Join(d.dir, "journal.jsonl")}

	// watch runs pier VERB --ui; both pages open it while the gate
	// resource is held, then see every resource reach final.
	watch := func(verb, final, wantSummary string, release func()) {
		url, wait := startUI(t, d.dir, env, verb, "--ui", "--yes")
		for name, ctx := range pages {
			browse(t, ctx, name+" page opens "+verb, chromedp.Navigate(url),
				chromedp.WaitVisible(chromedp.CSS(`#run-table tr[data-address="gate"][data-status="applying"]`)))
		}
		release()
		for name, ctx := range pages {
			browse(t, ctx, name+" page sees "+verb+" end", chromedp.WaitVisible(chromedp.CSS(`body[data-run="done"] #summary`)))
			statuses := pageEval[map[string]string](t, ctx, `Object.fromEntries(Array.from(document.querySelectorAll("#run-table tbody tr")).map(tr => [tr.dataset.address, tr.dataset.status]))`)
			for _, a := range []string{"a", "b", "gate", "note"} {
				if statuses[a] != final {
					t.Errorf("%s page: %s of %s ended %q; want %s (all: %v)", name, verb, a, statuses[a], final, statuses)
				}
			}
			if got := get(t, ctx, "read the summary", chromedp.Text(chromedp.CSS(`#summary`))); got != wantSummary {
				t.Errorf("%s page's summary of %s: %q; want %q", name, verb, got, wantSummary)
			}
			if name == "second" {
				screenshot(t, ctx, "watch-"+verb)
			}
		}
		if err := wait(); err != nil {
			t.Fatalf("pier %s --ui after its run: %v", verb, err)
		}
	}
	watch("apply", "applied", "Done: 4 created, 0 updated, 0 destroyed.", func() {
		if err := os.WriteFile(filepath.Join(d.dir, "go"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	})
	if b, err := os.ReadFile(filepath.Join(d.dir, "note.txt")); err != nil || string(b) != "ab open" {
		t.Errorf("note.txt after the watched apply: %q, %v", b, err)
	}
	hold := filepath.Join(d.dir, "hold-destroy")
	if err := os.WriteFile(hold, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	watch("destroy", "applied", "Done: 0 created, 0 updated, 4 destroyed.", func() {
		if err := os.Remove(hold); err != nil {
			t.Fatal(err)
		}
	})
	if _, err := os.Stat(filepath.Join(d.dir, "note.txt")); !os.IsNotExist(err) {
		t.Errorf("note.txt after the watched destroy: %v", err)
	}
}

// TestUISecretNeverReachesThePage plans, applies and inspects a
// deployment with a sensitive variable from the page, and checks that the
// value is in no network response, no event and not in the DOM.
func TestUISecretNeverReachesThePage(t *testing.T) {
	t.Parallel()
	const secret = "hunter2-do-not-show"
	d := newDeployment(t, map[string]string{"main.pier.hcl": `
provider "local" { builtin = "local" }
provider "journal" {
  executable = "JOURNAL_PROVIDER"
  operations = ["destroy"]
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
variable "token" {
  type      = string
  sensitive = true
}
resource "conf" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "token=${var.token}" }
}
resource "reader" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "read ${resource.conf.outputs.value}" }
}
`})
	env := []string{"JOURNAL=" + filepath.Join(d.dir, "journal.jsonl")}
	url, _ := startUI(t, d.dir, env, "ui", "--var", "token="+secret)
	ctx := newBrowser(t)

	// Every response the page receives, and every event of its stream.
	var mu sync.Mutex
	urls := map[network.RequestID]string{}
	var finished []network.RequestID
	var events []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventResponseReceived:
			urls[e.RequestID] = e.Response.URL
		case *network.EventLoadingFinished:
			finished = append(finished, e.RequestID)
		case *network.EventEventSourceMessageReceived:
			events = append(events, e.Data)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}

	browse(t, ctx, "plan and apply",
		chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`body[data-graph="ready"] #graph svg`)),
		chromedp.Click(chromedp.CSS(`nav button[data-view="plan"]`)), chromedp.Click(chromedp.CSS(`#plan-button`)),
		chromedp.WaitVisible(chromedp.CSS(`body[data-plan="ready"] #plan-text`)),
		chromedp.Click(chromedp.CSS(`#apply-button`)), chromedp.WaitVisible(chromedp.CSS(`dialog#confirm[open]`)),
		chromedp.Click(chromedp.CSS(`#confirm-apply`)), chromedp.WaitVisible(chromedp.CSS(`body[data-run="done"] #summary`)))
	browse(t, ctx, "open conf and reader",
		chromedp.Click(chromedp.CSS(`nav button[data-view="graph"]`)),
		chromedp.Click(chromedp.CSS(`g.node[data-address="conf"]`)), chromedp.WaitVisible(chromedp.CSS(`#details table.events`)),
		chromedp.Click(chromedp.CSS(`g.node[data-address="reader"]`)), chromedp.WaitVisible(chromedp.CSS(`#details h2`)))
	details := get(t, ctx, "read reader", chromedp.Text(chromedp.CSS(`#details`)))
	browse(t, ctx, "open the state after the last event", chromedp.Click(chromedp.CSS(`nav button[data-view="history"]`)),
		chromedp.WaitVisible(chromedp.CSS(`body[data-history="ready"] #history tr[data-index]`)))
	last := pageEval[int](t, ctx, `Math.max(...Array.from(document.querySelectorAll("#history tr[data-index]")).map(tr => Number(tr.dataset.index)))`)
	browse(t, ctx, "show the last state", chromedp.Click(chromedp.CSS(fmt.Sprintf(`#history tr[data-index="%d"] td:nth-child(5) button`, last))),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#history-detail .state-at[data-at="%d"] pre`, last))))

	// The value was there, redacted: else this test proves nothing.
	if !strings.Contains(details, `"value": "(sensitive value)"`) {
		t.Errorf("the resource view of reader does not show its redacted value:\n%s", details)
	}
	if dom := pageEval[string](t, ctx, `document.documentElement.outerHTML`); strings.Contains(dom, secret) {
		t.Errorf("the DOM holds the secret")
	}
	mu.Lock()
	ids := slices.Clone(finished)
	mu.Unlock()
	bodies, redacted := 0, 0
	for _, id := range ids {
		r, err := chromedp.Call(ctx, network.GetResponseBody, network.GetResponseBodyParams{RequestID: id})
		if err != nil {
			continue // a redirect or a stream has no body to give
		}
		bodies++
		if strings.Contains(string(r.Body), secret) {
			t.Errorf("the response of %s holds the secret", urls[id])
		}
		if strings.Contains(string(r.Body), "(sensitive value)") {
			redacted++
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, e := range events {
		if strings.Contains(e, secret) {
			t.Errorf("an event of the stream holds the secret: %s", e)
		}
	}
	if bodies < 8 || redacted < 2 || len(events) < 5 {
		t.Errorf("checked %d response bodies (%d with redacted values) and %d events; want the page's whole traffic", bodies, redacted, len(events))
	}
	t.Logf("checked %d response bodies, %d with redacted values, and %d events", bodies, redacted, len(events))
}
