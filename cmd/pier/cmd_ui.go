package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/adapters/postgres"
	"github.com/pierhq/pier/host/apply"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/session"
	"github.com/pierhq/pier/host/webview"
)

type uiOptions struct {
	deployOptions
	Listen          string
	Open            bool
	TLSCert, TLSKey string
}

func uiFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "listen", Value: "127.0.0.1:0", Usage: "serve on `ADDR` (host:port; port 0 picks a free one); an address other machines reach needs --tls-cert and --tls-key"},
		&cli.StringFlag{Name: "tls-cert", Usage: "serve HTTPS with the certificate in `FILE` (PEM)"},
		&cli.StringFlag{Name: "tls-key", Usage: "the private key of --tls-cert, in `FILE` (PEM)"},
	}
}

func newUICommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:  "ui",
		Usage: "serve a local web view of the deployment: graph, resources, history, plans and applies",
		Description: `Serves the deployment in a browser on this machine (see docs/ui.md): its
dependency graph, each resource with its (redacted) inputs, outputs and
history, the state's event timeline, and plans that the page can apply
after a confirmation, watching each resource's status live.

It listens on 127.0.0.1 on a free port and prints the URL, which carries
a random token: anyone with the URL can change the deployment, so share
it with no one. --open also opens it in the browser. Ctrl-C stops.

Exit codes: 0 stopped, 1 error, 2 usage.`,
		Flags: append(append(deployFlags(), uiFlags()...),
			&cli.BoolFlag{Name: "open", Usage: "open the page in the browser"}),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("ui takes no arguments; use --dir, --flake or --file to name the deployment")
			}
			o := uiOptions{deployOptions: readDeployOptions(c), Listen: c.String("listen"), Open: c.Bool("open"), TLSCert: c.String("tls-cert"), TLSKey: c.String("tls-key")}
			return runUI(c.Context, o, g.stdout, g.stderr)
		},
	}
}

func runUI(ctx context.Context, o uiOptions, stdout, stderr io.Writer) error {
	dep, err := openSession(o.deployOptions, stderr)
	if err != nil {
		return err
	}
	srv, err := newUIServer(o, dep, false)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "pier ui: serving %s at\n\n    %s\n\nThe link signs you in: share it with no one. Ctrl-C stops.\n", dep.Name(), srv.URL())
	if o.Open {
		if err := openBrowser(srv.URL()); err != nil {
			fmt.Fprintln(stderr, "pier: warning: open the browser:", err)
		}
	}
	return srv.Serve(ctx)
}

// newUIServer starts the web view on a session: the same deployment the
// command opened, and the CLI's own --json vocabulary.
func newUIServer(o uiOptions, dep *session.Deployment, watch bool) (*webview.Server, error) {
	srv, err := webview.New(webview.Options{
		Deployment: dep,
		Vocabulary: webview.Vocabulary{
			Event: func(ev engine.Event) any { return jsonEvent(ev, o.Verbose) },
			Plan:  func(p *plan.Plan) (any, error) { return planMessage(p) },
			PlanText: func(p *plan.Plan) string {
				var b bytes.Buffer
				renderPlan(&b, p)
				return b.String()
			},
			Summary: func(res *apply.Result, _ bool, late error) any { return summaryMessage(res, late) },
		},
		Logs:    uiLogs{dep},
		Listen:  o.Listen,
		TLSCert: o.TLSCert,
		TLSKey:  o.TLSKey,
		Watch:   watch,
	})
	if err != nil {
		return nil, usageError{err}
	}
	return srv, nil
}

// uiLogs reads the state logs of pier's own state types for the history
// view, as pier state history and state show --at do.
type uiLogs struct{ dep *session.Deployment }

func (l uiLogs) History(ctx context.Context) (map[string][]webview.HistoryEvent, error) {
	handlers, err := l.dep.Handlers(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]webview.HistoryEvent{}
	for name, h := range handlers {
		log, err := openStateLog(ctx, h, false)
		if err != nil {
			// A third-party state type keeps its log its own way.
			continue
		}
		rows, err := log.history(ctx)
		log.close()
		if err != nil {
			return nil, fmt.Errorf("history of %s: %w", name, err)
		}
		evs := make([]webview.HistoryEvent, len(rows))
		for i, r := range rows {
			evs[i] = webview.HistoryEvent(r)
		}
		out[name] = evs
	}
	return out, nil
}

func (l uiLogs) StateAt(ctx context.Context, handler string, index int64) (map[string]any, error) {
	handlers, err := l.dep.Handlers(ctx)
	if err != nil {
		return nil, err
	}
	h, err := pickHandler(handlers, handler)
	if err != nil {
		return nil, err
	}
	log, err := openStateLog(ctx, h, false)
	if err != nil {
		return nil, err
	}
	defer log.close()
	return log.stateAt(ctx, index)
}

// openBrowser opens url without putting its token on a command line,
// where other users could read it: the browser is given a file, readable
// only by this user, that forwards to the URL.
func openBrowser(url string) error {
	dir, err := os.MkdirTemp("", "pier-ui-")
	if err != nil {
		return err
	}
	page := filepath.Join(dir, "open.html")
	body := fmt.Sprintf("<!doctype html><meta http-equiv=\"refresh\" content=\"0; url=%s\"><title>pier ui</title><a href=\"%s\">open pier ui</a>\n", html.EscapeString(url), html.EscapeString(url))
	if err := os.WriteFile(page, []byte(body), 0o600); err != nil {
		return err
	}
	name := "xdg-open"
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		return errors.New("opening a browser is not supported on Windows; open the URL by hand")
	}
	cmd := exec.Command(name, page)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}

// liveViewFlags are pier apply's and pier destroy's --ui and its address
// flags.
func liveViewFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.BoolFlag{Name: "ui", Usage: "serve a live web view of this run and print its URL (see pier ui)"},
	}, uiFlags()...)
}

// readLiveView returns the --ui options, or nil without --ui.
func readLiveView(c *cli.Context) *uiOptions {
	if !c.Bool("ui") {
		return nil
	}
	return &uiOptions{Listen: c.String("listen"), TLSCert: c.String("tls-cert"), TLSKey: c.String("tls-key")}
}

// caughtUpBound is how long a finished run waits for the pages watching
// it to receive its last events before pier exits.
const caughtUpBound = 30 * time.Second

// liveView is the web view of a run the terminal drives (pier apply --ui);
// nil without --ui, and then its methods do nothing.
type liveView struct {
	srv    *webview.Server
	watch  *webview.Watch
	served chan error
}

// startLiveView serves the run of plan, and sends it view's events from
// now on.
func startLiveView(ctx context.Context, ui *uiOptions, o deployOptions, view *progress, p *plan.Plan, stderr io.Writer) (*liveView, error) {
	if ui == nil {
		return nil, nil
	}
	u := *ui
	u.deployOptions = o
	dep, err := openSession(o, stderr)
	if err != nil {
		return nil, err
	}
	srv, err := newUIServer(u, dep, true)
	if err != nil {
		return nil, err
	}
	l := &liveView{srv: srv, served: make(chan error, 1)}
	go func() { l.served <- srv.Serve(context.WithoutCancel(ctx)) }()
	if l.watch, err = srv.Begin(p); err != nil {
		srv.Close()
		return nil, err
	}
	view.tee(l.watch.Event)
	fmt.Fprintf(stderr, "pier: watch this run in a browser (the link signs you in: share it with no one):\n\n    %s\n\n", srv.URL())
	return l, nil
}

// end sends the summary, waits (boundedly) for the watching pages to
// receive it, and stops serving.
func (l *liveView) end(res *apply.Result, destroy bool, err error) {
	if l == nil {
		return
	}
	l.watch.End(res, destroy, err)
	l.srv.Shutdown(caughtUpBound)
	<-l.served
}

// Tail follows the logs of the deployment's pg_state handlers, which a
// teammate's pier apply may be writing: each look asks PostgreSQL only for
// the events after the last one seen (state_file logs are not followed).
func (l uiLogs) Tail(ctx context.Context) (webview.LogTail, error) {
	handlers, err := l.dep.Handlers(ctx)
	if err != nil {
		return nil, err
	}
	t := &pgTail{logs: map[string]*pgLog{}, last: map[string]int64{}}
	for name, h := range handlers {
		if h.Builtin != "postgres" || h.Type != postgres.StateType {
			continue
		}
		log, err := openStateLog(ctx, h, false)
		if err != nil {
			t.Close()
			return nil, err
		}
		pg := log.(*pgLog)
		t.logs[name], t.last[name] = pg, pg.s.LastIndex()
	}
	return t, nil
}

// pgTail is the pg_state logs pier ui follows, each with the index of the
// last event it reported.
type pgTail struct {
	logs map[string]*pgLog
	last map[string]int64
}

func (t *pgTail) Landed(ctx context.Context) (map[string][]webview.HistoryEvent, error) {
	out := map[string][]webview.HistoryEvent{}
	for name, log := range t.logs {
		rows, err := log.after(ctx, t.last[name])
		if err != nil {
			return out, fmt.Errorf("history of %s: %w", name, err)
		}
		for _, r := range rows {
			out[name] = append(out[name], webview.HistoryEvent(r))
			t.last[name] = r.Index
		}
	}
	return out, nil
}

func (t *pgTail) Close() error {
	for _, log := range t.logs {
		log.close()
	}
	return nil
}
