package main

// Not a scenario: a headless chromium watches pier ui while another pier applies to PostgreSQL.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/pierhq/pier/adapters/postgres/pgtest"
	"github.com/pierhq/pier/internal/testbin"
)

// A teammate's pier apply, another process on the same pg_state, shows on
// an open pier ui page as its events land: every resource reaches its
// final status in the graph, and the history table gains the events,
// without a reload.
func TestUIFollowsATeammatesApplyOnPGState(t *testing.T) {
	t.Parallel()
	srv, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop("fast"); err != nil {
			t.Error(err)
		}
		os.RemoveAll(srv.Dir)
	})
	env := srv.Env(pgtest.Superuser)
	dir := t.TempDir()
	memos := []string{"alpha", "beta", "gamma", "delta"}
	hcl := `provider "local" {
  builtin = "local"
}
provider "pg" {
  builtin = "postgres"
}
resource "shared" {
  provider = provider.pg
  type     = "pg_state"
  inputs   = { key = "team" }
}
`
	for _, m := range memos {
		hcl += `resource "` + m + `" {
  provider = provider.local
  type     = "memo"
  state    = resource.shared
  inputs   = { initialize_with = "` + m + `" }
}
`
	}
	if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	teammate := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(testbin.Pier(t), args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("pier %v: %v\n%s", args, err, out)
		}
		return string(out)
	}

	url, _ := startUI(t, dir, env, "ui")
	ctx := newBrowser(t)
	browse(t, ctx, "open the page", chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`body[data-graph="ready"] #graph svg`)),
		chromedp.Click(chromedp.CSS(`nav button[data-view="history"]`)),
		chromedp.WaitVisible(chromedp.CSS(`body[data-history="ready"] #history`)))

	teammate("apply", "--yes")

	// The page follows the log once a second; wait for what it shows.
	allApplied := `["alpha", "beta", "gamma", "delta"].every(a => document.getElementById("r:" + a)?.dataset.status === "applied")`
	browse(t, ctx, "watch the teammate's apply land", chromedp.Poll[chromedp.Void](allApplied, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(uiBound)))
	screenshot(t, ctx, "followed")

	// Every event the teammate recorded is in the page's history, as
	// pier state history lists it.
	cli := strings.Split(strings.TrimSpace(teammate("state", "history", "--state", "shared")), "\n")
	last := strings.SplitN(cli[len(cli)-1], "\t", 2)[0]
	browse(t, ctx, "see the last event in the history", chromedp.WaitVisible(chromedp.CSS(`#history table.events[data-state="shared"] tbody tr[data-index="`+last+`"]`)))
	rows := pageEval[[]string](t, ctx, `Array.from(document.querySelectorAll('#history table.events[data-state="shared"] tbody tr')).map(tr => tr.dataset.index)`)
	var want []string
	for _, line := range cli {
		want = append(want, strings.SplitN(line, "\t", 2)[0])
	}
	if strings.Join(rows, " ") != strings.Join(want, " ") {
		t.Errorf("the page's history of shared: %v; pier state history: %v", rows, want)
	}
}
