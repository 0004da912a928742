package engine

import (
	"testing"
	"time"

	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/host/source"
)

// TestCloseGrace checks who gets the longer grace to exit: pier's own
// adapters, whose shutdown work (a state_file's cache) grows with the
// state, and every provider when the configuration asks for more.
func TestCloseGrace(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		decl  source.Provider
		grace time.Duration
		want  time.Duration
	}{
		"builtin":                    {decl: source.Provider{Name: "local", Builtin: "local"}, want: builtinCloseGrace},
		"builtin, longer configured": {decl: source.Provider{Name: "local", Builtin: "local"}, grace: 2 * time.Minute, want: 2 * time.Minute},
		"executable":                 {decl: source.Provider{Name: "mine", Executable: "/bin/true"}, want: 0},
		"executable, configured":     {decl: source.Provider{Name: "mine", Executable: "/bin/true"}, grace: time.Minute, want: time.Minute},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := newProviders(Config{PierExecutable: "/bin/pier", Builtins: builtin.Capabilities, CloseGrace: tt.grace})
			pc, err := p.processConfig(&tt.decl)
			if err != nil {
				t.Fatal(err)
			}
			if pc.CloseGrace != tt.want {
				t.Errorf("close grace %v, want %v", pc.CloseGrace, tt.want)
			}
		})
	}
}
