package webview

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// The access rules, checked on every request before any handler runs:
//
//   - Host must name this server (an address it listens on, or localhost
//     for a loopback one), so a page on another origin that rebinds its DNS
//     name to 127.0.0.1 is refused.
//   - The URL pier printed carries a random 256-bit token; GET /?token=T
//     sets an HttpOnly, SameSite=Strict session cookie and redirects to /,
//     so the token leaves the address bar and history.
//   - Every other request needs that cookie: 401 without it.
//   - A request that changes anything is a POST whose Origin is this
//     server's and which carries the CSRF token the page read from
//     /api/session (which only a page with the cookie can read).

const (
	cookieName = "pier_session"
	csrfHeader = "X-Pier-Token"
)

// secret is 256 random bits, URL-safe.
func secret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// access wraps the routes with the rules above and the headers every
// response carries.
type access struct {
	token, session, csrf string
	// hosts are the Host values this server answers to.
	hosts map[string]bool
	// origins are the Origin values of its own pages.
	origins map[string]bool
	secure  bool
	next    http.Handler
}

func newAccess(addr net.Addr, secure bool, next http.Handler) (*access, error) {
	a := &access{hosts: map[string]bool{}, origins: map[string]bool{}, secure: secure, next: next}
	for _, p := range []*string{&a.token, &a.session, &a.csrf} {
		s, err := secret()
		if err != nil {
			return nil, err
		}
		*p = s
	}
	tcp := addr.(*net.TCPAddr)
	port := strconv.Itoa(tcp.Port)
	names := []string{tcp.IP.String()}
	if tcp.IP.IsLoopback() {
		names = append(names, "localhost", "127.0.0.1", "::1")
	}
	scheme := "http://"
	if secure {
		scheme = "https://"
	}
	for _, n := range names {
		h := net.JoinHostPort(n, port)
		a.hosts[h] = true
		a.origins[scheme+h] = true
	}
	return a, nil
}

func (a *access) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// The page's own files only: no inline script or style, no other
	// origin, never framed.
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if !a.hosts[r.Host] {
		http.Error(w, "pier ui: this server does not answer to Host "+quote(r.Host)+"; open the URL pier printed", http.StatusMisdirectedRequest)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !a.origins[o] {
		http.Error(w, "pier ui: requests from another origin are refused", http.StatusForbidden)
		return
	}
	if r.Method == http.MethodGet && r.URL.Path == "/" && r.URL.Query().Has("token") {
		if !equal(r.URL.Query().Get("token"), a.token) {
			http.Error(w, "pier ui: wrong token; open the URL pier printed", http.StatusUnauthorized)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: cookieName, Value: a.session, Path: "/", HttpOnly: true, Secure: a.secure, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	c, err := r.Cookie(cookieName)
	if err != nil || !equal(c.Value, a.session) {
		http.Error(w, "pier ui: not signed in; open the URL pier printed", http.StatusUnauthorized)
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodPost:
		// A browser sends Origin with every POST fetch; one without it
		// did not come from a page.
		if r.Header.Get("Origin") == "" || !equal(r.Header.Get(csrfHeader), a.csrf) {
			http.Error(w, "pier ui: a change needs the page's token", http.StatusForbidden)
			return
		}
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "pier ui: method not allowed", http.StatusMethodNotAllowed)
		return
	}
	a.next.ServeHTTP(w, r)
}

func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return `"` + strings.ToValidUTF8(s, "?") + `"`
}
