package inspect

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

func testInspector(t *testing.T) *Inspector {
	t.Helper()
	base := &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{
			"name":     cty.StringVal("web"),
			"password": cty.StringVal("hunter2").Mark(hclsource.SensitiveMark),
		})},
		Functions: hclsource.Functions(),
	}
	addr := func(s string) source.Address {
		a, err := source.ParseAddress(s)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	rec := func(a string, in, out map[string]any, sens ...string) *statedoc.Recorded {
		return &statedoc.Recorded{Address: addr(a), Handler: "state", Entry: statedoc.Entry{Type: "t", InputProperties: in, OutputProperties: out, SensitiveInputs: sens}}
	}
	states := map[string]*statedoc.View{"state": {
		Handler: "state",
		Entries: map[string]*statedoc.Recorded{
			"db": rec("db", map[string]any{"user": "app", "password": "s3cret"}, map[string]any{"port": float64(5432)}, "password"),
			"tfdb": rec("tfdb", map[string]any{"user": "app", "password": "s3cret"},
				map[string]any{"port": float64(5432), "password": "s3cret", source.ReservedOutputKey: map[string]any{"schema_version": float64(0)}}, "password"),
			"web[0]":    rec("web[0]", map[string]any{"n": float64(0)}, map[string]any{"id": "w0"}),
			"web[1]":    rec("web[1]", map[string]any{"n": float64(1)}, map[string]any{"id": "w1"}),
			"app.cache": rec("app.cache", map[string]any{}, map[string]any{"size": float64(64)}),
			// Two instances of one module hold resources of one name.
			`module.site["blog"].page`:          rec(`module.site["blog"].page`, map[string]any{}, map[string]any{"value": "page-blog"}),
			`module.site["shop"].page`:          rec(`module.site["shop"].page`, map[string]any{}, map[string]any{"value": "page-shop"}),
			`module.pool[1].node`:               rec(`module.pool[1].node`, map[string]any{}, map[string]any{"id": "n1"}),
			`module.pool[0].node`:               rec(`module.pool[0].node`, map[string]any{}, map[string]any{"id": "n0"}),
			`module.one.module.inner["x"].leaf`: rec(`module.one.module.inner["x"].leaf`, map[string]any{}, map[string]any{"ok": true}),
		},
		Outputs: map[string]statedoc.RecordedOutput{
			"url":   {Value: "http://web"},
			"token": {Sensitive: true},
		},
	}}
	modules := []hclsource.ModuleOutput{
		{Module: addr(`module.site["blog"]`), Name: "url", Value: cty.StringVal("https://blog")},
		{Module: addr(`module.site["shop"]`), Name: "url", Value: cty.StringVal("https://shop")},
		// An instance nothing of which is recorded yet.
		{Module: addr(`module.site["news"]`), Name: "url", Value: cty.UnknownVal(cty.String)},
		{Module: addr(`module.site["blog"]`), Name: "key", Value: cty.StringVal("k").Mark(hclsource.SensitiveMark)},
		{Module: addr(`module.one.module.inner["x"]`), Name: "depth", Value: cty.NumberIntVal(2)},
	}
	return New(base, states, modules)
}

func TestEval(t *testing.T) {
	t.Parallel()
	in := testInspector(t)
	tests := map[string]struct {
		expr      string
		json      string
		typ       string
		sensitive bool
		err       bool
	}{
		// A v0 provider's outputs may echo any input: with one sensitive,
		// all are.
		"output of a v0 resource with a sensitive input": {expr: "resource.db.outputs.port + 1", json: "null", typ: "number", sensitive: true},
		// A Terraform schema says which are: only the one named like the
		// input is besides.
		"output port plus one":       {expr: "resource.tfdb.outputs.port + 1", json: "5433", typ: "number"},
		"terraform echoed input":     {expr: "resource.tfdb.outputs.password", json: "null", typ: "string", sensitive: true},
		"variable":                   {expr: "upper(var.name)", json: `"WEB"`, typ: "string"},
		"count instances":            {expr: "[for w in resource.web : w.outputs.id]", json: `["w0","w1"]`, typ: "tuple([string, string])"},
		"composite member":           {expr: "deployment.app.resource.cache.outputs.size", json: "64", typ: "number"},
		"module instance member":     {expr: `module.site["shop"].resource.page.outputs.value`, json: `"page-shop"`, typ: "string"},
		"module instances":           {expr: `[for k, m in module.site : "${k}=${m.resource.page.outputs.value}" if k != "news"]`, json: `["blog=page-blog","shop=page-shop"]`, typ: "tuple([string, string])"},
		"counted module":             {expr: `module.pool[1].resource.node.outputs.id`, json: `"n1"`, typ: "string"},
		"nested module":              {expr: `module.one.module.inner["x"].resource.leaf.outputs.ok`, json: `true`, typ: "bool"},
		"module output":              {expr: `module.site["shop"].url`, json: `"https://shop"`, typ: "string"},
		"module outputs":             {expr: `{for k, m in module.site : k => m.url if k != "news"}`, json: `{"blog":"https://blog","shop":"https://shop"}`, typ: "object({blog=string, shop=string})"},
		"sensitive module output":    {expr: `module.site["blog"].key`, json: "null", typ: "string", sensitive: true},
		"nested module output":       {expr: `module.one.module.inner["x"].depth + module.one.module.inner["x"].resource.leaf.outputs.ok`, err: true},
		"nested module output alone": {expr: `module.one.module.inner["x"].depth`, json: "2", typ: "number"},
		"recorded output":            {expr: "output.url", json: `"http://web"`, typ: "string"},
		"sensitive variable":         {expr: "var.password", json: "null", typ: "string", sensitive: true},
		"derived from secret":        {expr: "upper(var.password)", json: "null", typ: "string", sensitive: true},
		"sensitive input":            {expr: "resource.db.inputs.password", json: "null", typ: "string", sensitive: true},
		"object with a secret":       {expr: "resource.db.inputs", json: "null", sensitive: true, typ: "object({password=string, user=string})"},
		"other input in clear":       {expr: "resource.db.inputs.user", json: `"app"`, typ: "string"},
		// A sensitive object's attribute names are its keys: its type
		// must not spell them.
		"secret key":           {expr: "{(var.password) = 1}", json: "null", typ: "object(sensitive)", sensitive: true},
		"secret key inside":    {expr: "{a = {(var.password) = 1}, b = 2}", json: "null", typ: "object({a=object(sensitive), b=number})", sensitive: true},
		"secret keys merged":   {expr: "merge({a = 1}, {(var.password) = 2})", json: "null", typ: "object(sensitive)", sensitive: true},
		"secret key in a list": {expr: "[{(var.password) = 1}]", json: "null", typ: "tuple([object(sensitive)])", sensitive: true},
		"secret map":           {expr: "tomap({(var.password) = 1})", json: "null", typ: "map(number)", sensitive: true},
		"sensitive output":     {expr: "output.token", json: "null", typ: "dynamic", sensitive: true},
		"unknown resource":     {expr: "resource.nope.outputs.x", err: true},
		"syntax error":         {expr: "1 +", err: true},
		"top-level resources":  {expr: "keys(resource)", json: `["db","tfdb","web"]`, typ: "tuple([string, string, string])"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := in.Eval(tc.expr)
			if tc.err {
				if !r.Diagnostics.HasErrors() {
					t.Fatalf("Eval(%q) = %s, want an error", tc.expr, r.JSON)
				}
				return
			}
			if r.Diagnostics.HasErrors() {
				t.Fatalf("Eval(%q): %s", tc.expr, r.Diagnostics)
			}
			got := struct {
				JSON, Type string
				Sensitive  bool
			}{string(r.JSON), r.Type, r.Sensitive}
			want := struct {
				JSON, Type string
				Sensitive  bool
			}{tc.json, tc.typ, tc.sensitive}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("Eval(%q) (-want +got):\n%s", tc.expr, d)
			}
			if tc.sensitive && r.Text() != source.SensitiveText {
				t.Errorf("Text() = %q, want %q", r.Text(), source.SensitiveText)
			}
		})
	}
}

func TestEvalWithoutBase(t *testing.T) {
	t.Parallel()
	r := New(nil, nil, nil).Eval(`join("-", ["a", "b"])`)
	if r.Diagnostics.HasErrors() || string(r.JSON) != `"a-b"` {
		t.Errorf("Eval = %s %s", r.JSON, r.Diagnostics)
	}
}

// TestEvalKeepsUnknown checks that a value known only after apply stays
// unknown through the inspector, never becoming a placeholder string a
// program would read as the value.
func TestEvalKeepsUnknown(t *testing.T) {
	t.Parallel()
	a, err := source.ParseAddress("web")
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]*statedoc.View{"state": {
		Handler: "state",
		Entries: map[string]*statedoc.Recorded{"web": {Address: a, Handler: "state", Entry: statedoc.Entry{
			Type:             "t",
			InputProperties:  map[string]any{"name": "w", "tags": []any{"a", source.Unknown}},
			OutputProperties: map[string]any{"id": source.Unknown, "port": float64(80)},
		}}},
		Outputs: map[string]statedoc.RecordedOutput{"url": {Value: source.Unknown}},
	}}
	in := New(nil, states, nil)
	tests := map[string]struct {
		expr    string
		unknown bool
		json    string
	}{
		"unknown output attribute":  {expr: "resource.web.outputs.id", unknown: true, json: "null"},
		"unknown list element":      {expr: "resource.web.inputs.tags", unknown: true, json: "null"},
		"unknown deployment output": {expr: "output.url", unknown: true, json: "null"},
		"known beside it":           {expr: "resource.web.outputs.port", json: "80"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := in.Eval(tc.expr)
			if r.Diagnostics.HasErrors() {
				t.Fatalf("Eval(%q): %s", tc.expr, r.Diagnostics)
			}
			if r.Unknown != tc.unknown || string(r.JSON) != tc.json {
				t.Errorf("Eval(%q) = unknown %v, JSON %s; want unknown %v, JSON %s", tc.expr, r.Unknown, r.JSON, tc.unknown, tc.json)
			}
		})
	}
}
