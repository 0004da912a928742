package execgraph

import (
	"fmt"
	"testing"
)

// TestEnumNames pins every kind's and opcode's name: they are how a saved
// plan's execution graph spells them, so a changed one breaks old plans.
func TestEnumNames(t *testing.T) {
	for _, tc := range []struct {
		v    fmt.Stringer
		want string
	}{
		{KindInvalid, "invalid"},
		{KindConstant, "constant"},
		{KindProvider, "provider"},
		{KindDesired, "desired"},
		{KindPrior, "prior"},
		{KindDeposed, "deposed"},
		{KindOperation, "operation"},
		{KindWaiter, "waiter"},
		{Kind(8), "Kind(8)"},
		{OpInvalid, "invalid"},
		{OpReadState, "read-state"},
		{OpCreate, "create"},
		{OpUpdate, "update"},
		{OpDestroy, "destroy"},
		{OpCreateDepose, "create-depose"},
		{OpDestroyDeposed, "destroy-deposed"},
		{OpResolve, "resolve"},
		{OpExpand, "expand"},
		{OpDestroyAbsent, "destroy-absent"},
		{OpRefresh, "refresh"},
		{OpForget, "forget"},
		{OpImport, "import"},
		{OpMove, "move"},
		{Opcode(14), "Opcode(14)"},
	} {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("%T %d: String() = %q, want %q", tc.v, tc.v, got, tc.want)
		}
	}
}

// TestParseNames checks that every kind and opcode but the invalid ones
// parses back from its name, and that an unknown or invalid name does not.
func TestParseNames(t *testing.T) {
	for k := KindConstant; k <= KindWaiter; k++ {
		if got, ok := parseKind(k.String()); !ok || got != k {
			t.Errorf("parseKind(%q) = %v, %v; want %v, true", k, got, ok, k)
		}
	}
	for o := OpReadState; o <= OpMove; o++ {
		if got, err := ParseOpcode(o.String()); err != nil || got != o {
			t.Errorf("ParseOpcode(%q) = %v, %v; want %v, nil", o, got, err, o)
		}
	}
	for _, s := range []string{"invalid", "Kind(8)", "Opcode(14)", "", "Create"} {
		if k, ok := parseKind(s); ok {
			t.Errorf("parseKind(%q) = %v, want refused", s, k)
		}
		if o, err := ParseOpcode(s); err == nil {
			t.Errorf("ParseOpcode(%q) = %v, want an error", s, o)
		}
	}
}
