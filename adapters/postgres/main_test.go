package postgres

import (
	"os"
	"testing"

	"github.com/pierhq/pier/adapters/postgres/pgtest"
)

// TestMain starts one real PostgreSQL server for the package's tests, or,
// as a helper process (PGTEST_HOLD set), holds a state's lock until killed.
func TestMain(m *testing.M) {
	if key := os.Getenv("PGTEST_HOLD"); key != "" {
		holdLock(key)
		return
	}
	pgtest.Main(m)
}
