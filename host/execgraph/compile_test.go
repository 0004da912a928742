package execgraph

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/host/source"
)

// object stands for the engine's recorded object in these tests.
type object struct{ name string }

// recorder is an Operations that records each call with its operands.
type recorder struct{ calls []string }

var _ Operations[*object] = (*recorder)(nil)

func (r *recorder) note(op string, args ...any) {
	s := make([]string, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case *object:
			s[i] = "<nil>"
			if v != nil {
				s[i] = v.name
			}
		case *source.Resource:
			s[i] = v.Address.String()
		case *source.Provider:
			s[i] = "<nil>"
			if v != nil {
				s[i] = "provider " + v.Name
			}
		default:
			s[i] = fmt.Sprint(v)
		}
	}
	r.calls = append(r.calls, op+" "+strings.Join(s, " "))
}

func (r *recorder) ReadState(_ context.Context, op ReadState[*object]) error {
	r.note("read-state", op.Handler, op.Provider, op.Hash.ContentHash())
	return nil
}

func (r *recorder) Create(_ context.Context, op Create[*object]) (map[string]any, error) {
	r.note("create", op.Desired, op.Provider, op.State, op.Replaces)
	return map[string]any{"made": op.Desired.Address.String()}, nil
}

func (r *recorder) Update(_ context.Context, op Update[*object]) (map[string]any, error) {
	r.note("update", op.Desired, op.Prior, op.Provider, op.State, op.PriorState)
	return nil, nil
}

func (r *recorder) Destroy(_ context.Context, op Destroy[*object]) error {
	r.note("destroy", op.Prior, op.Provider, op.State, op.Replacing)
	return nil
}

func (r *recorder) CreateDepose(_ context.Context, op CreateDepose[*object]) (map[string]any, error) {
	r.note("create-depose", op.Desired, op.Prior, op.Provider, op.State, op.DeposeKey)
	return nil, nil
}

func (r *recorder) DestroyDeposed(_ context.Context, op DestroyDeposed[*object]) error {
	r.note("destroy-deposed", op.Deposed, op.Key, op.Provider, op.State)
	return nil
}

func (r *recorder) Resolve(_ context.Context, op Resolve[*object]) (map[string]any, error) {
	r.note("resolve", op.Address, op.Desired, op.Prior, op.Provider, op.State, op.Controls.Targets, op.WaitsOn)
	return nil, nil
}

func (r *recorder) Expand(_ context.Context, op Expand[*object]) error {
	r.note("expand", op.Address, op.Controls.Destroy, op.WaitsOn)
	return nil
}

func (r *recorder) DestroyAbsent(_ context.Context, op DestroyAbsent[*object]) error {
	args := []any{op.Composite}
	for _, p := range op.Priors {
		args = append(args, p)
	}
	r.note("destroy-absent", args...)
	return nil
}

func (r *recorder) Refresh(_ context.Context, op Refresh[*object]) (map[string]any, error) {
	r.note("refresh", op.Prior, op.State, op.Now)
	return nil, nil
}

func (r *recorder) Forget(_ context.Context, op Forget[*object]) error {
	r.note("forget", op.Prior, op.State)
	return nil
}

func (r *recorder) Import(_ context.Context, op Import[*object]) (map[string]any, error) {
	r.note("import", op.Desired, op.Imported, op.State, op.ID)
	return nil, nil
}

func (r *recorder) Move(_ context.Context, op Move[*object]) (map[string]any, error) {
	r.note("move", op.Desired, op.Prior, op.State)
	return nil, nil
}

func resource(addr string) *source.Resource {
	a, err := source.ParseAddress(addr)
	if err != nil {
		panic(err)
	}
	return &source.Resource{Address: a}
}

// TestCompileCallsEachOpcode checks that every opcode compiles to a call
// of its Operations method with its operands' values, in the graph's
// order.
func TestCompileCallsEachOpcode(t *testing.T) {
	t.Parallel()
	type built struct {
		b  *Builder
		p  Ref
		rs Ref
	}
	base := func() built {
		b := NewBuilder()
		p := b.Provider("local", &source.Provider{Name: "local"})
		rs := mustOp(t, b, OpReadState, []Ref{b.Desired("state", resource("state")), p, b.Constant("hash", SavedHash("h1"))}, None)
		return built{b, p, rs}
	}
	cases := map[string]struct {
		add  func(built)
		want []string
	}{
		"create": {
			add: func(g built) {
				mustOp(t, g.b, OpCreate, []Ref{g.b.Desired("a", resource("a")), g.p, g.rs, None}, None)
			},
			want: []string{"create a provider local state <nil>"},
		},
		"a stateless create without a provider operand": {
			add: func(g built) {
				mustOp(t, g.b, OpCreate, []Ref{g.b.Desired("a", resource("a")), None, None, None}, None)
			},
			want: []string{"create a <nil>  <nil>"},
		},
		"replace: destroy, then create": {
			add: func(g built) {
				prior := g.b.Prior("a", &object{"a-old"})
				d := mustOp(t, g.b, OpDestroy, []Ref{prior, g.p, g.rs}, None)
				mustOp(t, g.b, OpCreate, []Ref{g.b.Desired("a", resource("a")), g.p, g.rs, prior}, g.b.Waiter(d))
			},
			want: []string{"destroy a-old provider local state true", "create a provider local state a-old"},
		},
		"update, destroy, forget": {
			add: func(g built) {
				mustOp(t, g.b, OpUpdate, []Ref{g.b.Desired("a", resource("a")), g.b.Prior("a", &object{"a-old"}), g.p, g.rs, g.rs}, None)
				mustOp(t, g.b, OpDestroy, []Ref{g.b.Prior("b", &object{"b-old"}), g.p, g.rs}, None)
				mustOp(t, g.b, OpForget, []Ref{g.b.Prior("c", &object{"c-old"}), g.rs}, None)
			},
			want: []string{"update a a-old provider local state state", "destroy b-old provider local state false", "forget c-old state"},
		},
		"create_before_destroy": {
			add: func(g built) {
				mustOp(t, g.b, OpCreateDepose, []Ref{g.b.Desired("a", resource("a")), g.b.Prior("a", &object{"a-old"}), g.p, g.rs, g.b.Constant("depose-key", "k1")}, None)
				mustOp(t, g.b, OpDestroyDeposed, []Ref{g.b.Deposed("a", "k1", &object{"a-k1"}), g.p, g.rs}, None)
			},
			want: []string{"create-depose a a-old provider local state k1", "destroy-deposed a-k1 k1 provider local state"},
		},
		"resolve and expand wait on what they follow": {
			add: func(g built) {
				ctl := g.b.Constant("controls", Controls{Targets: []string{"m"}})
				c := mustOp(t, g.b, OpCreate, []Ref{g.b.Desired("a", resource("a")), g.p, g.rs, None}, None)
				mustOp(t, g.b, OpResolve, []Ref{g.b.Desired("r", resource("r")), None, g.p, g.rs, ctl}, g.b.Waiter(c, g.rs))
				x := mustOp(t, g.b, OpExpand, []Ref{g.b.Desired("m", resource("m")), ctl}, g.b.Waiter(c))
				mustOp(t, g.b, OpDestroyAbsent, []Ref{x, g.b.Prior("m[0]", &object{"m0"}), g.b.Prior("m[1]", &object{"m1"})}, None)
			},
			want: []string{
				"create a provider local state <nil>",
				"resolve r r <nil> provider local state [m] [a]",
				"expand m false [a]",
				"destroy-absent m m0 m1",
			},
		},
		"refresh of an object gone, import": {
			add: func(g built) {
				mustOp(t, g.b, OpRefresh, []Ref{g.b.Prior("a", &object{"a-old"}), g.rs, g.b.Constant("refreshed", (*object)(nil))}, None)
				mustOp(t, g.b, OpRefresh, []Ref{g.b.Prior("b", &object{"b-old"}), g.rs, g.b.Constant("refreshed", &object{"b-now"})}, None)
				mustOp(t, g.b, OpImport, []Ref{g.b.Desired("c", resource("c")), g.b.Prior("c", &object{"c-in"}), g.rs, g.b.Constant("import-id", "id-7")}, None)
			},
			want: []string{"refresh a-old state <nil>", "refresh b-old state b-now", "import c c-in state id-7"},
		},
		"move, then the update that follows it": {
			add: func(g built) {
				mv := mustOp(t, g.b, OpMove, []Ref{g.b.Desired("b", resource("b")), g.b.Prior("a", &object{"a-old"}), g.rs}, None)
				mustOp(t, g.b, OpUpdate, []Ref{g.b.Desired("b", resource("b")), g.b.Prior("b", &object{"a-moved"}), g.p, g.rs, g.rs}, g.b.Waiter(mv))
			},
			want: []string{"move b a-old state", "update b a-moved provider local state state"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g := base()
			tc.add(g)
			ops, err := Compile[*object](g.b.Build())
			if err != nil {
				t.Fatal(err)
			}
			r := &recorder{}
			for _, op := range ops {
				if op != nil {
					if _, err := op.Run(t.Context(), r); err != nil {
						t.Fatal(err)
					}
				}
			}
			want := append([]string{"read-state state provider local h1"}, tc.want...)
			if d := cmp.Diff(want, r.calls); d != "" {
				t.Errorf("calls (-want +got):\n%s", d)
			}
		})
	}
}

// TestCompileRefusesValuesOfTheWrongType checks that a value the engine
// does not use is refused when compiling, naming the element.
func TestCompileRefusesValuesOfTheWrongType(t *testing.T) {
	t.Parallel()
	b := NewBuilder()
	p := b.Provider("local", "not a provider")
	mustOp(t, b, OpCreate, []Ref{b.Desired("a", resource("a")), p, None, None}, None)
	_, err := Compile[*object](b.Build())
	want := "element 2 (create a): element 0 (provider local) holds a string, not a *source.Provider"
	if err == nil || err.Error() != want {
		t.Errorf("compile: %v, want %q", err, want)
	}
}

func mustOp(t testing.TB, b *Builder, op Opcode, operands []Ref, waiter Ref) Ref {
	t.Helper()
	r, err := b.Operation(op, operands, waiter)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
