package source

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAddressString(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		addr Address
		want string
	}{
		"name":                 {Address{{Name: "a"}}, "a"},
		"count index":          {Address{{Name: "m", Key: 12}}, "m[12]"},
		"negative":             {Address{{Name: "m", Key: -1}}, "m[-1]"},
		"each key":             {Address{{Name: "m", Key: "k"}}, `m["k"]`},
		"quoted key":           {Address{{Name: "m", Key: "a\"b\n"}}, `m["a\"b\n"]`},
		"nested":               {Address{{Name: "web"}, {Name: "db", Key: 3}}, "web.db[3]"},
		"nested keyed":         {Address{{Name: "web", Key: "eu"}, {Name: "db"}}, `web["eu"].db`},
		"empty address":        {Address{}, ""},
		"module":               {Address{{Name: "site", Module: true}, {Name: "page"}}, "module.site.page"},
		"module keyed":         {Address{{Name: "site", Key: "blog", Module: true}, {Name: "page", Key: 1}}, `module.site["blog"].page[1]`},
		"nested module":        {Address{{Name: "a", Key: 0, Module: true}, {Name: "b", Module: true}, {Name: "c"}}, "module.a[0].module.b.c"},
		"module in deployment": {Address{{Name: "web"}, {Name: "site", Module: true}, {Name: "page"}}, "web.module.site.page"},
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

// TestAddressQuotedNames covers member names NixOps4 allows that a plain
// dotted address cannot spell: they are quoted, and parse back.
func TestAddressQuotedNames(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		addr     Address
		want     string
		stateKey []string
	}{
		"a dot":                   {Address{{Name: "myDeployment"}, {Name: "file.txt"}}, `myDeployment."file.txt"`, []string{"deployments", "myDeployment", "resources", "file.txt"}},
		"top level":               {Address{{Name: "file.txt"}}, `"file.txt"`, []string{"resources", "file.txt"}},
		"a quote":                 {Address{{Name: `say "hi"`}}, `"say \"hi\""`, []string{"resources", `say "hi"`}},
		"brackets":                {Address{{Name: "a[0]"}, {Name: "b"}}, `"a[0]".b`, []string{"deployments", "a[0]", "resources", "b"}},
		"empty":                   {Address{{Name: ""}, {Name: "x"}}, `"".x`, []string{"deployments", "", "resources", "x"}},
		"space":                   {Address{{Name: "my site"}}, `"my site"`, []string{"resources", "my site"}},
		"quoted and keyed":        {Address{{Name: "a.b", Key: "k"}}, `"a.b"["k"]`, []string{"resources", `a.b["k"]`}},
		"plain unicode":           {Address{{Name: "café-1"}}, "café-1", []string{"resources", "café-1"}},
		"module instance":         {Address{{Name: "site", Key: "blog", Module: true}, {Name: "page"}}, `module.site["blog"].page`, []string{"deployments", `module.site["blog"]`, "resources", "page"}},
		"a resource named module": {Address{{Name: "web"}, {Name: "module"}}, "web.module", []string{"deployments", "web", "resources", "module"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := tc.addr.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
			back, err := ParseAddress(tc.want)
			if err != nil {
				t.Fatalf("ParseAddress(%q): %v", tc.want, err)
			}
			if d := cmp.Diff(tc.addr, back); d != "" {
				t.Errorf("ParseAddress(%q) (-want +got):\n%s", tc.want, d)
			}
			if d := cmp.Diff(tc.stateKey, tc.addr.StateKey()); d != "" {
				t.Errorf("StateKey (-want +got):\n%s", d)
			}
		})
	}
	for _, bad := range []string{`"open`, `a."b`, `"a"b`, `a["k"`, `"a".`} {
		if a, err := ParseAddress(bad); err == nil {
			t.Errorf("ParseAddress(%q) = %v, want an error", bad, a)
		}
	}
}

func TestMovedRewrite(t *testing.T) {
	t.Parallel()
	res := func(name string, key any) Step { return Step{Name: name, Key: key} }
	mod := func(name string, key any) Step { return Step{Name: name, Key: key, Module: true} }
	cases := map[string]struct {
		from, to Address
		addr     Address
		want     string // "" means no match
	}{
		"rename":                   {Address{res("a", nil)}, Address{res("b", nil)}, Address{res("a", nil)}, "b"},
		"every instance":           {Address{res("a", nil)}, Address{res("b", nil)}, Address{res("a", 2)}, "b[2]"},
		"one instance":             {Address{res("a", "x")}, Address{res("b", "y")}, Address{res("a", "x")}, `b["y"]`},
		"another instance":         {Address{res("a", "x")}, Address{res("b", "y")}, Address{res("a", "z")}, ""},
		"gains count":              {Address{res("a", nil)}, Address{res("a", 0)}, Address{res("a", nil)}, "a[0]"},
		"not onto one instance":    {Address{res("a", nil)}, Address{res("b", 0)}, Address{res("a", 1)}, ""},
		"loses count":              {Address{res("a", 0)}, Address{res("a", nil)}, Address{res("a", 0)}, "a"},
		"into a module":            {Address{res("a", nil)}, Address{mod("site", "blog"), res("a", nil)}, Address{res("a", nil)}, `module.site["blog"].a`},
		"between module instances": {Address{mod("site", "a")}, Address{mod("site", "b")}, Address{mod("site", "a"), res("page", nil)}, `module.site["b"].page`},
		"not a deployment block":   {Address{mod("site", "a")}, Address{mod("site", "b")}, Address{{Name: "site", Key: "a"}, res("page", nil)}, ""},
		"not a member":             {Address{res("a", nil)}, Address{res("b", nil)}, Address{{Name: "a"}, res("x", nil)}, ""},
		"other name":               {Address{res("a", nil)}, Address{res("b", nil)}, Address{res("ab", nil)}, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, ok := (&Moved{From: tc.from, To: tc.to}).Rewrite(tc.addr)
			if (tc.want != "") != ok || ok && got.String() != tc.want {
				t.Errorf("Rewrite(%s) = %s, %v; want %q", tc.addr, got, ok, tc.want)
			}
		})
	}
}
