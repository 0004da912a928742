package terraform

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pierhq/pier/schema"
)

// TestPlanKeysAreJSONMarshal: plan keys hold the request's values as
// json.Marshal encodes them, as they did when they were built with it, so
// that a plan saved by an earlier pier still fits the request it answers.
func TestPlanKeysAreJSONMarshal(t *testing.T) {
	t.Parallel()
	rt := &resourceType{name: "time_static"}
	var in, rec schema.Properties
	for _, s := range []string{
		`{}`,
		`{"triggers":{"index":7}}`,
		`{"a":"<b>&\u2028","z":[1,2.50,-0,1e3,{"y":null,"x":true}],"é":"\u00e9","":{}}`,
	} {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		if err := dec.Decode(&in); err != nil {
			t.Fatal(err)
		}
		rec = schema.Properties{"id": "x", "nested": map[string]any(in), ReservedKey: map[string]any{"schema_version": json.Number("0")}}
		inJSON, _ := json.Marshal(in)
		recJSON, _ := json.Marshal(rec)
		if got, ok := createKey(rt, in); !ok || got != "create\x00time_static\x00"+string(inJSON) {
			t.Errorf("createKey(%s) = %q, %v", s, got, ok)
		}
		if got, ok := updateKey(rt, rec, in); !ok || got != "update\x00time_static\x00"+string(recJSON)+"\x00"+string(inJSON) {
			t.Errorf("updateKey(%s) = %q, %v", s, got, ok)
		}
	}
	if got, ok := createKey(rt, nil); !ok || got != "create\x00time_static\x00null" {
		t.Errorf("createKey(nil) = %q, %v", got, ok)
	}
}
