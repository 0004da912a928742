package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
func startUI(t *testing.T, dir string, env []string, args ...string) (url string, cmd *exec.Cmd) {
	t.Helper()
	cmd = exec.Command(testbin.Pier(t), args...)
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
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
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
	go scan(bufio.NewScanner(out))
	go scan(bufio.NewScanner(errOut))
	select {
	case url = <-found:
	case <-time.After(uiBound):
		t.Fatalf("pier %v printed no URL", args)
	}
	return url, cmd
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
		html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("body")))
		if len(html) > 4000 {
			html = html[:4000]
		}
		t.Fatalf("%s: %v\npage body:\n%s", what, err, html)
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
