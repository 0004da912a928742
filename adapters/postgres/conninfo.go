package postgres

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrPasswordInConninfo is returned for a conninfo that carries a
// password. Inputs travel on the protocol and may be printed in plans and
// logs; a password belongs in PGPASSFILE (or ~/.pgpass).
var ErrPasswordInConninfo = errors.New("conninfo must not contain a password: put it in a password file (PGPASSFILE or ~/.pgpass) instead")

// defaultConnectTimeout bounds a connection attempt when neither conninfo
// nor PGCONNECT_TIMEOUT says: an unreachable server must fail the command
// promptly, not after the kernel's TCP timeout of minutes.
const defaultConnectTimeout = 10 * time.Second

// connConfig parses conninfo (key=value pairs or a postgres:// URL; empty
// means libpq's environment alone) into a pgx configuration. Errors never
// repeat the conninfo, which may hold a host or user name a log should
// not need. session is the session timeout (see boundSession).
func connConfig(conninfo string, session time.Duration) (*pgx.ConnConfig, error) {
	has, err := hasPassword(conninfo)
	if err != nil {
		return nil, fmt.Errorf("parse conninfo: %w", err)
	}
	if has {
		return nil, ErrPasswordInConninfo
	}
	cfg, err := pgx.ParseConfig(conninfo)
	if err != nil {
		// pgx's parse errors redact passwords; there are none here anyway.
		return nil, fmt.Errorf("parse conninfo: %w", err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = defaultConnectTimeout
	}
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "pier"
	}
	boundSession(&cfg.Config, session)
	return cfg, nil
}

// hasPassword reports whether a conninfo names a password, in either of
// libpq's two forms.
func hasPassword(conninfo string) (bool, error) {
	s := strings.TrimSpace(conninfo)
	if strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") {
		u, err := url.Parse(s)
		if err != nil {
			return false, errors.New("not a valid postgres:// URL")
		}
		if _, ok := u.User.Password(); ok {
			return true, nil
		}
		return u.Query().Has("password"), nil
	}
	keys, err := conninfoKeys(s)
	if err != nil {
		return false, err
	}
	for _, k := range keys {
		if k == "password" {
			return true, nil
		}
	}
	return false, nil
}

// conninfoKeys returns the keys of a key=value conninfo, reading values as
// libpq does: bare up to whitespace, or single-quoted with backslash
// escapes.
func conninfoKeys(s string) ([]string, error) {
	var keys []string
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
	}
	for {
		skip()
		if i == len(s) {
			return keys, nil
		}
		start := i
		for i < len(s) && s[i] != '=' && s[i] != ' ' && s[i] != '\t' {
			i++
		}
		key := s[start:i]
		skip()
		if i == len(s) || s[i] != '=' {
			return nil, fmt.Errorf("%q is not followed by =", key)
		}
		i++
		skip()
		if i < len(s) && s[i] == '\'' {
			i++
			for i < len(s) && s[i] != '\'' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(s) {
				return nil, fmt.Errorf("the value of %q has no closing quote", key)
			}
			i++
		} else {
			for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		}
		keys = append(keys, key)
	}
}
