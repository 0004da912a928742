package execgraph

import (
	"encoding/json"
	"strings"
	"testing"
)

func decodeAny(_ Kind, _ string, raw json.RawMessage) (any, error) {
	var v any
	return v, json.Unmarshal(raw, &v)
}

// TestLoadChecksOperands checks that a saved graph whose operands do not
// refer to earlier elements of the right kind is refused on load.
func TestLoadChecksOperands(t *testing.T) {
	t.Parallel()
	b := NewBuilder()
	h := b.Constant("hash", "abc")
	p := b.Provider("p", "decl")
	d := b.Desired("s", "res")
	rs, err := b.Operation(OpReadState, []Ref{d, p, h}, None)
	if err != nil {
		t.Fatal(err)
	}
	a := b.Desired("a", "res")
	c, err := b.Operation(OpCreate, []Ref{a, p, rs, None}, b.Waiter(rs))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SetResult("a", c); err != nil {
		t.Fatal(err)
	}
	g := b.Build()
	raw, err := g.Marshal(nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(raw, decodeAny)
	if err != nil {
		t.Fatal(err)
	}
	if back.String() != g.String() {
		t.Errorf("round trip:\n%s\nwant\n%s", back, g)
	}
	cases := []struct {
		name, from, to, want string
	}{
		{"a later element", `"operands":[4,1,3,-1,5]`, `"operands":[6,1,3,-1,5]`, "does not precede it"},
		{"the wrong kind", `"operands":[4,1,3,-1,5]`, `"operands":[1,1,3,-1,5]`, "operand 0 is element 1, a provider, not a desired"},
		{"the wrong opcode", `"operands":[4,1,3,-1,5]`, `"operands":[4,1,5,-1,5]`, "operand 2 is element 5, a waiter, not a read-state"},
		{"a missing required operand", `"operands":[4,1,3,-1,5]`, `"operands":[-1,1,3,-1,5]`, "operand 0 (desired) is required"},
		{"too few operands", `"operands":[4,1,3,-1,5]`, `"operands":[4,1,3]`, "create takes 4 operands and a waiter"},
		{"an unknown opcode", `"opcode":"create"`, `"opcode":"launch"`, `unknown opcode "launch"`},
		{"a result that is not an operation", `"a":6`, `"a":4`, "element 4 is not an operation"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if !strings.Contains(string(raw), tc.from) {
				t.Fatalf("%s not in %s", tc.from, raw)
			}
			_, err := Unmarshal([]byte(strings.Replace(string(raw), tc.from, tc.to, 1)), decodeAny)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("load: %v, want %q", err, tc.want)
			}
		})
	}
}
