package terraform_test

import (
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/schema"
)

// These tests drive testdata/tfproviders/fixturesdk (plugin protocol 5,
// terraform-plugin-sdk/v2, legacy type system): blocks expressed as lists
// and sets, ForceNew, a StateUpgrader, passthrough import, a data source.

func fixtureSDK(t *testing.T) (b *bridge, root string) {
	t.Helper()
	bin := providerBin(t, "terraform-provider-fixturesdk")
	root = t.TempDir()
	token := "tok-" + rand.Text()
	b = startBridge(t, bin, bridgeOpts{
		config: map[string]any{"root": root, "token": token},
		env:    []string{"FIXTURE_EXPECTED_TOKEN=" + token},
	})
	t.Cleanup(func() {
		if strings.Contains(b.stderr.String(), token) {
			t.Errorf("the provider token appears on the bridge's stderr")
		}
	})
	return b, root
}

func dirInputs(name, content string) schema.Properties {
	return schema.Properties{
		"name":     name,
		"file":     []any{map[string]any{"name": "a", "content": content}, map[string]any{"name": "b", "content": "B", "mode": "0600"}},
		"link":     []any{map[string]any{"name": "l", "target": "a"}},
		"manifest": []any{map[string]any{"format": "json"}},
		"labels":   map[string]any{"team": "infra"},
		"secret":   "s3",
	}
}

func TestFixtureSDKDirLifecycle(t *testing.T) {
	t.Parallel()
	b, root := fixtureSDK(t)
	in := dirInputs("d", "A")
	out := ok(t, b.create("fixturesdk_dir", in)).CreateResourceResponse.OutputProperties
	if got := readFile(t, filepath.Join(root, "d", "a")); got != "A" {
		t.Errorf("d/a = %q", got)
	}
	if got := readFile(t, filepath.Join(root, "d", "MANIFEST")); got != `["a","b","l"]` {
		t.Errorf("manifest = %q", got)
	}
	if target, err := os.Readlink(filepath.Join(root, "d", "l")); err != nil || target != "a" {
		t.Errorf("link l -> %q (%v)", target, err)
	}
	if out["id"] != "d" || out["file_count"] != json.Number("2") || out["mode"] != "0755" {
		t.Errorf("outputs: id %v file_count %v mode %v", out["id"], out["file_count"], out["mode"])
	}
	wantManifest := []any{map[string]any{"name": "MANIFEST", "format": "json"}}
	if diff := cmp.Diff(wantManifest, out["manifest"]); diff != "" {
		t.Errorf("manifest block with defaults (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"secret"}, tfMeta(t, out)["sensitive_paths"]); diff != "" {
		t.Errorf("sensitive_paths (-want +got):\n%s", diff)
	}
	if strings.Contains(b.stderr.String(), "s3") {
		t.Errorf("the sensitive secret appears on stderr")
	}

	same := ok(t, b.update("fixturesdk_dir", in, out, in)).UpdateResourceResponse.OutputProperties
	if diff := cmp.Diff(out, same); diff != "" {
		t.Errorf("no-op update changed outputs (-want +got):\n%s", diff)
	}

	in2 := dirInputs("d", "A2")
	upd := ok(t, b.update("fixturesdk_dir", in, same, in2)).UpdateResourceResponse.OutputProperties
	if got := readFile(t, filepath.Join(root, "d", "a")); got != "A2" {
		t.Errorf("d/a after update = %q", got)
	}
	if upd["content_sha256"] == out["content_sha256"] {
		t.Errorf("content_sha256 did not change with the content")
	}
	if strings.Contains(b.stderr.String(), "replacing") {
		t.Errorf("content change replaced the directory")
	}

	// A new name replaces: the update refuses it, and the engine's
	// destroy and create carry it out.
	in3 := dirInputs("e", "A2")
	if msg := failure(t, b.update("fixturesdk_dir", in2, upd, in3)); !strings.Contains(msg, "name forces a new object") {
		t.Errorf("refused update: %s", msg)
	}
	if got := readFile(t, filepath.Join(root, "d", "a")); got != "A2" {
		t.Errorf("d/a after the refused update = %q", got)
	}
	ok(t, b.destroy("fixturesdk_dir", in2, upd))
	repl := ok(t, b.create("fixturesdk_dir", in3)).CreateResourceResponse.OutputProperties
	if _, err := os.Stat(filepath.Join(root, "d")); !os.IsNotExist(err) {
		t.Errorf("old directory survives replacement: %v", err)
	}
	if repl["id"] != "e" {
		t.Errorf("id after replacement = %v", repl["id"])
	}

	read := ok(t, b.read("fixturesdk_dir", in3, repl)).ReadResourceResponse
	if !read.Exists || read.OutputProperties["file_count"] != json.Number("2") {
		t.Errorf("read: %+v", read)
	}

	ok(t, b.destroy("fixturesdk_dir", in3, repl))
	if _, err := os.Stat(filepath.Join(root, "e")); !os.IsNotExist(err) {
		t.Errorf("directory survives destroy: %v", err)
	}
	if gone := ok(t, b.read("fixturesdk_dir", in3, repl)).ReadResourceResponse; gone.Exists {
		t.Errorf("read after destroy: exists = true")
	}
}

func TestFixtureSDKUpgradeAndImport(t *testing.T) {
	t.Parallel()
	b, root := fixtureSDK(t)
	if err := os.MkdirAll(filepath.Join(root, "old"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "old", "x"), []byte("X"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Version 0 called name "path" and kept files in a map.
	v0 := schema.Properties{
		"id": "old", "path": "old", "mode": "0755", "files": map[string]any{"x": "X"},
		"__tf": map[string]any{"schema_version": 0},
	}
	in := schema.Properties{"name": "old", "file": []any{map[string]any{"name": "x", "content": "Y"}}}
	out := ok(t, b.update("fixturesdk_dir", schema.Properties{"path": "old"}, v0, in)).UpdateResourceResponse.OutputProperties
	if got := readFile(t, filepath.Join(root, "old", "x")); got != "Y" {
		t.Errorf("old/x = %q, want Y", got)
	}
	if out["name"] != "old" || tfMeta(t, out)["schema_version"] != json.Number("1") {
		t.Errorf("upgraded outputs: name %v __tf %v", out["name"], out["__tf"])
	}

	imp := ok(t, b.importResource("fixturesdk_dir", "old")).ImportResourceResponse
	if imp.OutputProperties["name"] != "old" || imp.OutputProperties["file_count"] != json.Number("1") {
		t.Errorf("imported outputs: %v", imp.OutputProperties)
	}
	if imp.InputProperties["name"] != "old" {
		t.Errorf("imported inputs: %v", imp.InputProperties)
	}

	list := ok(t, b.create("data-source-fixturesdk_listing", schema.Properties{"name": "old"})).CreateResourceResponse.OutputProperties
	if diff := cmp.Diff([]any{"x"}, list["files"]); diff != "" {
		t.Errorf("listing files (-want +got):\n%s", diff)
	}
}
