package postgres_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/adapters/postgres"
)

// TestCapabilities: the adapter publishes its one type as a state type,
// and inherits no variable that holds a password.
func TestCapabilities(t *testing.T) {
	t.Parallel()
	c := postgres.Capabilities
	if diff := cmp.Diff([]string{postgres.StateType}, c.ResourceTypes); diff != "" {
		t.Errorf("resource types (-want +got):\n%s", diff)
	}
	if !c.IsStateType(postgres.StateType) {
		t.Errorf("%s is not published as a state type", postgres.StateType)
	}
	for _, k := range c.Env {
		if strings.Contains(k, "PASSWORD") {
			t.Errorf("inherits %s: a secret in a child's environment is readable in /proc", k)
		}
	}
	if !strings.Contains(strings.Join(c.Env, " "), postgres.SessionTimeoutEnv) {
		t.Errorf("does not inherit %s", postgres.SessionTimeoutEnv)
	}
}
