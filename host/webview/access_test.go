package webview

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/host/lockfile"
	"github.com/pierhq/pier/host/session"
	"github.com/pierhq/pier/internal/testbin"
)

// newTestServer serves examples/hello; nothing here plans or applies.
func newTestServer(t *testing.T, opts Options) *Server {
	t.Helper()
	dep, err := session.Open(session.Options{Dir: filepath.Join("..", "..", "examples", "hello"), Lock: lockfile.ModeOff})
	if err != nil {
		t.Fatal(err)
	}
	opts.Deployment = dep
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return s
}

// signIn exchanges the URL's token for the session cookie.
func signIn(t *testing.T, s *Server) *http.Cookie {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("GET the printed URL: %s, Location %q; want 303 to /", resp.Status, resp.Header.Get("Location"))
	}
	for _, ck := range resp.Cookies() {
		if ck.Name == cookieName {
			if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/" {
				t.Errorf("session cookie %+v: want HttpOnly, SameSite=Strict, Path=/", ck)
			}
			return ck
		}
	}
	t.Fatalf("GET the printed URL set no %s cookie", cookieName)
	return nil
}

func TestAccess(t *testing.T) {
	s := newTestServer(t, Options{})
	cookie := signIn(t, s)
	u, _ := url.Parse(s.URL())
	base := "http://" + u.Host
	csrf := s.access.csrf
	// A wrong token differs from csrf in its first character; "x" + csrf[1:]
	// alone was csrf itself once in 64 runs.
	wrongCSRF := "x" + csrf[1:]
	if wrongCSRF == csrf {
		wrongCSRF = "y" + csrf[1:]
	}
	tests := []struct {
		name    string
		method  string
		path    string
		host    string
		origin  string
		cookie  bool
		token   string
		want    int
		wantErr string
	}{
		{name: "signed in", method: "GET", path: "/api/session", cookie: true, want: 200},
		{name: "page signed in", method: "GET", path: "/", cookie: true, want: 200},
		{name: "no cookie", method: "GET", path: "/api/session", want: 401, wantErr: "not signed in"},
		{name: "page without cookie", method: "GET", path: "/", want: 401},
		{name: "asset without cookie", method: "GET", path: "/assets/app.js", want: 401},
		{name: "event stream without cookie", method: "GET", path: "/api/events", want: 401},
		{name: "wrong token", method: "GET", path: "/?token=" + strings.Repeat("A", 43), want: 401, wantErr: "wrong token"},
		{name: "wrong Host (DNS rebinding)", method: "GET", path: "/api/session", host: "attacker.example:" + u.Port(), cookie: true, want: 421},
		{name: "wrong Host with the token", method: "GET", path: "/?token=" + s.access.token, host: "attacker.example", want: 421},
		{name: "localhost is this server", method: "GET", path: "/api/session", host: "localhost:" + u.Port(), cookie: true, want: 200},
		{name: "cross-origin GET", method: "GET", path: "/api/session", origin: "http://attacker.example", cookie: true, want: 403},
		{name: "cross-origin POST", method: "POST", path: "/api/interrupt", origin: "http://attacker.example", cookie: true, token: csrf, want: 403},
		{name: "POST without the token", method: "POST", path: "/api/interrupt", origin: base, cookie: true, want: 403, wantErr: "needs the page's token"},
		{name: "POST with a wrong token", method: "POST", path: "/api/interrupt", origin: base, cookie: true, token: wrongCSRF, want: 403},
		{name: "POST without Origin", method: "POST", path: "/api/interrupt", cookie: true, token: csrf, want: 403},
		{name: "POST without cookie", method: "POST", path: "/api/interrupt", origin: base, token: csrf, want: 401},
		// Reaches the handler: there is no run to interrupt.
		{name: "POST from the page", method: "POST", path: "/api/interrupt", origin: base, cookie: true, token: csrf, want: 409},
		{name: "a change is a POST", method: "GET", path: "/api/apply", cookie: true, want: 405},
		{name: "other methods", method: "PUT", path: "/api/plan", origin: base, cookie: true, token: csrf, want: 405},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, base+tt.path, strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			if tt.cookie {
				req.AddCookie(cookie)
			}
			if tt.token != "" {
				req.Header.Set(csrfHeader, tt.token)
			}
			c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("%s %s: %s %q; want %d", tt.method, tt.path, resp.Status, body, tt.want)
			}
			if tt.wantErr != "" && !strings.Contains(string(body), tt.wantErr) {
				t.Errorf("body %q does not say %q", body, tt.wantErr)
			}
			csp := resp.Header.Get("Content-Security-Policy")
			if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
				t.Errorf("Content-Security-Policy %q: want no inline script or style and no other origin", csp)
			}
			if tt.want != 200 && strings.Contains(string(body), s.access.token) {
				t.Errorf("a refusal carries the access token: %q", body)
			}
		})
	}
}

func TestListen(t *testing.T) {
	for _, tt := range []struct {
		addr   string
		secure bool
		ok     bool
	}{
		{"127.0.0.1:0", false, true},
		{"localhost:0", false, true},
		{"[::1]:0", false, true},
		{"0.0.0.0:0", false, false},
		{"[::]:0", false, false},
		{"192.0.2.1:8080", false, false},
		{"0.0.0.0:0", true, true},
		{"nonsense", false, false},
	} {
		err := checkListen(tt.addr, tt.secure)
		if (err == nil) != tt.ok {
			t.Errorf("checkListen(%q, tls=%v) = %v; want ok=%v", tt.addr, tt.secure, err, tt.ok)
		}
		if err != nil && tt.addr != "nonsense" && !strings.Contains(err.Error(), "--tls-cert") {
			t.Errorf("checkListen(%q): %v does not say how to serve it", tt.addr, err)
		}
	}
}

func TestGraphLayout(t *testing.T) {
	// The real helper, built beside the test's pier binary.
	helper := filepath.Join(filepath.Dir(testbin.Pier(t)), "pier-layout")
	s := newTestServer(t, Options{LayoutHelper: helper})
	g, err := s.graph(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var nodes []string
	for _, n := range g.Nodes {
		nodes = append(nodes, n.Address)
		if !strings.Contains(g.SVG, `id="r:`+n.Address+`"`) {
			t.Errorf("the SVG has no node %s", n.Address)
		}
	}
	if got, want := strings.Join(nodes, " "), "state first born note greeting"; got != want {
		t.Errorf("nodes %q; want %q", got, want)
	}
	if len(g.Edges) != 6 || strings.Count(g.SVG, `class="edge dep `) != 6 {
		t.Errorf("%d edges, %d in the SVG; want 6", len(g.Edges), strings.Count(g.SVG, `class="edge dep `))
	}
	if !strings.HasPrefix(g.SVG, "<svg") {
		t.Errorf("the SVG starts %q; want the <svg> element", g.SVG[:20])
	}
}
