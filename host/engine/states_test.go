package engine

import (
	"testing"

	"github.com/pierhq/pier/host/source"
)

// TestMayBeOneOf holds mayBeOneOf to what ReadStates needs of it: true
// for every address whose spelling is in the set, and false, sparing the
// spelling, for a plainly named one whose name no member holds.
func TestMayBeOneOf(t *testing.T) {
	addrs := []source.Address{
		{{Name: "state"}},
		{{Name: "m", Key: 5}},
		{{Name: "m", Key: "a b"}},
		{{Name: "net", Module: true}, {Name: "state", Key: 0}},
		{{Name: "deploy"}, {Name: "inner"}, {Name: "state"}},
		{{Name: `odd "name"`}},
		{{Name: "with.dot"}},
		{{Name: "mstate"}},
	}
	for _, h := range addrs {
		set := map[string]bool{h.String(): true}
		for _, a := range addrs {
			got := mayBeOneOf(a, set)
			if a.String() == h.String() && !got {
				t.Errorf("mayBeOneOf(%s, {%s}) = false for the address itself", a, h)
			}
		}
	}
	tests := []struct {
		a    source.Address
		set  []string
		want bool
	}{
		{source.Address{{Name: "m", Key: 5}}, []string{"state"}, false},
		{source.Address{{Name: "m", Key: 5}}, []string{"mstate"}, true},
		{source.Address{{Name: "state", Key: 1}}, []string{"state"}, true},
		{source.Address{{Name: "x"}}, nil, false},
		{source.Address{{Name: `a"b`}}, []string{"state"}, true},
		{source.Address{}, []string{"state"}, true},
	}
	for _, tt := range tests {
		set := map[string]bool{}
		for _, s := range tt.set {
			set[s] = true
		}
		if got := mayBeOneOf(tt.a, set); got != tt.want {
			t.Errorf("mayBeOneOf(%s, %v) = %v, want %v", tt.a, tt.set, got, tt.want)
		}
	}
}

// TestUsable takes early reads only when they are the reads ReadStates
// would have made first: the same handlers, in address order, with the
// snapshot's own resources.
func TestUsable(t *testing.T) {
	a := &source.Resource{Address: source.Address{{Name: "a"}}}
	b := &source.Resource{Address: source.Address{{Name: "b"}}}
	bAgain := &source.Resource{Address: source.Address{{Name: "b"}}}
	ready := map[string]*source.Resource{"a": a, "b": b}
	tests := []struct {
		name     string
		reads    []*source.Resource
		handlers []string
		want     bool
	}{
		{"none read", nil, []string{"a", "b"}, true},
		{"all, in order", []*source.Resource{a, b}, []string{"a", "b"}, true},
		{"a prefix", []*source.Resource{a}, []string{"a", "b"}, true},
		{"one the listing missed sorts first", []*source.Resource{b}, []string{"a", "b"}, false},
		{"evaluated again since", []*source.Resource{a, bAgain}, []string{"a", "b"}, false},
		{"no longer a handler", []*source.Resource{a, b}, []string{"a"}, false},
	}
	for _, tt := range tests {
		var reads []earlyRead
		for _, r := range tt.reads {
			reads = append(reads, earlyRead{r: r})
		}
		if got := usable(reads, tt.handlers, ready); got != tt.want {
			t.Errorf("%s: usable = %v, want %v", tt.name, got, tt.want)
		}
	}
}
