package main

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
)

// These tests drive the provider through the SDK's real protocol 5 server,
// in process: the code path the binary serves over gRPC.

type harness struct {
	t       *testing.T
	srv     tfprotov5.ProviderServer
	dirType tftypes.Type
	root    string
}

func newHarness(t *testing.T, token string) (*harness, []*tfprotov5.Diagnostic) {
	t.Helper()
	srv := schema.NewGRPCProviderServer(newProvider())
	sch, err := srv.GetProviderSchema(t.Context(), &tfprotov5.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sch.Diagnostics) > 0 {
		t.Fatalf("GetProviderSchema: %s", diagText(sch.Diagnostics))
	}
	h := &harness{t: t, srv: srv, dirType: sch.ResourceSchemas["fixturesdk_dir"].ValueType(), root: t.TempDir()}
	cfg := msgpack(t, sch.Provider.ValueType(), map[string]any{"token": token, "root": h.root})
	resp, err := srv.ConfigureProvider(t.Context(), &tfprotov5.ConfigureProviderRequest{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return h, resp.Diagnostics
}

// msgpack encodes v, given as JSON-shaped Go values with absent attributes
// null, as the msgpack DynamicValue the SDK server requires.
func msgpack(t *testing.T, typ tftypes.Type, v any) *tfprotov5.DynamicValue {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	val, err := (&tfprotov5.DynamicValue{JSON: b}).Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	dv, err := tfprotov5.NewDynamicValue(typ, val)
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

func diagText(ds []*tfprotov5.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.Summary + ": " + d.Detail + "\n")
	}
	return b.String()
}

func hasError(ds []*tfprotov5.Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == tfprotov5.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

// decode turns a fixturesdk_dir state into JSON-shaped Go values.
func (h *harness) decode(dv *tfprotov5.DynamicValue) map[string]any {
	h.t.Helper()
	v, err := dv.Unmarshal(h.dirType)
	if err != nil {
		h.t.Fatal(err)
	}
	if v.IsNull() {
		return nil
	}
	return goValue(h.t, v).(map[string]any)
}

func goValue(t *testing.T, v tftypes.Value) any {
	t.Helper()
	if v.IsNull() {
		return nil
	}
	if !v.IsKnown() {
		return "<unknown>"
	}
	switch {
	case v.Type().Is(tftypes.String):
		var s string
		must(t, v.As(&s))
		return s
	case v.Type().Is(tftypes.Number):
		var f big.Float
		must(t, v.As(&f))
		n, _ := f.Float64()
		return n
	case v.Type().Is(tftypes.Bool):
		var b bool
		must(t, v.As(&b))
		return b
	case v.Type().Is(tftypes.List{}), v.Type().Is(tftypes.Set{}):
		var els []tftypes.Value
		must(t, v.As(&els))
		out := []any{}
		for _, e := range els {
			out = append(out, goValue(t, e))
		}
		return out
	default:
		var m map[string]tftypes.Value
		must(t, v.As(&m))
		out := map[string]any{}
		for k, e := range m {
			out[k] = goValue(t, e)
		}
		return out
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestConfigureToken(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		token   string
		wantErr bool
	}{
		"right": {token: defaultToken},
		"wrong": {token: "not-the-token", wantErr: true},
		"empty": {token: "", wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, diags := newHarness(t, tc.token)
			if hasError(diags) != tc.wantErr {
				t.Fatalf("diagnostics %q, want error %v", diagText(diags), tc.wantErr)
			}
			if tc.token != "" && strings.Contains(diagText(diags), tc.token) {
				t.Errorf("diagnostics repeat the token: %s", diagText(diags))
			}
		})
	}
}

func TestUpgradeResourceStateV0(t *testing.T) {
	t.Parallel()
	h, diags := newHarness(t, defaultToken)
	if hasError(diags) {
		t.Fatal(diagText(diags))
	}
	raw := `{"id":"d","path":"d","mode":"0700","files":{"b":"B","a":"A"}}`
	resp, err := h.srv.UpgradeResourceState(t.Context(), &tfprotov5.UpgradeResourceStateRequest{
		TypeName: "fixturesdk_dir", Version: 0, RawState: &tfprotov5.RawState{JSON: []byte(raw)},
	})
	if err != nil || hasError(resp.Diagnostics) {
		t.Fatalf("UpgradeResourceState: %v %s", err, diagText(resp.Diagnostics))
	}
	got := h.decode(resp.UpgradedState)
	want := map[string]any{
		"id": "d", "name": "d", "mode": "0700",
		"file": []any{
			map[string]any{"name": "a", "content": "A", "mode": "0644"},
			map[string]any{"name": "b", "content": "B", "mode": "0644"},
		},
		"link": []any{}, "manifest": []any{}, "labels": nil, "secret": nil, "file_count": nil, "content_sha256": nil,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("upgraded state (-want +got):\n%s", diff)
	}
}

func TestDirLifecycle(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	h, diags := newHarness(t, defaultToken)
	if hasError(diags) {
		t.Fatal(diagText(diags))
	}
	config := map[string]any{
		"name":     "site",
		"file":     []any{map[string]any{"name": "index.html", "content": "<p>hi</p>\n"}},
		"link":     []any{map[string]any{"name": "home.html", "target": "index.html"}},
		"manifest": []any{map[string]any{"format": "json"}},
		"labels":   map[string]any{"env": "test"},
		"secret":   "s3cr3t",
	}
	cfg := msgpack(t, h.dirType, config)
	null := msgpack(t, h.dirType, nil)
	plan, err := h.srv.PlanResourceChange(ctx, &tfprotov5.PlanResourceChangeRequest{
		TypeName: "fixturesdk_dir", PriorState: null, ProposedNewState: cfg, Config: cfg,
	})
	if err != nil || hasError(plan.Diagnostics) {
		t.Fatalf("plan: %v %s", err, diagText(plan.Diagnostics))
	}
	applied, err := h.srv.ApplyResourceChange(ctx, &tfprotov5.ApplyResourceChangeRequest{
		TypeName: "fixturesdk_dir", PriorState: null, PlannedState: plan.PlannedState, Config: cfg, PlannedPrivate: plan.PlannedPrivate,
	})
	if err != nil || hasError(applied.Diagnostics) {
		t.Fatalf("apply: %v %s", err, diagText(applied.Diagnostics))
	}
	state := h.decode(applied.NewState)
	wantFiles := []fileSpec{{Name: "index.html", Content: "<p>hi</p>\n", Mode: "0644"}}
	want := map[string]any{
		"id": "site", "name": "site", "mode": "0755",
		"file":           []any{map[string]any{"name": "index.html", "content": "<p>hi</p>\n", "mode": "0644"}},
		"link":           []any{map[string]any{"name": "home.html", "target": "index.html"}},
		"manifest":       []any{map[string]any{"name": "MANIFEST", "format": "json"}},
		"labels":         map[string]any{"env": "test"},
		"secret":         "s3cr3t",
		"file_count":     float64(1),
		"content_sha256": filesHash(wantFiles),
	}
	if diff := cmp.Diff(want, state); diff != "" {
		t.Errorf("created state (-want +got):\n%s", diff)
	}
	site := filepath.Join(h.root, "site")
	if b, err := os.ReadFile(filepath.Join(site, "MANIFEST")); err != nil || string(b) != `["home.html","index.html"]` {
		t.Errorf("MANIFEST = %q, %v", b, err)
	}
	if target, err := os.Readlink(filepath.Join(site, "home.html")); err != nil || target != "index.html" {
		t.Errorf("link = %q, %v", target, err)
	}

	// Import by name reads the same directory back.
	imp, err := h.srv.ImportResourceState(ctx, &tfprotov5.ImportResourceStateRequest{TypeName: "fixturesdk_dir", ID: "site"})
	if err != nil || hasError(imp.Diagnostics) || len(imp.ImportedResources) != 1 {
		t.Fatalf("import: %v %s", err, diagText(imp.Diagnostics))
	}
	read, err := h.srv.ReadResource(ctx, &tfprotov5.ReadResourceRequest{
		TypeName: "fixturesdk_dir", CurrentState: imp.ImportedResources[0].State, Private: imp.ImportedResources[0].Private,
	})
	if err != nil || hasError(read.Diagnostics) {
		t.Fatalf("read imported: %v %s", err, diagText(read.Diagnostics))
	}
	// An import cannot know the manifest block, so its file reads as a file.
	got := h.decode(read.NewState)
	wantImported := []any{
		map[string]any{"name": "MANIFEST", "content": `["home.html","index.html"]`, "mode": "0644"},
		map[string]any{"name": "index.html", "content": "<p>hi</p>\n", "mode": "0644"},
	}
	if diff := cmp.Diff(wantImported, got["file"]); diff != "" {
		t.Errorf("imported files (-want +got):\n%s", diff)
	}

	// A directory removed behind the provider's back leaves state.
	if err := os.RemoveAll(site); err != nil {
		t.Fatal(err)
	}
	gone, err := h.srv.ReadResource(ctx, &tfprotov5.ReadResourceRequest{TypeName: "fixturesdk_dir", CurrentState: applied.NewState, Private: applied.Private})
	if err != nil || hasError(gone.Diagnostics) {
		t.Fatalf("read removed: %v %s", err, diagText(gone.Diagnostics))
	}
	if got := h.decode(gone.NewState); got != nil {
		t.Errorf("read of removed dir = %v, want null", got)
	}
}

func TestProviderInternalValidate(t *testing.T) {
	t.Parallel()
	if err := newProvider().InternalValidate(); err != nil {
		t.Fatalf("InternalValidate: %v", err)
	}
}
