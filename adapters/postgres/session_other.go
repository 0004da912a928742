//go:build !linux

package postgres

import "time"

// setUserTimeout does nothing where TCP_USER_TIMEOUT is not known: the
// keepalives, pings and the server's timers still bound the session.
func setUserTimeout(int, time.Duration) error { return nil }
