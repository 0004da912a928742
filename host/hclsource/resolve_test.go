package hclsource

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/host/source"
)

func TestResolveFixtures(t *testing.T) {
	t.Parallel()
	memo := func(status string, line int, inputs map[string]any, deps ...string) resView {
		deps = append(deps, "state")
		slices.Sort(deps) // DependsOn is in address order
		return resView{Status: status, Provider: "local", Type: "memo", Inputs: inputs, State: "state", DependsOn: deps, Line: line}
	}
	stateFile := resView{Status: "ready", Provider: "local", Type: "state_file", Inputs: map[string]any{"name": "state.json"}, Line: 10}
	tests := map[string]struct {
		dir         string
		opts        Options
		known       source.Outputs
		want        map[string]resView
		wantOutputs map[string]any
	}{
		"first round: web waits on db": {
			dir: "basic",
			want: map[string]resView{
				"state": stateFile,
				"db":    memo("ready", 16, map[string]any{"value": "app-db", "port": "#5432"}),
				"web": func() resView {
					v := memo("blocked", 23, map[string]any{"db": unknownText, "name": "APP-DB"}, "db")
					v.WaitsOn = []string{"db"}
					return v
				}(),
			},
			wantOutputs: map[string]any{},
		},
		"second round: db applied": {
			dir:   "basic",
			known: source.Outputs{"db": {"value": "db-out"}},
			want: map[string]resView{
				"state": stateFile,
				"db":    memo("ready", 16, map[string]any{"value": "app-db", "port": "#5432"}),
				"web":   memo("ready", 23, map[string]any{"db": "db-out", "name": "APP-DB"}, "db"),
			},
			wantOutputs: map[string]any{"db": "db-out"},
		},
		"variable from a flag": {
			dir:  "basic",
			opts: Options{Vars: map[string]string{"prefix": "x"}},
			want: map[string]resView{
				"state": stateFile,
				"db":    memo("ready", 16, map[string]any{"value": "x-db", "port": "#5432"}),
				"web": func() resView {
					v := memo("blocked", 23, map[string]any{"db": unknownText, "name": "X-DB"}, "db")
					v.WaitsOn = []string{"db"}
					return v
				}(),
			},
			wantOutputs: map[string]any{},
		},
		"count and for_each": {
			dir:   "expand",
			known: source.Outputs{"node[0]": {"id": "n0"}},
			want: map[string]resView{
				"state":     {Status: "ready", Provider: "local", Type: "state_file", Inputs: map[string]any{"name": "state.json"}, Line: 15},
				"node[0]":   memo("ready", 21, map[string]any{"index": "#0", "name": "node-0"}),
				"node[1]":   memo("ready", 21, map[string]any{"index": "#1", "name": "node-1"}),
				`site["a"]`: memo("ready", 29, map[string]any{"key": "a", "value": "A", "node": "n0"}, "node[0]"),
				`site["b"]`: memo("ready", 29, map[string]any{"key": "b", "value": "B", "node": "n0"}, "node[0]"),
				"all": {
					Status: "ready", Provider: "local", Type: "exec", Line: 41,
					Inputs:    map[string]any{"names": []any{"node-0", "node-1"}, "first": "A"},
					DependsOn: []string{"node[0]", "node[1]", `site["a"]`},
				},
			},
			wantOutputs: map[string]any{},
		},
		"count and for_each before outputs": {
			dir: "expand",
			want: map[string]resView{
				"state":   {Status: "ready", Provider: "local", Type: "state_file", Inputs: map[string]any{"name": "state.json"}, Line: 15},
				"node[0]": memo("ready", 21, map[string]any{"index": "#0", "name": "node-0"}),
				"node[1]": memo("ready", 21, map[string]any{"index": "#1", "name": "node-1"}),
				`site["a"]`: func() resView {
					v := memo("blocked", 29, map[string]any{"key": "a", "value": "A", "node": unknownText}, "node[0]")
					v.WaitsOn = []string{"node[0]"}
					return v
				}(),
				`site["b"]`: func() resView {
					v := memo("blocked", 29, map[string]any{"key": "b", "value": "B", "node": unknownText}, "node[0]")
					v.WaitsOn = []string{"node[0]"}
					return v
				}(),
				"all": {
					Status: "ready", Provider: "local", Type: "exec", Line: 41,
					Inputs:    map[string]any{"names": []any{"node-0", "node-1"}, "first": "A"},
					DependsOn: []string{"node[0]", "node[1]", `site["a"]`},
				},
			},
			wantOutputs: map[string]any{},
		},
		"count from a variable": {
			dir:   "expand",
			opts:  Options{Vars: map[string]string{"replicas": "1", "names": `["a"]`}},
			known: source.Outputs{"node[0]": {"id": "n0"}},
			want: map[string]resView{
				"state":     {Status: "ready", Provider: "local", Type: "state_file", Inputs: map[string]any{"name": "state.json"}, Line: 15},
				"node[0]":   memo("ready", 21, map[string]any{"index": "#0", "name": "node-0"}),
				`site["a"]`: memo("ready", 29, map[string]any{"key": "a", "value": "A", "node": "n0"}, "node[0]"),
				"all": {
					Status: "ready", Provider: "local", Type: "exec", Line: 41,
					Inputs:    map[string]any{"names": []any{"node-0"}, "first": "A"},
					DependsOn: []string{"node[0]", `site["a"]`},
				},
			},
		},
		"nested deployments and scoping": {
			dir: "nested",
			want: map[string]resView{
				"state":   {Status: "ready", Provider: "local", Type: "state_file", Inputs: map[string]any{"name": "state.json"}, Line: 5},
				"db":      memo("ready", 11, map[string]any{"value": "root-db"}),
				"web.db":  memo("ready", 20, map[string]any{"value": "web-db"}),
				"web.app": memo("ready", 27, map[string]any{"db": "web-db", "state": "state.json"}, "web.db"),
				"web.inner.svc": func() resView {
					v := memo("blocked", 38, map[string]any{"db": "web-db", "url": unknownText}, "web.db", "web.app")
					v.WaitsOn = []string{"web.app"}
					return v
				}(),
				"top": {
					Status: "ready", Provider: "local", Type: "exec", Line: 50,
					Inputs:    map[string]any{"app": "web-db", "svc": "web-db"},
					DependsOn: []string{"web.app", "web.inner.svc"},
				},
			},
			wantOutputs: map[string]any{},
		},
		"functions": {
			dir: "functions",
			want: map[string]resView{
				"f": {
					Status: "ready", Provider: "local", Type: "exec", Line: 10,
					Inputs: map[string]any{
						"format":     "app-007",
						"upper":      "ABC",
						"lower":      "abc",
						"jsonencode": `{"a":1,"b":[true,null]}`,
						"jsondecode": map[string]any{"x": []any{"#1", "#2.5"}},
						"merge":      map[string]any{"team": "core", "tier": "db"},
						"concat":     []any{"a", "b", "c"},
						"length":     "#2",
						"keys":       []any{"team", "tier"},
						"values":     []any{"core", "web"},
						"lookup":     "fallback",
						"join":       "x,y",
						"split":      []any{"a", "b", "c"},
						"replace":    "a_b_c",
						"tostring":   "12",
						"tonumber":   "#1.5",
						"root":       true,
						"big":        "#12345678901234567890",
					},
				},
			},
			wantOutputs: map[string]any{},
		},
		"outputs": {
			dir:   "outputs",
			known: source.Outputs{"a": {"stdout": "hi"}},
			want: map[string]resView{
				"a": {Status: "ready", Provider: "local", Type: "exec", Line: 11, Inputs: map[string]any{"token": "s3cret"}},
			},
			wantOutputs: map[string]any{
				"static":                   map[string]any{"name": "x", "n": "#1"},
				"from_inputs (sensitive)":  map[string]any{"token": "s3cret"},
				"from_outputs (sensitive)": "hi",
				"secret (sensitive)":       "s3cret",
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := mustLoad(t, filepath.Join("testdata", tc.dir), tc.opts)
			s := mustResolve(t, d, tc.known)
			if diff := cmp.Diff(tc.want, view(t, s)); diff != "" {
				t.Errorf("resources (-want +got):\n%s", diff)
			}
			if tc.wantOutputs != nil {
				if diff := cmp.Diff(tc.wantOutputs, outputsView(s)); diff != "" {
					t.Errorf("outputs (-want +got):\n%s", diff)
				}
			}
		})
	}
}
