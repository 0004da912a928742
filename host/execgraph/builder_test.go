package execgraph

import (
	"fmt"
	"testing"
)

// TestBuilderGrow checks that a builder grown for its graph adds the
// elements it was grown for without growing again, and keeps what it
// held.
func TestBuilderGrow(t *testing.T) {
	b := NewBuilder()
	first, err := b.Operation(OpReadState, []Ref{b.Desired("state", nil), b.Provider("local", nil), b.Constant("hash", nil)}, None)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SetResult("state", first); err != nil {
		t.Fatal(err)
	}
	const n = 100
	b.Grow(3*n, n)
	elems := cap(b.g.elems)
	if elems < len(b.g.elems)+3*n {
		t.Fatalf("capacity %d after Grow(%d) of %d elements", elems, 3*n, len(b.g.elems))
	}
	for i := range n {
		addr := fmt.Sprint("r", i)
		r, err := b.Operation(OpForget, []Ref{b.Prior(addr, nil), first}, b.Waiter(first))
		if err != nil {
			t.Fatal(err)
		}
		if err := b.SetResult(addr, r); err != nil {
			t.Fatal(err)
		}
	}
	if cap(b.g.elems) != elems {
		t.Errorf("elements grew from capacity %d to %d", elems, cap(b.g.elems))
	}
	g := b.Build()
	if r, ok := g.results["state"]; !ok || r != first {
		t.Errorf("result of state = %v, %v after Grow; want %v", r, ok, first)
	}
	if len(g.elems) != 4+3*n || len(g.results) != 1+n {
		t.Errorf("%d elements and %d results, want %d and %d", len(g.elems), len(g.results), 4+3*n, 1+n)
	}
}
