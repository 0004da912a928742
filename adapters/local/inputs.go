package local

import (
	"reflect"
	"slices"
	"strings"
)

// inputStructs are the structs each type decodes its inputs into, so
// Inputs and the decoding can never disagree.
var inputStructs = map[string]any{
	"file":       fileInputs{},
	"exec":       execInputs{},
	"memo":       memoInputs{},
	"state_file": stateFileInputs{},
}

// Inputs returns, for each resource type of the local provider, the names
// of the inputs it accepts, sorted. pier validate checks deployments
// against it, and docs/local.md is tested against it.
func Inputs() map[string][]string {
	out := make(map[string][]string, len(inputStructs))
	for typ, v := range inputStructs {
		t := reflect.TypeOf(v)
		var names []string
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if name != "" && name != "-" {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		out[typ] = names
	}
	return out
}
