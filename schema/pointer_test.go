package schema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPointer(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		segments []string
		want     string
	}{
		"root":              {segments: nil, want: ""},
		"plain":             {segments: []string{"resources", "web"}, want: "/resources/web"},
		"slash":             {segments: []string{"resources", "a/b"}, want: "/resources/a~1b"},
		"tilde":             {segments: []string{"resources", "c~d"}, want: "/resources/c~0d"},
		"tilde then one":    {segments: []string{"~1"}, want: "/~01"},
		"slash then zero":   {segments: []string{"/0"}, want: "/~10"},
		"empty token":       {segments: []string{""}, want: "/"},
		"empty tokens":      {segments: []string{"", ""}, want: "//"},
		"array index":       {segments: []string{"list", "0"}, want: "/list/0"},
		"end of array":      {segments: []string{"list", "-"}, want: "/list/-"},
		"unicode":           {segments: []string{"rés/ource"}, want: "/rés~1ource"},
		"only special":      {segments: []string{"~/~/"}, want: "/~0~1~0~1"},
		"nested deployment": {segments: []string{"deployments", "web", "resources", "db"}, want: "/deployments/web/resources/db"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Pointer(tc.segments...)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Pointer (-want +got):\n%s", diff)
			}
			back, err := ParsePointer(got)
			if err != nil {
				t.Fatalf("ParsePointer(%q): %v", got, err)
			}
			if diff := cmp.Diff(tc.segments, back, cmpEmptyNil); diff != "" {
				t.Errorf("ParsePointer(Pointer(…)) (-want +got):\n%s", diff)
			}
		})
	}
}

var cmpEmptyNil = cmp.FilterValues(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Ignore())

func TestParsePointer(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		pointer string
		want    []string
		wantErr string
	}{
		"root":           {pointer: "", want: nil},
		"slash alone":    {pointer: "/", want: []string{""}},
		"rfc 6901 ~01":   {pointer: "/~01", want: []string{"~1"}},
		"rfc 6901 a~1b":  {pointer: "/a~1b", want: []string{"a/b"}},
		"rfc 6901 m~0n":  {pointer: "/m~0n", want: []string{"m~n"}},
		"spaces and %":   {pointer: "/c%d/e^f/ /i\\j", want: []string{"c%d", "e^f", " ", "i\\j"}},
		"trailing slash": {pointer: "/a/", want: []string{"a", ""}},
		"no leading":     {pointer: "a/b", wantErr: `json pointer "a/b" does not start with /`},
		"bad escape":     {pointer: "/a~2", wantErr: `json pointer "/a~2": ~ at byte 2 is not followed by 0 or 1`},
		"dangling tilde": {pointer: "/x/a~", wantErr: `json pointer "/x/a~": ~ at byte 4 is not followed by 0 or 1`},
		"tilde before /": {pointer: "/a~/b", wantErr: `json pointer "/a~/b": ~ at byte 2 is not followed by 0 or 1`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := ParsePointer(tc.pointer)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("ParsePointer(%q) error = %v, want %q", tc.pointer, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParsePointer(%q): %v", tc.pointer, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParsePointer(%q) (-want +got):\n%s", tc.pointer, diff)
			}
		})
	}
}

// FuzzParsePointer checks that every pointer ParsePointer accepts is
// rebuilt exactly by Pointer, and that Pointer's output always parses
// back to its tokens.
func FuzzParsePointer(f *testing.F) {
	for _, s := range []string{"", "/", "/a~1b", "/~01", "/a/", "a", "/~", "/~2", "//~0~1/-/0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		segs, err := ParsePointer(p)
		if err == nil {
			if back := Pointer(segs...); back != p {
				t.Fatalf("Pointer(ParsePointer(%q)) = %q", p, back)
			}
		}
		// Any string is a valid token.
		tokens := []string{p, "x", p}
		back, err := ParsePointer(Pointer(tokens...))
		if err != nil {
			t.Fatalf("ParsePointer(Pointer(%q)): %v", tokens, err)
		}
		if diff := cmp.Diff(tokens, back); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}
