package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// This file bounds how long a writer whose network to the server is lost
// keeps a state's lock. The lock belongs to a session, and a server that
// neither hears from nor can reach a client keeps the session, and the
// lock, until its TCP stack gives up: two hours with the kernel's
// keepalive defaults. Three things bound it to the session timeout T
// (DefaultSessionTimeout unless configured):
//
//   - the server ends a session idle for T (idle_session_timeout, from
//     PostgreSQL 14), or idle in a transaction for T, and cancels a
//     statement or lock wait past T; its TCP keepalives and user timeout
//     end a connection whose peer vanished within T;
//   - a writer pings the server every T/4, so that a healthy one is never
//     idle that long, however long an apply waits on its providers;
//   - a writer that gets no answer within T/2 (to a ping or an append)
//     counts its lock as lost and writes nothing more. It gives up before
//     the server does, so two writers never both believe they hold a
//     lock. Its own TCP keepalives and user timeout give up within T/2.
//
// Behind a proxy, or a partition that only drops packets, TCP keepalives
// are answered by whatever is in between; the idle timeout and the pings
// still end the session, since they need pier itself to answer.

// DefaultSessionTimeout is the session timeout: a writer cut off from the
// server loses its lock, and another writer can take it, within this
// long. A minute keeps a stale lock from blocking a team noticeably,
// while pings every quarter of it cost nothing.
const DefaultSessionTimeout = 60 * time.Second

// SessionTimeoutEnv names the environment variable that sets the session
// timeout (a Go duration such as 30s); pier passes it to the adapter.
const SessionTimeoutEnv = "PIER_PG_SESSION_TIMEOUT"

// minSessionTimeout is the shortest session timeout accepted: the server
// counts its TCP timers in whole seconds, and pings every quarter of it.
const minSessionTimeout = 4 * time.Second

// ParseSessionTimeout reads a session timeout; "" means the default.
func ParseSessionTimeout(s string) (time.Duration, error) {
	if s == "" {
		return DefaultSessionTimeout, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", SessionTimeoutEnv, err)
	}
	if d < minSessionTimeout {
		return 0, fmt.Errorf("%s=%s: the session timeout must be at least %s", SessionTimeoutEnv, s, minSessionTimeout)
	}
	return d, nil
}

// boundSession sets the client's and the server's timers of a connection
// for session timeout t. Settings the conninfo names itself are kept.
func boundSession(cfg *pgconn.Config, t time.Duration) {
	secs := func(d time.Duration) string { return strconv.Itoa(max(1, int(d/time.Second))) }
	ms := func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
	for k, v := range map[string]string{
		"tcp_keepalives_idle":                 secs(t / 4),
		"tcp_keepalives_interval":             secs(t / 8),
		"tcp_keepalives_count":                "2",
		"tcp_user_timeout":                    ms(t),
		"idle_in_transaction_session_timeout": ms(t),
		"statement_timeout":                   ms(t),
		"lock_timeout":                        ms(t),
	} {
		if _, ok := cfg.RuntimeParams[k]; !ok {
			cfg.RuntimeParams[k] = v
		}
	}
	d := &net.Dialer{
		Timeout:         cfg.ConnectTimeout,
		KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: t / 4, Interval: t / 8, Count: 2},
		Control:         tcpUserTimeout(t / 2),
	}
	cfg.DialFunc = d.DialContext
}

// idleSessionTimeout asks the server to end the session once it has been
// idle for t: what frees the lock of a writer that can no longer reach
// the server, even behind a proxy that answers TCP keepalives. A server
// older than 14 does not know the setting; there the TCP timers alone
// bound it, and reported is false.
func idleSessionTimeout(ctx context.Context, conn interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}, t time.Duration) (reported bool, err error) {
	_, err = conn.Exec(ctx, "SELECT set_config('idle_session_timeout', $1, false)", strconv.FormatInt(t.Milliseconds(), 10))
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42704" { // undefined_object: before PostgreSQL 14
		return false, nil
	}
	return err == nil, err
}

// tcpUserTimeout sets TCP_USER_TIMEOUT on TCP sockets: data unacknowledged
// for d ends the connection, where keepalives do not apply.
func tcpUserTimeout(d time.Duration) func(network, address string, c syscall.RawConn) error {
	return func(network, _ string, c syscall.RawConn) error {
		if network != "tcp" && network != "tcp4" && network != "tcp6" {
			return nil
		}
		var serr error
		err := c.Control(func(fd uintptr) { serr = setUserTimeout(int(fd), d) })
		if err != nil {
			return err
		}
		return serr
	}
}
