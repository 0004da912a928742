package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func openTestRoot(t *testing.T) (*os.Root, string) {
	t.Helper()
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, dir
}

func TestValidateSpec(t *testing.T) {
	t.Parallel()
	ok := func() dirSpec {
		return dirSpec{Name: "d", Mode: "0755", Files: []fileSpec{{Name: "a", Mode: "0644"}}, Links: []linkSpec{{Name: "l", Target: "a"}}}
	}
	tests := map[string]struct {
		edit    func(*dirSpec)
		wantErr bool
	}{
		"valid":            {edit: func(*dirSpec) {}},
		"nested name":      {edit: func(s *dirSpec) { s.Name = "x/y" }},
		"escaping name":    {edit: func(s *dirSpec) { s.Name = "../d" }, wantErr: true},
		"absolute name":    {edit: func(s *dirSpec) { s.Name = "/d" }, wantErr: true},
		"bad mode":         {edit: func(s *dirSpec) { s.Mode = "rwx" }, wantErr: true},
		"bad file mode":    {edit: func(s *dirSpec) { s.Files[0].Mode = "9" }, wantErr: true},
		"file with slash":  {edit: func(s *dirSpec) { s.Files[0].Name = "a/b" }, wantErr: true},
		"reserved name":    {edit: func(s *dirSpec) { s.Files[0].Name = secretFile }, wantErr: true},
		"file and link":    {edit: func(s *dirSpec) { s.Links[0].Name = "a" }, wantErr: true},
		"manifest clashes": {edit: func(s *dirSpec) { s.Manifest = &manifestSpec{Name: "a", Format: "lines"} }, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := ok()
			tc.edit(&s)
			if err := s.validate(); (err != nil) != tc.wantErr {
				t.Fatalf("validate() = %v, want error %v", err, tc.wantErr)
			}
		})
	}
}

func TestApplyReadDir(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		spec         dirSpec
		wantManifest string // "" when there is no manifest
	}{
		"empty": {spec: dirSpec{Name: "e", Mode: "0700"}},
		"files links manifest secret": {
			spec: dirSpec{
				Name:     "x/d",
				Mode:     "0750",
				Files:    []fileSpec{{Name: "b", Content: "B\n", Mode: "0600"}, {Name: "a", Content: "A\n", Mode: "0644"}},
				Links:    []linkSpec{{Name: "l", Target: "a"}},
				Manifest: &manifestSpec{Name: "MANIFEST", Format: "lines"},
				Secret:   "s3cr3t",
			},
			wantManifest: "a\nb\nl\n",
		},
		"json manifest": {
			spec: dirSpec{
				Name: "j", Mode: "0755",
				Files:    []fileSpec{{Name: "only", Content: "", Mode: "0644"}},
				Manifest: &manifestSpec{Name: "index.json", Format: "json"},
			},
			wantManifest: `["only"]`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root, dir := openTestRoot(t)
			if err := applyDir(root, tc.spec); err != nil {
				t.Fatalf("applyDir: %v", err)
			}
			if tc.spec.Manifest != nil {
				b, err := os.ReadFile(filepath.Join(dir, tc.spec.Name, tc.spec.Manifest.Name))
				if err != nil || string(b) != tc.wantManifest {
					t.Errorf("manifest = %q, %v; want %q", b, err, tc.wantManifest)
				}
			}
			if tc.spec.Secret != "" {
				st, err := os.Stat(filepath.Join(dir, tc.spec.Name, secretFile))
				if err != nil || st.Mode().Perm() != 0o600 {
					t.Errorf("secret file mode = %v, %v; want 0600", st.Mode(), err)
				}
			}
			got, found, err := readDir(root, tc.spec.Name, tc.spec.Manifest)
			if err != nil || !found {
				t.Fatalf("readDir: found %v, %v", found, err)
			}
			var order []string
			for _, f := range tc.spec.Files {
				order = append(order, f.Name)
			}
			orderLike(got.Files, order)
			if diff := cmp.Diff(tc.spec, got); diff != "" {
				t.Errorf("read back (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyDirConverges(t *testing.T) {
	t.Parallel()
	root, dir := openTestRoot(t)
	first := dirSpec{Name: "d", Mode: "0755",
		Files: []fileSpec{{Name: "keep", Content: "1", Mode: "0644"}, {Name: "drop", Content: "2", Mode: "0644"}},
		Links: []linkSpec{{Name: "l", Target: "keep"}}, Secret: "x"}
	if err := applyDir(root, first); err != nil {
		t.Fatal(err)
	}
	// Someone edits the directory behind the provider's back.
	if err := os.WriteFile(filepath.Join(dir, "d", "stray"), []byte("?"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "d", "keep"), []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	drift, _, err := readDir(root, "d", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantDrift := []fileSpec{{Name: "drop", Content: "2", Mode: "0644"}, {Name: "keep", Content: "edited", Mode: "0644"}, {Name: "stray", Content: "?", Mode: "0644"}}
	if diff := cmp.Diff(wantDrift, drift.Files); diff != "" {
		t.Errorf("read after edits (-want +got):\n%s", diff)
	}

	second := dirSpec{Name: "d", Mode: "0700",
		Files: []fileSpec{{Name: "keep", Content: "1", Mode: "0600"}},
		Links: []linkSpec{{Name: "l", Target: "elsewhere"}}}
	if err := applyDir(root, second); err != nil {
		t.Fatal(err)
	}
	got, found, err := readDir(root, "d", nil)
	if err != nil || !found {
		t.Fatalf("readDir: %v %v", found, err)
	}
	if diff := cmp.Diff(second, got); diff != "" {
		t.Errorf("after second apply (-want +got):\n%s", diff)
	}

	if err := root.RemoveAll("d"); err != nil {
		t.Fatal(err)
	}
	if _, found, err := readDir(root, "d", nil); err != nil || found {
		t.Errorf("readDir of removed dir: found %v, %v; want gone without error", found, err)
	}
}

func TestFilesHashIgnoresOrder(t *testing.T) {
	t.Parallel()
	a := []fileSpec{{Name: "a", Content: "1"}, {Name: "b", Content: "2"}}
	b := []fileSpec{{Name: "b", Content: "2"}, {Name: "a", Content: "1"}}
	if filesHash(a) != filesHash(b) {
		t.Error("hash depends on block order")
	}
	// Length prefixes keep name/content boundaries apart.
	c := []fileSpec{{Name: "ab", Content: ""}}
	d := []fileSpec{{Name: "a", Content: "b"}}
	if filesHash(c) == filesHash(d) {
		t.Error("hash confuses name and content boundaries")
	}
}
