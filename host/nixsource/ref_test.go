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
