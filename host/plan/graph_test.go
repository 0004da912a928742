package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// graphPlan builds plans by hand for the graph's golden tests: one state
// handler "s" of provider "local", resources of provider "p".
type graphPlan struct {
	t *testing.T
	p *Plan
}

func newGraphPlan(t *testing.T, states ...string) *graphPlan {
	if len(states) == 0 {
		states = []string{"s"}
	}
	p := &Plan{States: map[string]*statedoc.View{}, Snapshot: &source.Snapshot{Providers: map[string]*source.Provider{
		"local": {Name: "local", Builtin: "local"},
		"p":     {Name: "p", Executable: "./p", Operations: []string{"destroy"}},
	}}, replace: map[string]bool{}}
	for _, h := range states {
		p.States[h] = &statedoc.View{Handler: h, Entries: map[string]*statedoc.Recorded{}, Document: map[string]any{"h": h}}
		p.add(&Change{Address: addr(t, h), Action: execgraph.ActionCreate, StateHandler: true, Resource: &source.Resource{Address: addr(t, h), Provider: "local", Type: "state_file"}})
	}
	return &graphPlan{t: t, p: p}
}

func (g *graphPlan) res(a string, deps ...string) *source.Resource {
	s := source.Address{{Name: "s"}}
	r := &source.Resource{Address: addr(g.t, a), Provider: "p", Type: "t", State: &s, Inputs: map[string]any{"v": a}}
	for _, d := range deps {
		r.DependsOn = append(r.DependsOn, addr(g.t, d))
	}
	return r
}

func (g *graphPlan) rec(a string, deps ...string) *statedoc.Recorded {
	r := &statedoc.Recorded{Address: addr(g.t, a), Handler: "s", Entry: statedoc.Entry{Type: "t", Provider: "p", Dependencies: deps}}
	g.p.States["s"].Entries[a] = r
	return r
}

func (g *graphPlan) add(c *Change) *graphPlan { g.p.add(c); return g }

func TestGraphDump(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		build func(g *graphPlan)
		want  string
	}{{
		name: "creates with dependencies",
		build: func(g *graphPlan) {
			g.add(&Change{Address: addr(t, "c"), Action: execgraph.ActionCreate, Resource: g.res("c", "a", "b")})
			g.add(&Change{Address: addr(t, "b"), Action: execgraph.ActionCreate, Resource: g.res("b", "a")})
			g.add(&Change{Address: addr(t, "a"), Action: execgraph.ActionCreate, Resource: g.res("a")})
			g.add(&Change{Address: addr(t, "same"), Action: execgraph.ActionNoOp, Resource: g.res("same")})
		},
		want: `0 constant controls {}
1 provider local
2 desired s
3 constant hash "44261d1cfe4f70d…
4 read-state s <- 2,1,3,_
5 desired a
6 provider p
7 create a <- 5,6,4,_,_
8 desired b
9 waiter 7
10 create b <- 8,6,4,_,9
11 desired c
12 waiter 7,10
13 create c <- 11,6,4,_,12
result a = 7
result b = 10
result c = 13
result s = 4
`,
	}, {
		name: "update",
		build: func(g *graphPlan) {
			g.add(&Change{Address: addr(t, "u"), Action: execgraph.ActionUpdate, Resource: g.res("u"), Prior: g.rec("u")})
		},
		want: `0 constant controls {}
1 provider local
2 desired s
3 constant hash "44261d1cfe4f70d…
4 read-state s <- 2,1,3,_
5 desired u
6 prior u
7 provider p
8 update u <- 5,6,7,4,4,_
result s = 4
result u = 8
`,
	}, {
		name: "destroy order: what depended on a resource goes first",
		build: func(g *graphPlan) {
			g.add(&Change{Address: addr(t, "old"), Action: execgraph.ActionDestroy, Prior: g.rec("old")})
			g.add(&Change{Address: addr(t, "older"), Action: execgraph.ActionDestroy, Prior: g.rec("older", "old")})
		},
		want: `0 constant controls {}
1 provider local
2 desired s
3 constant hash "44261d1cfe4f70d…
4 read-state s <- 2,1,3,_
5 prior older
6 provider p
7 destroy older <- 5,6,4,_
8 prior old
9 waiter 7
10 destroy old <- 8,6,4,9
result old = 10
result older = 7
result s = 4
`,
	}, {
		name: "replace: destroy, then create, each recorded",
		build: func(g *graphPlan) {
			g.add(&Change{Address: addr(t, "r"), Action: execgraph.ActionReplace, Resource: g.res("r"), Prior: g.rec("r")})
		},
		want: `0 constant controls {}
1 provider local
2 desired s
3 constant hash "44261d1cfe4f70d…
4 read-state s <- 2,1,3,_
5 prior r
6 provider p
7 destroy r <- 5,6,4,_
8 desired r
9 waiter 7
10 create r <- 8,6,4,5,9
result r = 10
result s = 4
`,
	}, {
		name: "create before destroy: create and depose, then destroy the deposed object after the dependents",
		build: func(g *graphPlan) {
			r := g.res("r")
			r.Lifecycle = &source.Lifecycle{CreateBeforeDestroy: true}
			c := &Change{Address: addr(t, "r"), Action: execgraph.ActionReplace, Resource: r, Prior: g.rec("r")}
			g.add(c)
			planCreateBeforeDestroy(g.p, c)
			g.add(&Change{Address: addr(t, "user"), Action: execgraph.ActionUpdate, Resource: g.res("user", "r"), Prior: g.rec("user", "r")})
			g.p.sort()
		},
		want: `0 constant controls {}
1 provider local
2 desired s
3 constant hash "44261d1cfe4f70d…
4 read-state s <- 2,1,3,_
5 desired r
6 prior r
7 provider p
8 constant depose-key "` + deposedKey(addr(t, "r"), statedoc.Entry{Type: "t", Provider: "p"}) + `"
9 waiter 4
10 create-depose r <- 5,6,7,4,8,9
11 desired user
12 prior user
13 waiter 10
14 update user <- 11,12,7,4,4,13
15 deposed r (deposed ` + deposedKey(addr(t, "r"), statedoc.Entry{Type: "t", Provider: "p"}) + `)
16 waiter 10,14
17 destroy-deposed r (deposed ` + deposedKey(addr(t, "r"), statedoc.Entry{Type: "t", Provider: "p"}) + `) <- 15,7,4,16
result r = 10
result s = 4
result user = 14
`,
	}, {
		name: "pending: resolved once what it waits on is applied",
		build: func(g *graphPlan) {
			g.add(&Change{Address: addr(t, "a"), Action: execgraph.ActionCreate, Resource: g.res("a")})
			b := g.res("b", "a")
			b.Inputs["v"] = source.Unknown
			g.add(&Change{Address: addr(t, "b"), Action: execgraph.ActionCreate, Resource: b, Pending: true, WaitsOn: []string{"a"}})
		},
		want: `0 constant controls {}
1 provider local
2 desired s
3 constant hash "44261d1cfe4f70d…
4 read-state s <- 2,1,3,_
5 desired a
6 provider p
7 create a <- 5,6,4,_,_
8 desired b
9 waiter 7
10 resolve b <- 8,_,6,4,0,9
result a = 7
result b = 10
result s = 4
`,
	}, {
		name: "structural: expand, then destroy what the composite no longer holds",
		build: func(g *graphPlan) {
			g.add(&Change{Address: addr(t, "run"), Action: execgraph.ActionCreate, Resource: &source.Resource{Address: addr(t, "run"), Provider: "p", Type: "t"}})
			g.add(&Change{Address: addr(t, "g"), Action: execgraph.ActionCreate, Pending: true, Structural: true, WaitsOn: []string{"run"}})
			g.rec("g.keep")
			g.rec("g.old")
			g.rec("other")
			g.add(&Change{Address: addr(t, "other"), Action: execgraph.ActionNoOp, Resource: g.res("other"), Prior: g.rec("other")})
		},
		want: `0 constant controls {}
1 provider local
2 desired s
3 constant hash "44261d1cfe4f70d…
4 read-state s <- 2,1,3,_
5 desired run
6 provider p
7 create run <- 5,6,_,_,_
8 desired g
9 waiter 7
10 expand g <- 8,0,9
11 prior g.keep
12 prior g.old
13 destroy-absent g <- 10,11,12,_
result g = 10
result run = 7
result s = 4
`,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := newGraphPlan(t)
			tc.build(g)
			eg, err := g.p.Graph()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, eg.String()); diff != "" {
				t.Errorf("graph (-want +got):\n%s", diff)
			}
			// A saved graph loads as the same graph.
			raw, err := EncodeGraph(eg)
			if err != nil {
				t.Fatal(err)
			}
			back, err := DecodeGraph(raw)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(eg.String(), back.String()); diff != "" {
				t.Errorf("graph after a round trip (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGraphMoveReadsBothStates checks that a resource moving between
// states follows the reads of both.
func TestGraphMoveReadsBothStates(t *testing.T) {
	t.Parallel()
	g := newGraphPlan(t, "s", "t")
	to := addr(t, "t")
	r := &source.Resource{Address: addr(t, "m"), Provider: "p", Type: "memo", State: &to}
	g.add(&Change{Address: r.Address, Action: execgraph.ActionUpdate, Resource: r, Prior: &statedoc.Recorded{Address: r.Address, Handler: "s", Entry: statedoc.Entry{Type: "memo"}}})
	eg, err := g.p.Graph()
	if err != nil {
		t.Fatal(err)
	}
	want := `0 constant controls {}
1 provider local
2 desired s
3 constant hash "44261d1cfe4f70d…
4 read-state s <- 2,1,3,_
5 desired t
6 constant hash "bfbb1d8c25a675b…
7 read-state t <- 5,1,6,_
8 desired m
9 prior m
10 provider p
11 update m <- 8,9,10,7,4,_
result m = 11
result s = 4
result t = 7
`
	if diff := cmp.Diff(want, eg.String()); diff != "" {
		t.Errorf("graph (-want +got):\n%s", diff)
	}
}
