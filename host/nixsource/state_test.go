package nixsource

import (
	"encoding/json"
	"testing"
)

func TestStateAddress(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		raw     string
		want    string
		wantErr bool
	}{
		"absent":        {raw: ""},
		"null":          {raw: "null"},
		"list":          {raw: `["infra","state"]`, want: "infra.state"},
		"dotted string": {raw: `"infra.state"`, want: "infra.state"},
		"empty list":    {raw: `[]`, wantErr: true},
		"dot in name":   {raw: `["a.b"]`, want: `"a.b"`},
		"quoted string": {raw: `"infra.\"state.json\""`, want: `infra."state.json"`},
		"number":        {raw: `3`, wantErr: true},
		"bad address":   {raw: `"a..b"`, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := stateAddress(json.RawMessage(tc.raw))
			if (err != nil) != tc.wantErr {
				t.Fatalf("stateAddress(%s) error = %v, wantErr %v", tc.raw, err, tc.wantErr)
			}
			s := ""
			if got != nil {
				s = got.String()
			}
			if s != tc.want {
				t.Errorf("stateAddress(%s) = %q, want %q", tc.raw, s, tc.want)
			}
		})
	}
}
