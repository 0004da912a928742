package schema

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCheckEntryOnePass holds checkEntry, which reads an entry's members
// in one pass, to the fault the former check, a look-up of each member in
// turn (checkEntryByLookup below), reports: same pointer, same words, for
// entries with one fault, several, or none.
func TestCheckEntryOnePass(t *testing.T) {
	t.Parallel()
	members := []string{
		`"type":"t"`, `"type":1`, `"type":null`,
		`"input_properties":{}`, `"input_properties":[]`, `"inputProperties":{}`, `"inputProperties":"s"`,
		`"output_properties":{}`, `"output_properties":5`, `"outputProperties":{}`, `"outputProperties":null`,
		`"provider":"p"`, `"provider":1`, `"importId":"i"`, `"importId":true`,
		`"dependencies":["a"]`, `"dependencies":["a",2]`, `"dependencies":{}`,
		`"sensitiveInputs":[]`, `"sensitiveInputs":[null]`, `"sensitiveInputs":"x"`,
		`"deposed":{}`, `"other":1`,
	}
	// A sound type and inputs first, so that later faults are reached; a
	// member repeated after them replaces it, as in encoding/json.
	const sound = `"type":"t","input_properties":{}`
	var docs []string
	// Every pair of members, and every run of three, covers each fault
	// alone, each ordering of two faults and a fault beside sound members.
	for i, a := range members {
		docs = append(docs, "{"+a+"}")
		for j, b := range members {
			docs = append(docs, "{"+a+","+b+"}", "{"+sound+","+a+","+b+"}")
			if k := (i + j) % len(members); k != i && k != j {
				docs = append(docs, "{"+a+","+b+","+members[k]+"}")
			}
		}
	}
	docs = append(docs, `1`, `null`, `[]`, `"s"`, `{}`)
	for _, doc := range docs {
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			continue // a duplicate key pair is still JSON; anything else is the test's
		}
		got, want := checkEntry(v), checkEntryByLookup(v)
		if diff := cmp.Diff(fmt.Sprint(want), fmt.Sprint(got)); diff != "" {
			t.Errorf("checkEntry(%s) (-by look-up +one pass):\n%s", doc, diff)
		}
	}
}

func checkEntryByLookup(raw any) *StateError {
	const ptr = ""
	e, ok := raw.(map[string]any)
	if !ok {
		return &StateError{Pointer: ptr, Problem: fmt.Sprintf("is %s, want an object (a recorded resource)", JSONKind(raw))}
	}
	switch t, present := e["type"]; {
	case !present:
		return &StateError{Pointer: ptr + "/type", Problem: "missing; every recorded resource has a type"}
	case JSONKind(t) != "a string":
		return &StateError{Pointer: ptr + "/type", Problem: fmt.Sprintf("is %s, want a string", JSONKind(t))}
	}
	_, snake := e["input_properties"]
	_, camel := e["inputProperties"]
	if !snake && !camel {
		return &StateError{Pointer: ptr + "/input_properties", Problem: "missing (nor is there inputProperties)"}
	}
	for _, key := range []string{"input_properties", "inputProperties", "output_properties", "outputProperties"} {
		if v, ok := e[key]; ok {
			if _, ok := v.(map[string]any); !ok {
				return &StateError{Pointer: ptr + "/" + key, Problem: fmt.Sprintf("is %s, want an object", JSONKind(v))}
			}
		}
	}
	for _, key := range []string{"provider", "importId"} {
		if v, ok := e[key]; ok && JSONKind(v) != "a string" {
			return &StateError{Pointer: ptr + "/" + key, Problem: fmt.Sprintf("is %s, want a string", JSONKind(v))}
		}
	}
	for _, key := range []string{"dependencies", "sensitiveInputs"} {
		v, ok := e[key]
		if !ok {
			continue
		}
		list, ok := v.([]any)
		if !ok {
			return &StateError{Pointer: ptr + "/" + key, Problem: fmt.Sprintf("is %s, want an array of strings", JSONKind(v))}
		}
		for i, s := range list {
			if JSONKind(s) != "a string" {
				return &StateError{Pointer: fmt.Sprintf("%s/%s/%d", ptr, key, i), Problem: fmt.Sprintf("is %s, want a string", JSONKind(s))}
			}
		}
	}
	return nil
}

// BenchmarkCheckState100000 checks the state of 100,000 memos as
// bench/scale.sh records them, as every plan checks the state it reads.
func BenchmarkCheckState100000(b *testing.B) {
	res := make(map[string]any, 100000)
	for i := range 100000 {
		res[fmt.Sprintf("a[%d]", i)] = map[string]any{
			"type": "memo", "input_properties": map[string]any{"initialize_with": fmt.Sprint("a-", i)},
			"output_properties": map[string]any{"value": fmt.Sprint("a-", i)}, "provider": "local",
			"dependencies": []any{"state"},
		}
	}
	doc := map[string]any{"_type": "nixopsState", "resources": res, "deployments": map[string]any{}}
	b.ReportAllocs()
	for b.Loop() {
		if n, err := CheckState(doc); err != nil || n != 100000 {
			b.Fatal(n, err)
		}
	}
}
