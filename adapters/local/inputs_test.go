package local

import (
	"slices"
	"testing"
)

// TestInputsCoverTypes keeps Inputs in step with the types New serves.
func TestInputsCoverTypes(t *testing.T) {
	t.Parallel()
	p := New(Options{})
	in := Inputs()
	for typ := range p.types {
		if len(in[typ]) == 0 {
			t.Errorf("Inputs lacks type %s", typ)
		}
	}
	if len(in) != len(p.types) {
		t.Errorf("Inputs has %d types, the provider serves %d", len(in), len(p.types))
	}
	if want := []string{"args", "executable", "once", "stdin"}; !slices.Equal(in["exec"], want) {
		t.Errorf("exec inputs = %v, want %v", in["exec"], want)
	}
}
