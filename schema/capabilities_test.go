package schema

import "testing"

func TestCapabilitiesNeedsState(t *testing.T) {
	t.Parallel()
	c := Capabilities{StateTypes: []string{"state_file"}, StatefulTypes: []string{"memo"}, StatefulWhen: map[string]string{"exec": "once"}}
	tests := map[string]struct {
		typ       string
		set       bool
		want      bool
		wantInput string
	}{
		"stateful type":         {typ: "memo", want: true},
		"input set":             {typ: "exec", set: true, want: true, wantInput: "once"},
		"input not set":         {typ: "exec"},
		"other type":            {typ: "file", set: true},
		"state type not needed": {typ: "state_file"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, in := c.NeedsState(tc.typ, func(string) bool { return tc.set })
			if got != tc.want || in != tc.wantInput {
				t.Errorf("NeedsState(%q) = %v, %q; want %v, %q", tc.typ, got, in, tc.want, tc.wantInput)
			}
		})
	}
	if !c.IsStateType("state_file") || c.IsStateType("memo") {
		t.Errorf("IsStateType is wrong")
	}
}
