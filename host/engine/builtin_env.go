package engine

import (
	"maps"
	"os"
	"strings"

	"github.com/pierhq/pier/schema"
)

// readOnlyEnv is what the built-in state handlers read to open their
// states read-only (see adapters/postgres.ReadOnlyEnv).
const readOnlyEnv = "PIER_STATE_READ_ONLY"

// BuiltinEnv is the environment pier adds for a built-in adapter: what
// of pier's own the adapter inherits ([schema.Capabilities.Env]), the
// declaration's own, and the read-only mark. pier provider --builtin uses
// it too, so the adapter sees the same.
func BuiltinEnv(caps schema.Capabilities, declared map[string]string, readOnly bool) map[string]string {
	env := map[string]string{}
	for _, k := range caps.Env {
		if v, ok := os.LookupEnv(k); ok && !strings.Contains(k, "PASSWORD") {
			env[k] = v
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
