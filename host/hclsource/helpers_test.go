package hclsource

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/host/source"
)

// resView is a resource of a snapshot in a form that is easy to compare.
type resView struct {
	Status    string // ready, blocked or structural
	Provider  string
	Type      string
	Inputs    map[string]any
	State     string
	DependsOn []string
	WaitsOn   []string
	Line      int
}

// unknownText replaces source.Unknown in views.
const unknownText = "<unknown>"

func view(tb testing.TB, s *source.Snapshot) map[string]resView {
	tb.Helper()
	out := map[string]resView{}
	add := func(status string, r *source.Resource, waits []source.Address) {
		v := resView{Status: status, Provider: r.Provider, Type: r.Type, Line: r.Range.Line}
		if r.Inputs != nil {
			v.Inputs, _ = plain(r.Inputs).(map[string]any)
		}
		if r.State != nil {
			v.State = r.State.String()
		}
		v.DependsOn = addrStrings(r.DependsOn)
		v.WaitsOn = addrStrings(waits)
		if _, dup := out[r.Address.String()]; dup {
			tb.Fatalf("address %s twice in snapshot", r.Address)
		}
		out[r.Address.String()] = v
	}
	for _, r := range s.Ready {
		add("ready", r, nil)
	}
	for _, b := range s.Blocked {
		if b.Structural {
			out[b.Address.String()] = resView{Status: "structural", WaitsOn: addrStrings(b.WaitsOn)}
			continue
		}
		add("blocked", b.Resource, b.WaitsOn)
	}
	return out
}

// plain replaces Unknown with unknownText and json.Number with its text.
func plain(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			m[k] = plain(e)
		}
		return m
	case []any:
		l := []any{}
		for _, e := range x {
			l = append(l, plain(e))
		}
		return l
	case json.Number:
		return "#" + string(x)
	}
	if source.IsUnknown(v) {
		return unknownText
	}
	return v
}

func addrStrings(as []source.Address) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.String())
	}
	return out
}

func outputsView(s *source.Snapshot) map[string]any {
	out := map[string]any{}
	for _, o := range s.Outputs {
		key := o.Name
		if o.Sensitive {
			key += " (sensitive)"
		}
		out[key] = plain(o.Value)
	}
	return out
}

// writeDir writes files into a fresh directory and returns it.
func writeDir(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// diagLines renders a load or resolve error with the directory prefix
// removed, so that expectations read "main.pier.hcl:3:5: …".
func diagLines(tb testing.TB, err error, dir string) []string {
	tb.Helper()
	var de *DiagnosticsError
	if !errors.As(err, &de) {
		tb.Fatalf("error %v is not a *DiagnosticsError", err)
	}
	var lines []string
	for _, d := range de.Diagnostics {
		line := formatDiagnostic(d)
		if dir != "" {
			line = strings.ReplaceAll(line, dir+string(filepath.Separator), "")
		}
		lines = append(lines, line)
	}
	return lines
}

func mustLoad(tb testing.TB, dir string, opts Options) *Deployment {
	tb.Helper()
	d, err := Load(dir, opts)
	if err != nil {
		tb.Fatalf("load %s: %v", dir, err)
	}
	return d
}

func mustResolve(tb testing.TB, d *Deployment, known source.Outputs) *source.Snapshot {
	tb.Helper()
	s, err := d.Resolve(tb.Context(), known)
	if err != nil {
		tb.Fatalf("resolve: %v", err)
	}
	return s
}
