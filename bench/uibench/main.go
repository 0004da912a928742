// Command uibench measures pier ui in a real headless chromium, for
// bench/ui.sh: the time from starting pier ui to the graph being drawn,
// and a large apply watched live through pier apply --ui. It prints
// figures; it is not a test.
//
//	go run ./bench/uibench -pier bin/pier -graph 1000 -tf bin/tfproviders/terraform-provider-time
//	go run ./bench/uibench -pier bin/pier -memos 1000
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/chromedp/chromedp"
)

func main() {
	pier := flag.String("pier", "bin/pier", "the pier binary")
	graph := flag.Int("graph", 0, "measure the graph of `N` bridged time_static resource blocks")
	tf := flag.String("tf", "bin/tfproviders/terraform-provider-time", "terraform-provider-time")
	memos := flag.Int("memos", 0, "measure a live-watched apply of `N` memo resources")
	flag.Parse()
	abs, err := filepath.Abs(*pier)
	check(err)
	chromium, err := exec.LookPath("chromium")
	check(err)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(mustTemp()), chromedp.WindowSize(1400, 900))
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	check(chromedp.Do(ctx)) // the browser starts before the clock does
	if *graph > 0 {
		tfAbs, err := filepath.Abs(*tf)
		check(err)
		benchGraph(ctx, abs, tfAbs, *graph)
	}
	if *memos > 0 {
		benchWatch(ctx, abs, *memos)
	}
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

func mustTemp() string {
	d, err := os.MkdirTemp("", "uibench-")
	check(err)
	return d
}

// start runs pier and returns the URL it prints, and its stdout lines.
func start(dir, pier string, args ...string) (*exec.Cmd, string, <-chan string) {
	cmd := exec.Command(pier, args...)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	check(err)
	errOut, err := cmd.StderrPipe()
	check(err)
	check(cmd.Start())
	url := make(chan string, 1)
	lines := make(chan string, 1<<16)
	scan := func(r io.Reader, send bool) {
		s := bufio.NewScanner(r)
		s.Buffer(make([]byte, 1<<20), 1<<26)
		for s.Scan() {
			l := strings.TrimSpace(s.Text())
			if strings.HasPrefix(l, "http://127.0.0.1:") {
				url <- l
			}
			if send {
				lines <- l
			}
		}
		if send {
			close(lines)
		}
	}
	go scan(out, true)
	go scan(errOut, false)
	select {
	case u := <-url:
		return cmd, u, lines
	case <-time.After(5 * time.Minute):
		log.Fatalf("pier %v printed no URL", args)
	}
	return nil, "", nil
}

// peakRSS is a live process's peak resident set (VmHWM), in MiB.
func peakRSS(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	check(err)
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

func benchGraph(ctx context.Context, pier, tf string, n int) {
	dir := mustTemp()
	defer os.RemoveAll(dir)
	check(os.Symlink(tf, filepath.Join(dir, "terraform-provider-time")))
	var b strings.Builder
	b.WriteString(`provider "local" { builtin = "local" }
provider "time" { terraform = "./terraform-provider-time" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
`)
	// Blocks, not count: the graph has a node per block. Chains of ten
	// give the layout ranks to work on.
	for i := 0; i < n; i++ {
		dep := ""
		if i%10 != 0 {
			dep = fmt.Sprintf("\n  depends_on = [resource.t%d]", i-1)
		}
		fmt.Fprintf(&b, "resource \"t%d\" {\n  provider = provider.time\n  type     = \"time_static\"\n  state    = resource.state%s\n  inputs   = { triggers = { index = \"%d\" } }\n}\n", i, dep, i)
	}
	check(os.WriteFile(filepath.Join(dir, "bench.pier.hcl"), []byte(b.String()), 0o644))
	t0 := time.Now()
	cmd, url, _ := start(dir, pier, "ui", "--lock", "off")
	tURL := time.Since(t0)
	c, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	check(chromedp.Do(c, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`body[data-graph="ready"] #graph svg`))))
	drawn := time.Since(t0)
	nodes, err := chromedp.Run(c, chromedp.Evaluate[int](`document.querySelectorAll("#graph g.node").length`))
	check(err)
	rss := peakRSS(cmd.Process.Pid)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	fmt.Printf("graph of %d time_static blocks: %d nodes drawn %.2fs after pier ui started (URL printed after %.2fs); pier ui peak RSS %.0f MiB\n", n, nodes, drawn.Seconds(), tURL.Seconds(), rss)
}

func benchWatch(ctx context.Context, pier string, n int) {
	dir := mustTemp()
	defer os.RemoveAll(dir)
	gate := filepath.Join(dir, "go")
	hcl := fmt.Sprintf(`provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "gate" {
  provider = provider.local
  type     = "exec"
  state    = resource.state
  inputs   = { executable = "/bin/sh", args = ["-c", "while [ ! -e %s ]; do sleep 0.05; done"], once = true }
}
resource "m" {
  count      = %d
  provider   = provider.local
  type       = "memo"
  state      = resource.state
  depends_on = [resource.gate]
  inputs     = { initialize_with = "m${count.index}" }
}
`, gate, n)
	check(os.WriteFile(filepath.Join(dir, "bench.pier.hcl"), []byte(hcl), 0o644))
	cmd, url, lines := start(dir, pier, "apply", "--ui", "--yes", "--json", "--lock", "off")
	c, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	// The page joins while the gate holds every memo back.
	check(chromedp.Do(c, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`#run-table tr[data-address="gate"][data-status="applying"]`))))
	rss := 0.0
	released := time.Now()
	check(os.WriteFile(gate, nil, 0o644))
	var summary struct {
		Created int `json:"created"`
	}
	var cliDone time.Time
	statusLines := 0
	for l := range lines {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) != nil {
			continue
		}
		switch m["message_type"] {
		case "status":
			statusLines++
			if rss == 0 && statusLines > n {
				rss = peakRSS(cmd.Process.Pid)
			}
		case "summary":
			cliDone = time.Now()
			check(json.Unmarshal([]byte(l), &summary))
			rss = max(rss, peakRSS(cmd.Process.Pid))
		}
	}
	check(chromedp.Do(c, chromedp.WaitVisible(chromedp.CSS(`body[data-run="done"] #summary`))))
	caughtUp := time.Since(cliDone)
	pageCreated, err := chromedp.Run(c, chromedp.Evaluate[string](`document.querySelector("#summary").dataset.created`))
	check(err)
	rows, err := chromedp.Run(c, chromedp.Evaluate[int](`document.querySelectorAll('#run-table tbody tr[data-status="applied"]').length`))
	check(err)
	cmd.Wait()
	fmt.Printf("apply of %d memos watched live: CLI summary %d created after %.2fs; page: %s created, %d rows applied, caught up %.3fs after the CLI's summary; %d status events; pier apply --ui peak RSS %.0f MiB\n",
		n, summary.Created, cliDone.Sub(released).Seconds(), pageCreated, rows, caughtUp.Seconds(), statusLines, rss)
}
