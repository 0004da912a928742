package postgres

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func sleepBriefly() { time.Sleep(50 * time.Millisecond) }

func TestConninfoRefusesPasswords(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		conninfo string
		refused  bool
	}{
		"empty":              {"", false},
		"keywords":           {"host=db port=5432 user=deploy dbname=infra sslmode=verify-full", false},
		"password keyword":   {"host=db password=hunter2", true},
		"quoted password":    {"host=db password='a b\\' c' user=x", true},
		"spaces around =":    {"host = db password = x", true},
		"passfile is fine":   {"host=db passfile=/home/me/.pgpass", false},
		"quoted value":       {"host=db application_name='password=x'", false},
		"url":                {"postgres://deploy@db/infra?sslmode=require", false},
		"url with password":  {"postgresql://deploy:hunter2@db/infra", true},
		"url password param": {"postgres://db/infra?password=hunter2", true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := connConfig(tt.conninfo, DefaultSessionTimeout)
			if got := errors.Is(err, ErrPasswordInConninfo); got != tt.refused {
				t.Errorf("connConfig(%q): %v; refused = %v, want %v", tt.conninfo, err, got, tt.refused)
			}
			if err != nil && tt.refused && (strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "a b")) {
				t.Errorf("error repeats the password: %v", err)
			}
		})
	}
}
