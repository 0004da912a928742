package source

import "testing"

func TestAddressString(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		addr Address
		want string
	}{
		"name":          {Address{{Name: "a"}}, "a"},
		"count index":   {Address{{Name: "m", Key: 12}}, "m[12]"},
		"negative":      {Address{{Name: "m", Key: -1}}, "m[-1]"},
		"each key":      {Address{{Name: "m", Key: "k"}}, `m["k"]`},
		"quoted key":    {Address{{Name: "m", Key: "a\"b\n"}}, `m["a\"b\n"]`},
		"nested":        {Address{{Name: "web"}, {Name: "db", Key: 3}}, "web.db[3]"},
		"nested keyed":  {Address{{Name: "web", Key: "eu"}, {Name: "db"}}, `web["eu"].db`},
		"empty address": {Address{}, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := tc.addr.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
			if len(tc.addr) == 0 {
				return
			}
			back, err := ParseAddress(tc.want)
			if err != nil {
				t.Fatalf("ParseAddress(%q): %v", tc.want, err)
			}
			if back.String() != tc.want {
				t.Errorf("ParseAddress(%q).String() = %q", tc.want, back.String())
			}
		})
	}
}
