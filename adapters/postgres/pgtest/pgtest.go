// Package pgtest runs a real PostgreSQL server for tests: initdb and
// pg_ctl in a temporary directory, as a user that is not root (PostgreSQL
// refuses to run as root, and CI runs as root), listening on a Unix socket
// in that directory and on a loopback TCP port. Start it once per test
// package, from TestMain, with [Main].
//
// The server binaries are found in $PIER_PG_BIN or the newest
// /usr/lib/postgresql/*/bin. When they are missing the tests fail, saying
// what to install: a silent skip would let CI pass without ever testing
// the PostgreSQL state handler.
package pgtest

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Superuser is the bootstrap role initdb creates; local (Unix socket)
// connections as any role are trusted, TCP ones need a password.
const Superuser = "postgres"

// Server is a running test server.
type Server struct {
	// Dir holds the data directory, the socket and the log.
	Dir  string
	Bin  string
	Port int
	cred *syscall.Credential
	// exited is closed when the running postmaster has exited.
	exited chan struct{}
}

// Socket is the directory of the Unix socket, PGHOST for local
// connections.
func (s *Server) Socket() string { return s.Dir }

// Env returns the libpq environment that reaches this server over its
// Unix socket as role, in database postgres.
func (s *Server) Env(role string) []string {
	return []string{"PGHOST=" + s.Socket(), "PGPORT=" + strconv.Itoa(s.Port), "PGUSER=" + role, "PGDATABASE=postgres", "PGSSLMODE=disable"}
}

// Conninfo reaches the server over its socket as the superuser.
func (s *Server) Conninfo() string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=postgres sslmode=disable", s.Socket(), s.Port, Superuser)
}

var current *Server

// Current is the server [Main] started.
func Current(tb testing.TB) *Server {
	tb.Helper()
	if current == nil {
		tb.Fatal("pgtest: no server; the package's TestMain must call pgtest.Main")
	}
	return current
}

// Main starts a server, runs the tests and stops the server. Extra
// postgresql.conf settings may be given as "name=value".
func Main(m *testing.M, settings ...string) {
	s, err := Start(settings...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgtest:", err)
		os.Exit(1)
	}
	current = s
	code := m.Run()
	if err := s.Stop("fast"); err != nil {
		fmt.Fprintln(os.Stderr, "pgtest:", err)
	}
	os.RemoveAll(s.Dir)
	os.Exit(code)
}

// BinDir finds the PostgreSQL server binaries.
func BinDir() (string, error) {
	if d := os.Getenv("PIER_PG_BIN"); d != "" {
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("PostgreSQL server binaries (initdb, pg_ctl) not found in /usr/lib/postgresql/*/bin or on PATH: install Debian's postgresql (apt-get install postgresql; .ci/setup.d/60-postgres.sh does), or set PIER_PG_BIN")
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// Start initialises and starts a server in a new temporary directory.
func Start(settings ...string) (*Server, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	cred, err := serverUser()
	if err != nil {
		return nil, err
	}
	// A short path: a Unix socket path is limited to about 100 bytes.
	dir, err := os.MkdirTemp("", "pier-pg-")
	if err != nil {
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, err
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, Bin: bin, Port: port, cred: cred}
	if out, err := s.run("initdb", "-D", s.data(), "-U", Superuser, "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync"); err != nil {
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	conf := []string{
		"listen_addresses = '127.0.0.1'",
		"port = " + strconv.Itoa(port),
		"unix_socket_directories = '" + dir + "'",
		// A test server: durability against a machine crash is not under
		// test (an immediate stop keeps the OS's page cache), speed is.
		"fsync = off",
		"full_page_writes = off",
		"max_connections = 100",
	}
	for _, kv := range settings {
		k, v, _ := strings.Cut(kv, "=")
		conf = append(conf, k+" = "+v)
	}
	if err := appendFile(filepath.Join(s.data(), "postgresql.conf"), strings.Join(conf, "\n")+"\n"); err != nil {
		return nil, err
	}
	if err := s.Start(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Server) data() string { return filepath.Join(s.Dir, "data") }

// Start starts the (stopped) server and waits until it accepts
// connections. The postmaster is this process's child, with a parent-death
// signal (SIGQUIT: PostgreSQL's immediate shutdown), so a test binary that
// crashes or times out leaves no server running on the machine.
func (s *Server) Start() error {
	logf, err := os.OpenFile(filepath.Join(s.Dir, "server.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	started := make(chan error, 1)
	exited := make(chan struct{})
	go func() {
		// Linux sends the parent-death signal when the thread that forked
		// the child exits, so fork from a thread that lives as long as
		// the server: this goroutine's, locked to it until the server
		// exits.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer close(exited)
		cmd := exec.Command(filepath.Join(s.Bin, "postgres"), "-D", s.data())
		cmd.Dir = s.Dir
		cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "LC_ALL=C.UTF-8"}
		cmd.Stdout, cmd.Stderr = logf, logf
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		cmd.Wait()
		logf.Close()
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	s.exited = exited
	// Ready when pg_isready says so; bounded, because a loaded machine can
	// take long to start a server, and a broken one must still fail.
	for range 2400 {
		if _, err := s.run("pg_isready", "-q", "-h", s.Socket(), "-p", strconv.Itoa(s.Port)); err == nil {
			return nil
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(s.Dir, "server.log"))
			return fmt.Errorf("postgres exited at start:\n%s", log)
		case <-time.After(50 * time.Millisecond):
		}
	}
	log, _ := os.ReadFile(filepath.Join(s.Dir, "server.log"))
	return fmt.Errorf("postgres did not accept connections within 2 minutes:\n%s", log)
}

// Stop stops the server in mode ("fast", "immediate", …) and waits until
// it has exited.
func (s *Server) Stop(mode string) error {
	if out, err := s.run("pg_ctl", "stop", "-w", "-t", "120", "-m", mode, "-D", s.data()); err != nil {
		return fmt.Errorf("pg_ctl stop -m %s: %w\n%s", mode, err, out)
	}
	if s.exited != nil {
		<-s.exited
	}
	return nil
}

// SetConf appends settings to postgresql.conf (for a restart).
func (s *Server) SetConf(lines ...string) error {
	return appendFile(filepath.Join(s.data(), "postgresql.conf"), strings.Join(lines, "\n")+"\n")
}

// WriteFile writes a file into the data directory, owned by the server's
// user (certificates for ssl tests).
func (s *Server) WriteFile(name string, data []byte) error {
	p := filepath.Join(s.data(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		return err
	}
	if s.cred != nil {
		return os.Chown(p, int(s.cred.Uid), int(s.cred.Gid))
	}
	return nil
}

// Psql runs SQL through psql as the superuser and returns its output.
func (s *Server) Psql(sql string) (string, error) {
	cmd := exec.Command(filepath.Join(s.Bin, "psql"), "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-h", s.Socket(), "-p", strconv.Itoa(s.Port), "-U", Superuser, "-d", "postgres", "-c", sql)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("psql: %w: %s", err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

func (s *Server) run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(s.Bin, name), args...)
	cmd.Dir = s.Dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "LC_ALL=C.UTF-8"}
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

// serverUser is who runs the server: this user unless it is root, then
// nobody (present on every Debian system), switched to with the kernel's
// setuid rather than a tool such as runuser, so nothing more need be
// installed.
func serverUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("running as root, the test server needs an unprivileged user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, werr := f.WriteString(text)
	if err := f.Close(); werr == nil {
		werr = err
	}
	return werr
}
