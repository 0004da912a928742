package webview

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/pierhq/pier/host/apply"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/session"
)

//go:embed assets
var assets embed.FS

// Vocabulary is how pier's CLI spells its events and results with --json.
// The web view sends the browser the same objects, so that there is one
// event vocabulary for the CLI, the RPC service and the page.
type Vocabulary struct {
	// Event is one --json progress line.
	Event func(engine.Event) any
	// Plan is pier plan --json's object, and PlanText what pier plan
	// prints, without colour.
	Plan     func(*plan.Plan) (any, error)
	PlanText func(*plan.Plan) string
	// Summary is the closing summary line of pier apply --json; late is an
	// error after the resources were applied.
	Summary func(res *apply.Result, destroy bool, late error) any
}

// Options configure a [Server].
type Options struct {
	Deployment *session.Deployment
	Vocabulary Vocabulary
	// Logs reads the state handlers' event logs, for the history view;
	// nil leaves the view empty. If it is a [LogFollower] too, the events
	// that other processes record while a page is open are pushed to it.
	Logs StateLogs
	// Listen is the address to listen on, 127.0.0.1:0 (a free port) if
	// empty. An address that is not loopback needs TLSCert and TLSKey.
	Listen          string
	TLSCert, TLSKey string
	// Watch serves a run that someone else drives (pier apply --ui): the
	// page shows it live and offers no plan or apply of its own.
	Watch  bool
	Logger *slog.Logger
	// LayoutHelper is the pier-layout that lays the graph out; empty
	// means the one next to the running executable ([layout.Find]).
	LayoutHelper string
}

// Server is a running pier ui.
type Server struct {
	opts   Options
	dep    *session.Deployment
	vocab  Vocabulary
	ln     net.Listener
	http   *http.Server
	access *access
	url    string
	log    *slog.Logger

	graphMu    sync.Mutex
	graphCache *graphJSON

	runs *runs

	// followers counts the open event streams; while there is one, the
	// state logs are followed (follow.go).
	followMu   sync.Mutex
	followers  int
	stopFollow context.CancelFunc
}

// New listens and returns the server; [Server.Serve] serves. The URL it
// prints ([Server.URL]) carries the access token.
func New(opts Options) (*Server, error) {
	if opts.Deployment == nil {
		return nil, errors.New("pier ui: no deployment")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	addr := opts.Listen
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	secure := opts.TLSCert != "" || opts.TLSKey != ""
	if secure && (opts.TLSCert == "" || opts.TLSKey == "") {
		return nil, errors.New("pier ui: give both --tls-cert and --tls-key")
	}
	if err := checkListen(addr, secure); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("pier ui: listen on %s: %w", addr, err)
	}
	s := &Server{opts: opts, dep: opts.Deployment, vocab: opts.Vocabulary, ln: ln, log: opts.Logger}
	s.runs = newRuns()
	a, err := newAccess(ln.Addr(), secure, s.routes())
	if err != nil {
		ln.Close()
		return nil, err
	}
	s.access = a
	scheme := "http"
	if secure {
		scheme = "https"
	}
	s.url = fmt.Sprintf("%s://%s/?token=%s", scheme, ln.Addr(), a.token)
	s.http = &http.Server{Handler: a, ReadHeaderTimeout: 10 * time.Second}
	return s, nil
}

// checkListen refuses an address other machines can reach, unless the
// connection is encrypted: the token must not cross a network in clear.
func checkListen(addr string, secure bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("pier ui: --listen %q: %w", addr, err)
	}
	if secure || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("pier ui: --listen %s is not a loopback address; the view can change infrastructure, so serving it to other machines needs --tls-cert and --tls-key", addr)
}

// URL is where the page is, with the access token: give it only to the
// user.
func (s *Server) URL() string { return s.url }

// Serve serves until ctx ends or [Server.Close].
func (s *Server) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	var err error
	if s.opts.TLSCert != "" {
		err = s.http.ServeTLS(s.ln, s.opts.TLSCert, s.opts.TLSKey)
	} else {
		err = s.http.Serve(s.ln)
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Close stops serving at once.
func (s *Server) Close() error {
	s.runs.close()
	return s.http.Close()
}

// Shutdown stops serving once every open event stream has sent what it
// has not yet sent and ended, or after timeout: pier apply --ui calls it
// so that the pages watching see the summary.
func (s *Server) Shutdown(timeout time.Duration) error {
	s.runs.close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := s.http.Shutdown(ctx); err != nil {
		return s.http.Close()
	}
	return nil
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	files := http.FileServerFS(static)
	mux.Handle("GET /{$}", files)
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", files))
	mux.HandleFunc("GET /api/session", s.handleSession)
	mux.HandleFunc("GET /api/graph", s.handleGraph)
	mux.HandleFunc("GET /api/resource", s.handleResource)
	mux.HandleFunc("GET /api/history", s.handleHistory)
	mux.HandleFunc("GET /api/state", s.handleStateAt)
	mux.HandleFunc("GET /api/events", s.handleEvents)
	mux.HandleFunc("POST /api/plan", s.handlePlan)
	mux.HandleFunc("POST /api/apply", s.handleApply)
	mux.HandleFunc("POST /api/interrupt", s.handleInterrupt)
	return mux
}

// sessionJSON tells the page what it is looking at.
type sessionJSON struct {
	Deployment string `json:"deployment"`
	// Token goes with every POST (header X-Pier-Token).
	Token string `json:"token"`
	Watch bool   `json:"watch"`
}

func (s *Server) handleSession(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, sessionJSON{Deployment: s.dep.Name(), Token: s.access.csrf, Watch: s.opts.Watch})
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "pier ui: encode the answer: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// errorJSON is a failed request's answer; the page shows Error.
type errorJSON struct {
	Error string `json:"error"`
}

func (s *Server) fail(w http.ResponseWriter, err error) {
	s.failCode(w, http.StatusInternalServerError, err)
}

func (s *Server) failCode(w http.ResponseWriter, code int, err error) {
	b, _ := json.Marshal(errorJSON{Error: err.Error()})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(b)
}
