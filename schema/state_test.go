package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckState(t *testing.T) {
	t.Parallel()
	const entry = `{"type":"file","input_properties":{},"output_properties":{}}`
	tests := map[string]struct {
		doc       string
		resources int
		pointer   string // "" with wantErr false: valid
		wantErr   bool
	}{
		"empty":                 {doc: `{"_type":"nixopsState"}`},
		"one resource":          {doc: `{"_type":"nixopsState","resources":{"a":` + entry + `}}`, resources: 1},
		"camel spelling":        {doc: `{"_type":"nixopsState","resources":{"a":{"type":"t","inputProperties":{}}}}`, resources: 1},
		"nested deployments":    {doc: `{"_type":"nixopsState","resources":{"a":` + entry + `},"deployments":{"web":{"resources":{"b":` + entry + `,"c":` + entry + `},"deployments":{"db":{"resources":{"d":` + entry + `}}}}}}`, resources: 4},
		"pier outputs":          {doc: `{"_type":"nixopsState","pierOutputs":{"x":{"value":1}}}`},
		"pending create":        {doc: `{"_type":"nixopsState","pierPendingOperations":{"web.db":{"operation":"create","provider":"p","type":"t","started":"2026-12-01T12:00:00Z","input_properties":{"a":1},"sensitiveInputs":["a"]}}}`},
		"pending destroy":       {doc: `{"_type":"nixopsState","resources":{"a":` + entry + `},"pierPendingOperations":{"a":{"operation":"destroy","provider":"p","type":"t","started":"2026-12-01T12:00:00Z"}}}`, resources: 1},
		"pending not an object": {doc: `{"_type":"nixopsState","pierPendingOperations":[]}`, wantErr: true, pointer: "/pierPendingOperations"},
		"pending entry null":    {doc: `{"_type":"nixopsState","pierPendingOperations":{"a/b":null}}`, wantErr: true, pointer: "/pierPendingOperations/a~1b"},
		"pending no operation":  {doc: `{"_type":"nixopsState","pierPendingOperations":{"a":{"provider":"p","type":"t","started":"s"}}}`, wantErr: true, pointer: "/pierPendingOperations/a/operation"},
		"pending update":        {doc: `{"_type":"nixopsState","pierPendingOperations":{"a":{"operation":"update","provider":"p","type":"t","started":"s"}}}`, wantErr: true, pointer: "/pierPendingOperations/a/operation"},
		"pending no started":    {doc: `{"_type":"nixopsState","pierPendingOperations":{"a":{"operation":"create","provider":"p","type":"t"}}}`, wantErr: true, pointer: "/pierPendingOperations/a/started"},
		"pending inputs array":  {doc: `{"_type":"nixopsState","pierPendingOperations":{"a":{"operation":"create","provider":"p","type":"t","started":"s","input_properties":[]}}}`, wantErr: true, pointer: "/pierPendingOperations/a/input_properties"},
		"not an object":         {doc: `[]`, wantErr: true, pointer: ""},
		"no _type":              {doc: `{"resources":{}}`, wantErr: true, pointer: "/_type"},
		"wrong _type":           {doc: `{"_type":"x"}`, wantErr: true, pointer: "/_type"},
		"resources 5":           {doc: `{"_type":"nixopsState","resources":5}`, wantErr: true, pointer: "/resources"},
		"resources null":        {doc: `{"_type":"nixopsState","resources":null}`, wantErr: true, pointer: "/resources"},
		"resources []":          {doc: `{"_type":"nixopsState","resources":[]}`, wantErr: true, pointer: "/resources"},
		`resources "x"`:         {doc: `{"_type":"nixopsState","resources":"x"}`, wantErr: true, pointer: "/resources"},
		"deployments 5":         {doc: `{"_type":"nixopsState","deployments":5}`, wantErr: true, pointer: "/deployments"},
		"deployment null":       {doc: `{"_type":"nixopsState","deployments":{"w":null}}`, wantErr: true, pointer: "/deployments/w"},
		"nested resources []": {doc: `{"_type":"nixopsState","deployments":{"w":{"resources":[]}}}`,
			wantErr: true, pointer: "/deployments/w/resources"},
		"entry not object":  {doc: `{"_type":"nixopsState","resources":{"a":1}}`, wantErr: true, pointer: "/resources/a"},
		"entry no type":     {doc: `{"_type":"nixopsState","resources":{"a/b":{"input_properties":{}}}}`, wantErr: true, pointer: "/resources/a~1b/type"},
		"entry type number": {doc: `{"_type":"nixopsState","resources":{"a":{"type":1,"input_properties":{}}}}`, wantErr: true, pointer: "/resources/a/type"},
		"entry no inputs":   {doc: `{"_type":"nixopsState","resources":{"a":{"type":"t"}}}`, wantErr: true, pointer: "/resources/a/input_properties"},
		"inputs array":      {doc: `{"_type":"nixopsState","resources":{"a":{"type":"t","input_properties":[]}}}`, wantErr: true, pointer: "/resources/a/input_properties"},
		"outputs string":    {doc: `{"_type":"nixopsState","resources":{"a":{"type":"t","input_properties":{},"outputProperties":"s"}}}`, wantErr: true, pointer: "/resources/a/outputProperties"},
		"provider number":   {doc: `{"_type":"nixopsState","resources":{"a":{"type":"t","input_properties":{},"provider":1}}}`, wantErr: true, pointer: "/resources/a/provider"},
		"dependency number": {doc: `{"_type":"nixopsState","resources":{"a":{"type":"t","input_properties":{},"dependencies":["x",2]}}}`, wantErr: true, pointer: "/resources/a/dependencies/1"},
		"first fault in key order": {doc: `{"_type":"nixopsState","resources":{"z":{},"b":{},"m":{}}}`,
			wantErr: true, pointer: "/resources/b/type"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var doc any
			if err := json.Unmarshal([]byte(tc.doc), &doc); err != nil {
				t.Fatal(err)
			}
			n, err := CheckState(doc)
			// The Go rules are the JSON Schema's: both accept or both refuse.
			schemaErr := ValidateState([]byte(tc.doc))
			if (schemaErr != nil) != tc.wantErr {
				t.Errorf("state schema: error %v, want error %v", schemaErr, tc.wantErr)
			}
			if !tc.wantErr {
				if err != nil {
					t.Fatalf("CheckState: %v", err)
				}
				if n != tc.resources {
					t.Errorf("resources = %d, want %d", n, tc.resources)
				}
				return
			}
			var se *StateError
			if !errors.As(err, &se) {
				t.Fatalf("CheckState error %v, want a *StateError", err)
			}
			if diff := cmp.Diff(tc.pointer, se.Pointer); diff != "" {
				t.Errorf("pointer (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

// TestCheckStateNeverPrintsValues checks that a structural error names the
// place and the kind, never the (possibly secret) value.
func TestCheckStateNeverPrintsValues(t *testing.T) {
	t.Parallel()
	var doc any
	_ = json.Unmarshal([]byte(`{"_type":"nixopsState","resources":{"a":{"type":"t","input_properties":"hunter2"}}}`), &doc)
	_, err := CheckState(doc)
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error %v", err)
	}
}

// BenchmarkCheckState10000 is the structural check every plan makes, on a
// state of 10,000 resources.
func BenchmarkCheckState10000(b *testing.B) {
	res := map[string]any{}
	for i := range 10000 {
		res[fmt.Sprintf("r%d", i)] = map[string]any{
			"type": "memo", "input_properties": map[string]any{"initialize_with": "x"},
			"output_properties": map[string]any{"value": "x"}, "provider": "local",
			"dependencies": []any{"r0"},
		}
	}
	doc := map[string]any{"_type": "nixopsState", "resources": res, "deployments": map[string]any{}}
	for b.Loop() {
		if n, err := CheckState(doc); err != nil || n != 10000 {
			b.Fatal(n, err)
		}
	}
}

func TestStateResources(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		doc  string
		want []string
	}{
		"empty":           {doc: `{}`, want: nil},
		"top":             {doc: `{"resources":{"a":{},"b":{}}}`, want: []string{"a", "b"}},
		"nested":          {doc: `{"resources":{"a":{}},"deployments":{"web":{"resources":{"db":{}},"deployments":{"x":{"resources":{"y":{}}}}}}}`, want: []string{"a", "web.db", "web.x.y"}},
		"malformed skips": {doc: `{"resources":[],"deployments":{"bad":1,"ok":{"resources":{"r":{}}}}}`, want: []string{"ok.r"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var doc map[string]any
			if err := json.Unmarshal([]byte(tc.doc), &doc); err != nil {
				t.Fatal(err)
			}
			got := slices.Sorted(StateResources(doc))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("StateResources (-want +got):\n%s", diff)
			}
			for range StateResources(doc) {
				break // an early stop must not panic
			}
		})
	}
}
