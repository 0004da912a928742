package tfschema

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

func fixturePlugin(t *testing.T) string {
	t.Helper()
	p := filepath.Join(testbin.ModuleRoot(), "bin", "tfproviders", "terraform-provider-fixture")
	testneed.File(t, p, "run make tfproviders (.ci/setup.d/30-tfproviders.sh)")
	return p
}

// TestFetcher runs the real `pier tf schema` against the fixture provider:
// concurrent callers share one run, and later calls hit the cache.
func TestFetcher(t *testing.T) {
	t.Parallel()
	plugin := fixturePlugin(t)
	f := &Fetcher{Pier: testbin.Pier(t), Dir: t.TempDir()}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	})
	// Started in the background first: the callers wait for that start.
	f.Start(plugin, nil)
	var wg sync.WaitGroup
	schemas := make([]*Schema, 4)
	for i := range schemas {
		wg.Go(func() {
			s, err := f.Schema(t.Context(), plugin, nil)
			if err != nil {
				t.Error(err)
			}
			schemas[i] = s
		})
	}
	wg.Wait()
	if n := f.Fetches(); n != 1 {
		t.Errorf("%d schema runs for one plugin, want 1", n)
	}
	for _, s := range schemas[1:] {
		if s != schemas[0] {
			t.Fatal("concurrent callers got different schemas")
		}
	}
	s := schemas[0]
	if s == nil || s.Types["fixture_file"] == nil || s.Types["data-source-fixture_echo"] == nil {
		t.Fatalf("schema lacks fixture_file or data-source-fixture_echo: %v", s)
	}
	got := s.Types["fixture_file"].Check(map[string]any{"path": "a", "metadata": map[string]any{"apikey": "k"}})
	if len(got) != 1 || got[0].Attribute() != "metadata.apikey" || got[0].Suggestion != "api_key" {
		t.Errorf("Check against the real schema = %+v", got)
	}
}

func TestFetcherErrors(t *testing.T) {
	t.Parallel()
	pier := testbin.Pier(t)
	dir := t.TempDir()
	notPlugin := filepath.Join(dir, "not-a-plugin")
	testbin.WriteExecutable(t, notPlugin, []byte("#!/bin/sh\necho 'this is not a terraform provider' >&2\nexit 3\n"), 0o755)
	tests := map[string]struct {
		pier, plugin string
		want         []string
	}{
		"missing plugin": {pier, filepath.Join(dir, "absent"), []string{"read the schema of Terraform provider " + filepath.Join(dir, "absent"), "exit status 1"}},
		"not a plugin":   {pier, notPlugin, []string{"read the schema of Terraform provider " + notPlugin, "exit status 1"}},
		"missing pier":   {filepath.Join(dir, "no-pier"), notPlugin, []string{"read the schema of Terraform provider " + notPlugin, "no-pier"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// Started first (Fetcher.Start) or not, the failure is the same.
			for _, start := range []bool{false, true} {
				f := &Fetcher{Pier: tc.pier, Dir: dir}
				if start {
					f.Start(tc.plugin, nil)
					f.Start(tc.plugin, nil) // finds the first
				}
				for range 2 { // the failure is remembered, not retried
					_, err := f.Schema(t.Context(), tc.plugin, nil)
					if err == nil {
						t.Fatal("no error")
					}
					for _, w := range tc.want {
						if !strings.Contains(err.Error(), w) {
							t.Errorf("start %v: error %q lacks %q", start, err, w)
						}
					}
				}
				if n := f.Fetches(); n != 1 {
					t.Errorf("start %v: %d runs, want 1", start, n)
				}
			}
		})
	}
}
