package tfschema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixtureJSON is the shape of `pier tf schema --json` for a type with
// every kind of nesting (the fixture provider's fixture_file, trimmed).
const fixtureJSON = `{
  "message_type": "tf_schema",
  "plugin": "terraform-provider-fixture",
  "protocol_version": 6,
  "provider": {"name": "provider", "attributes": [{"path": "token", "type": "string", "sensitive": true}]},
  "resource_types": [{"name": "fixture_file", "schema_version": 1, "attributes": [
    {"path": "aliases", "nesting": "set"}, {"path": "aliases.*.name"},
    {"path": "content"}, {"path": "sensitive_content", "sensitive": true}, {"path": "extra"}, {"path": "id"},
    {"path": "metadata", "nesting": "single"}, {"path": "metadata.api_key", "sensitive": true}, {"path": "metadata.labels"}, {"path": "metadata.owner"},
    {"path": "path"},
    {"path": "ports", "nesting": "map"}, {"path": "ports.*.number"}, {"path": "ports.*.protocol"},
    {"path": "rules", "nesting": "list"}, {"path": "rules.*.allow"}, {"path": "rules.*.name"},
    {"path": "header", "nesting": "single", "block": true}, {"path": "header.text"},
    {"path": "section", "nesting": "list", "block": true}, {"path": "section.*.body"}, {"path": "section.*.title"}
  ]}],
  "data_sources": [{"name": "data-source-fixture_echo", "terraform_name": "fixture_echo", "attributes": [{"path": "input"}, {"path": "output"}]}]
}`

func TestParse(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in        string
		types     []string
		sensitive []string // of fixture_file
		wantErr   string
	}{
		"fixture":       {in: fixtureJSON, types: []string{"data-source-fixture_echo", "fixture_file"}, sensitive: []string{"metadata.api_key", "sensitive_content"}},
		"empty":         {in: `{"message_type":"tf_schema","resource_types":[],"data_sources":[]}`, types: []string{}},
		"not json":      {in: `provider fixture`, wantErr: "decode schema: invalid character 'p' looking for beginning of value"},
		"wrong message": {in: `{"message_type":"plan"}`, wantErr: `decode schema: message_type is "plan", want tf_schema`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := Parse([]byte(tc.in))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Parse error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.types, s.TypeNames()); diff != "" {
				t.Errorf("types (-want +got):\n%s", diff)
			}
			if ft := s.Types["fixture_file"]; ft != nil {
				if diff := cmp.Diff(tc.sensitive, ft.SensitivePaths()); diff != "" {
					t.Errorf("sensitive paths (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	s, err := Parse([]byte(fixtureJSON))
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		Attribute, Suggestion string
		Path                  []any
	}
	tests := map[string]struct {
		typ    string
		inputs map[string]any
		want   []result
	}{
		"nil inputs": {typ: "fixture_file"},
		"all valid": {typ: "fixture_file", inputs: map[string]any{
			"path": "a", "content": "x",
			"metadata": map[string]any{"owner": "o", "labels": map[string]any{"any key": "is fine"}},
			"rules":    []any{map[string]any{"name": "r", "allow": true}},
			"aliases":  []any{map[string]any{"name": "a"}},
			"ports":    map[string]any{"http": map[string]any{"number": 80.0}},
			"header":   map[string]any{"text": "t"},
			"section":  []any{map[string]any{"title": "t"}},
			// Dynamic attributes take any shape.
			"extra": map[string]any{"whatever": []any{1.0}},
		}},
		"top-level typo": {typ: "fixture_file", inputs: map[string]any{"pth": "a", "conten": "x"},
			want: []result{{"conten", "content", []any{"conten"}}, {"pth", "path", []any{"pth"}}}},
		"far off, no suggestion": {typ: "fixture_file", inputs: map[string]any{"zzzzzz": 1.0},
			want: []result{{"zzzzzz", "", []any{"zzzzzz"}}}},
		"nested single": {typ: "fixture_file", inputs: map[string]any{"metadata": map[string]any{"apikey": "k"}},
			want: []result{{"metadata.apikey", "api_key", []any{"metadata", "apikey"}}}},
		"nested list element": {typ: "fixture_file", inputs: map[string]any{"rules": []any{map[string]any{"name": "a"}, map[string]any{"nme": "b"}}},
			want: []result{{"rules[1].nme", "name", []any{"rules", 1, "nme"}}}},
		"nested map element": {typ: "fixture_file", inputs: map[string]any{"ports": map[string]any{"8080": map[string]any{"numbr": 1.0}}},
			want: []result{{`ports["8080"].numbr`, "number", []any{"ports", "8080", "numbr"}}}},
		"block": {typ: "fixture_file", inputs: map[string]any{"header": map[string]any{"txt": "t"}},
			want: []result{{"header.txt", "text", []any{"header", "txt"}}}},
		"unknown value not looked into": {typ: "fixture_file", inputs: map[string]any{"metadata": struct{}{}}},
		"data source":                   {typ: "data-source-fixture_echo", inputs: map[string]any{"inpt": "x"}, want: []result{{"inpt", "input", []any{"inpt"}}}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got []result
			for _, u := range s.Types[tc.typ].Check(tc.inputs) {
				got = append(got, result{u.Attribute(), u.Suggestion, u.Path})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	names := []string{"time_static", "time_offset", "time_sleep", "time_rotating"}
	tests := map[string]struct{ in, want string }{
		"one letter off": {"time_statc", "time_static"},
		"exact":          {"time_sleep", "time_sleep"},
		"nothing close":  {"aws_instance", ""},
		"empty":          {"", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := Suggest(tc.in, names); got != tc.want {
				t.Errorf("Suggest(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
