package engine

import (
	"maps"
	"os"
	"strings"
)

// libpqEnv are the libpq settings the postgres adapter inherits from pier's
// environment, so that a team's usual PGHOST, PGUSER, PGPASSFILE … work.
// PGPASSWORD and PGSSLPASSWORD are left out on purpose: a secret in a
// child's environment is readable in /proc; the password file is the way.
var libpqEnv = []string{
	"PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGPASSFILE",
	"PGSERVICE", "PGSERVICEFILE", "PGOPTIONS", "PGAPPNAME", "PGCONNECT_TIMEOUT",
	"PGSSLMODE", "PGSSLCERT", "PGSSLKEY", "PGSSLROOTCERT", "PGSSLCRL", "PGSSLSNI",
	"PGSSLNEGOTIATION", "PGSSLCERTMODE", "PGREQUIREAUTH", "PGCHANNELBINDING",
	"PGTARGETSESSIONATTRS", "PGTZ", "PGMINPROTOCOLVERSION", "PGMAXPROTOCOLVERSION",
	// pier's own: how long a writer cut off from the server keeps a lock.
	"PIER_PG_SESSION_TIMEOUT",
}

// readOnlyEnv is what the built-in state handlers read to open their
// states read-only (see adapters/postgres.ReadOnlyEnv).
const readOnlyEnv = "PIER_STATE_READ_ONLY"

// BuiltinEnv is the environment pier adds for a built-in adapter: the
// declaration's own, the libpq settings for postgres, and the read-only
// mark. pier provider --builtin uses it too, so the adapter sees the same.
func BuiltinEnv(builtin string, declared map[string]string, readOnly bool) map[string]string {
	env := map[string]string{}
	if builtin == "postgres" {
		for _, k := range libpqEnv {
			if v, ok := os.LookupEnv(k); ok && !strings.Contains(k, "PASSWORD") {
				env[k] = v
			}
		}
	}
	maps.Copy(env, declared)
	if readOnly {
		env[readOnlyEnv] = "1"
	}
	if len(env) == 0 {
		return nil
	}
	return env
}
