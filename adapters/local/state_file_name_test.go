package local

import (
	"encoding/json"
	"testing"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
)

// TestStateFileName: the name a state_file's inputs give, and the error,
// are DecodeInputs's, whether or not the inputs take the short way.
func TestStateFileName(t *testing.T) {
	t.Parallel()
	for name, props := range map[string]schema.Properties{
		"name":          {"name": "state.json"},
		"empty name":    {"name": ""},
		"invalid utf-8": {"name": "a\xffb"},
		"not a string":  {"name": json.Number("1")},
		"null":          {"name": nil},
		"extra field":   {"name": "s.json", "other": "x"},
		"missing":       {},
		"nil":           nil,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var in stateFileInputs
			wantErr := providersdk.DecodeInputs(props, &in)
			got, err := stateFileType{}.name(props)
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Fatalf("name: error %v, want %v", err, wantErr)
			}
			if err == nil && got != in.Name {
				t.Errorf("name = %q, want %q", got, in.Name)
			}
		})
	}
}
