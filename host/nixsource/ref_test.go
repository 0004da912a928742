package nixsource

import (
	"os"
	"path/filepath"
	"testing"
)

func TestInstallable(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	parent := filepath.Dir(wd)
	cases := map[string]struct {
		ref     string
		want    string
		wantErr bool
	}{
		"dot":                  {ref: ".", want: wd + "#nixops4"},
		"relative with attr":   {ref: "../x#deploy", want: parent + "/x#deploy"},
		"absolute":             {ref: "/srv/flake", want: "/srv/flake#nixops4"},
		"empty attr":           {ref: "/srv/flake#", want: "/srv/flake#nixops4"},
		"path scheme relative": {ref: "path:./sub#a.b", want: "path:" + wd + "/sub#a.b"},
		"path scheme query":    {ref: "path:/srv/f?narHash=x", want: "path:/srv/f?narHash=x#nixops4"},
		"git file relative":    {ref: "git+file:.", want: "git+file://" + wd + "#nixops4"},
		"git file absolute":    {ref: "git+file:///repo?ref=main#d", want: "git+file:///repo?ref=main#d"},
		"remote unchanged":     {ref: "github:o/r#d", want: "github:o/r#d"},
		"empty":                {ref: "", wantErr: true},
		"attr only":            {ref: "#d", wantErr: true},
		"path scheme no path":  {ref: "path:", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := installable(tc.ref)
			if (err != nil) != tc.wantErr {
				t.Fatalf("installable(%q) error = %v, wantErr %v", tc.ref, err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("installable(%q) = %q, want %q", tc.ref, got, tc.want)
			}
		})
	}
}

func TestFlakeDir(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct{ ref, want string }{
		"dot":              {ref: ".", want: wd},
		"relative":         {ref: "./examples/flake#x", want: filepath.Join(wd, "examples/flake")},
		"path scheme":      {ref: "path:/srv/f?narHash=x", want: "/srv/f"},
		"git subdirectory": {ref: "git+file:///repo?dir=examples/flake", want: "/repo/examples/flake"},
		"path with dir":    {ref: "path:/repo?dir=a&ref=b#d", want: "/repo/a"},
		"remote":           {ref: "github:o/r?dir=x", want: ""},
		"indirect":         {ref: "nixpkgs#hello", want: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := New(tc.ref, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Dir(); got != tc.want {
				t.Errorf("New(%q).Dir() = %q, want %q", tc.ref, got, tc.want)
			}
		})
	}
}
