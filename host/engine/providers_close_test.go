package engine

import (
	"testing"

	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/host/source"
)

// TestMayUseTerraform checks which pools close must see closed before it
// stops the Terraform providers: every pool that may have bridges
// attached, and no pool of pier's own adapters or of a plain executable,
// which close lets exit beside them.
func TestMayUseTerraform(t *testing.T) {
	t.Parallel()
	p := newProviders(Config{PierExecutable: "/bin/pier", Builtins: builtin.Capabilities})
	p.Declare(map[string]*source.Provider{
		"local": {Name: "local", Builtin: "local"},
		"time":  {Name: "time", Terraform: "./terraform-provider-time"},
		"mine":  {Name: "mine", Executable: "/bin/true"},
	})
	tests := map[string]struct {
		key  string
		want bool
	}{
		"terraform":                {key: "time", want: true},
		"terraform, state handler": {key: handlerKey("time", "resource.state"), want: true},
		"builtin state handler":    {key: handlerKey("local", "resource.state"), want: false},
		"builtin":                  {key: "local", want: false},
		"executable":               {key: "mine", want: false},
		"undeclared":               {key: "gone", want: true},
		"undeclared state handler": {key: handlerKey("gone", "resource.state"), want: true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p.mu.Lock()
			got := p.mayUseTerraform(tt.key)
			p.mu.Unlock()
			if got != tt.want {
				t.Errorf("mayUseTerraform(%q) = %v, want %v", tt.key, got, tt.want)
			}
		})
	}
}
