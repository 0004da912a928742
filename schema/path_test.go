package schema

import (
	"encoding/json"
	"testing"
)

func TestAttributePathString(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		json string
		want string
	}{
		"nil":       {`null`, ""},
		"attribute": {`["direction"]`, "direction"},
		"nested":    {`["rule",0,"port"]`, "rule[0].port"},
		"map key":   {`["tags","env"]`, "tags.env"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var p AttributePath
			if err := json.Unmarshal([]byte(tc.json), &p); err != nil {
				t.Fatal(err)
			}
			if got := p.String(); got != tc.want {
				t.Errorf("%s: String() = %q, want %q", tc.json, got, tc.want)
			}
		})
	}
}

func TestStepIndex(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		step any
		want int
		ok   bool
	}{
		"int":          {3, 3, true},
		"float":        {float64(2), 2, true},
		"json number":  {json.Number("7"), 7, true},
		"fraction":     {1.5, 0, false},
		"string":       {"0", 0, false},
		"nil":          {nil, 0, false},
		"bad number":   {json.Number("1e400"), 0, false},
		"int64":        {int64(4), 4, true},
		"negative int": {-1, -1, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, ok := StepIndex(tc.step)
			if got != tc.want || ok != tc.ok {
				t.Errorf("StepIndex(%#v) = %d, %v; want %d, %v", tc.step, got, ok, tc.want, tc.ok)
			}
		})
	}
}
