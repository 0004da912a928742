package terraform_test

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/schema"
)

// These tests drive testdata/tfproviders/fixture (plugin protocol 6,
// terraform-plugin-framework), which covers every schema feature.

// fixture starts a bridge for the fixture provider with a fresh root and a
// random token the provider is told to expect.
func fixture(t *testing.T) (b *bridge, root, token string) {
	t.Helper()
	bin := providerBin(t, "terraform-provider-fixture")
	root = t.TempDir()
	token = "tok-" + rand.Text()
	b = startBridge(t, bin, bridgeOpts{
		config: map[string]any{"root": root, "token": token},
		env:    []string{"FIXTURE_EXPECTED_TOKEN=" + token},
	})
	t.Cleanup(func() {
		if strings.Contains(b.stderr.String(), token) {
			t.Errorf("the provider token appears on the bridge's stderr")
		}
	})
	return b, root, token
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// fullInputs sets every kind of attribute and block fixture_file has.
func fullInputs(path, content string) schema.Properties {
	return schema.Properties{
		"path":    path,
		"content": content,
		"metadata": map[string]any{
			"owner": "ops", "labels": map[string]any{"tier": "web"}, "api_key": "k-123",
		},
		"rules":   []any{map[string]any{"name": "r1", "allow": true}, map[string]any{"name": "r2"}},
		"aliases": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}},
		"ports":   map[string]any{"http": map[string]any{"number": 80, "protocol": "tcp"}},
		"extra":   map[string]any{"list": []any{1, "two", true}, "n": 1.5},
		"header":  map[string]any{"text": "hello"},
		"section": []any{map[string]any{"title": "t1", "body": "b1"}},
		"tag":     []any{map[string]any{"key": "env", "value": "prod"}},
	}
}

// normalize round-trips a value through JSON with exact numbers, the way
// outputs arrive.
func normalize(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFixtureFileLifecycle(t *testing.T) {
	t.Parallel()
	b, root, _ := fixture(t)
	in := fullInputs("a.txt", "one")

	out := ok(t, b.create("fixture_file", in)).CreateResourceResponse.OutputProperties
	if got := readFile(t, filepath.Join(root, "a.txt")); got != "one" {
		t.Errorf("file content %q, want one", got)
	}
	want := map[string]any{
		"id": "a.txt", "path": "a.txt", "content": "one", "sensitive_content": nil,
		"mode": "0644", "content_sha256": sha("one"),
	}
	for k, v := range want {
		if diff := cmp.Diff(v, out[k]); diff != "" {
			t.Errorf("output %s (-want +got):\n%s", k, diff)
		}
	}
	// Nested attributes, blocks and the dynamic attribute come back as given
	// (sets in the provider's order, absent optional attributes as null).
	for _, k := range []string{"metadata", "rules", "ports", "extra", "header", "section"} {
		wantV := normalize(t, in[k])
		if k == "rules" {
			wantV = normalize(t, []any{map[string]any{"name": "r1", "allow": true}, map[string]any{"name": "r2", "allow": nil}})
		}
		if diff := cmp.Diff(wantV, out[k]); diff != "" {
			t.Errorf("output %s (-want +got):\n%s", k, diff)
		}
	}
	meta := tfMeta(t, out)
	if meta["schema_version"] != json.Number("1") {
		t.Errorf("__tf.schema_version = %v, want 1", meta["schema_version"])
	}
	// The framework wraps provider keys: {"fixture": base64(value)}.
	priv, err := base64.StdEncoding.DecodeString(str(t, meta, "private"))
	var keys map[string][]byte
	if err == nil {
		err = json.Unmarshal(priv, &keys)
	}
	if err != nil || !strings.Contains(string(keys["fixture"]), "fixture-private-v1") {
		t.Errorf("__tf.private = %q (%v), want the provider's private state", priv, err)
	}
	wantSensitive := []any{"metadata.api_key", "sensitive_content"}
	if diff := cmp.Diff(wantSensitive, meta["sensitive_paths"]); diff != "" {
		t.Errorf("__tf.sensitive_paths (-want +got):\n%s", diff)
	}

	// No change: the provider is not asked to apply, outputs stay byte-equal.
	same := ok(t, b.update("fixture_file", in, out, in)).UpdateResourceResponse.OutputProperties
	if diff := cmp.Diff(out, same); diff != "" {
		t.Errorf("no-op update changed outputs (-want +got):\n%s", diff)
	}

	// Content and mode change in place; the provider checks that the private
	// bytes came back unchanged, and fails the update otherwise.
	in2 := fullInputs("a.txt", "two")
	in2["mode"] = "0600"
	upd := ok(t, b.update("fixture_file", in, same, in2)).UpdateResourceResponse.OutputProperties
	if got := readFile(t, filepath.Join(root, "a.txt")); got != "two" {
		t.Errorf("file content after update %q, want two", got)
	}
	if upd["content_sha256"] != sha("two") || upd["mode"] != "0600" {
		t.Errorf("outputs after update: sha %v mode %v", upd["content_sha256"], upd["mode"])
	}
	if tfMeta(t, upd)["private"] != meta["private"] {
		t.Errorf("private changed across an in-place update: %v, was %v", tfMeta(t, upd)["private"], meta["private"])
	}
	if strings.Contains(b.stderr.String(), "replacing") {
		t.Errorf("in-place update replaced the file")
	}

	// A new path forces replacement, which an update refuses, touching
	// nothing; the engine replaces with a destroy and a create instead.
	in3 := fullInputs("b.txt", "two")
	if msg := failure(t, b.update("fixture_file", in2, upd, in3)); !strings.Contains(msg, "path forces a new object") {
		t.Errorf("refused update: %s", msg)
	}
	if got := readFile(t, filepath.Join(root, "a.txt")); got != "two" {
		t.Errorf("a.txt after the refused update: %q", got)
	}
	preview := ok(t, b.preview("fixture_file", in2, upd, in3)).PreviewResourceResponse
	if diff := cmp.Diff([]string{"path"}, preview.ReplaceReasons); !preview.Replace || diff != "" {
		t.Errorf("preview: replace %v, reasons (-want +got):\n%s", preview.Replace, diff)
	}
	ok(t, b.destroy("fixture_file", in2, upd))
	repl := ok(t, b.create("fixture_file", in3)).CreateResourceResponse.OutputProperties
	if _, err := os.Stat(filepath.Join(root, "a.txt")); !os.IsNotExist(err) {
		t.Errorf("a.txt survives its replacement: %v", err)
	}
	if got := readFile(t, filepath.Join(root, "b.txt")); got != "two" {
		t.Errorf("b.txt content %q", got)
	}
	if repl["id"] != "b.txt" {
		t.Errorf("id after replace = %v", repl["id"])
	}

	// Drift: the file deleted behind the bridge's back reads as gone.
	read := ok(t, b.read("fixture_file", in3, repl)).ReadResourceResponse
	if !read.Exists {
		t.Fatalf("read: exists = false before deletion")
	}
	if err := os.Remove(filepath.Join(root, "b.txt")); err != nil {
		t.Fatal(err)
	}
	if gone := ok(t, b.read("fixture_file", in3, repl)).ReadResourceResponse; gone.Exists {
		t.Errorf("read after deletion: exists = true")
	}

	// Destroy of an object that exists removes it.
	out4 := ok(t, b.create("fixture_file", fullInputs("c.txt", "x"))).CreateResourceResponse.OutputProperties
	ok(t, b.destroy("fixture_file", fullInputs("c.txt", "x"), out4))
	if _, err := os.Stat(filepath.Join(root, "c.txt")); !os.IsNotExist(err) {
		t.Errorf("c.txt survives destroy: %v", err)
	}
}

// TestFixturePreviewDiagnostics: the provider's own validation fails a
// create's preview with diagnostics that name the attribute, and creates
// nothing.
func TestFixturePreviewDiagnostics(t *testing.T) {
	t.Parallel()
	b, root, _ := fixture(t)
	in := fullInputs("p.txt", "x")
	in["mode"] = "rwx"
	got := ok(t, b.previewCreate("fixture_file", in)).PreviewResourceResponse
	if len(got.Diagnostics) != 1 {
		t.Fatalf("diagnostics: %+v", got.Diagnostics)
	}
	d := got.Diagnostics[0]
	if d.Severity != schema.SeverityError || d.Summary != "Invalid mode" || d.Attribute.String() != "mode" {
		t.Errorf("diagnostic: %+v", d)
	}
	if _, err := os.Stat(filepath.Join(root, "p.txt")); !os.IsNotExist(err) {
		t.Errorf("a preview created the file: %v", err)
	}
}

func TestFixtureSensitiveContent(t *testing.T) {
	t.Parallel()
	b, root, _ := fixture(t)
	secret := "secret-" + rand.Text()
	in := schema.Properties{"path": "s.txt", "sensitive_content": secret}
	out := ok(t, b.create("fixture_file", in)).CreateResourceResponse.OutputProperties
	if got := readFile(t, filepath.Join(root, "s.txt")); got != secret {
		t.Errorf("file content %q", got)
	}
	if out["sensitive_content"] != secret {
		t.Errorf("sensitive_content output missing: outputs are the whole state")
	}
	if strings.Contains(b.stderr.String(), secret) {
		t.Errorf("a sensitive value appears on stderr")
	}
}

func TestFixtureSchemaUpgrade(t *testing.T) {
	t.Parallel()
	b, root, _ := fixture(t)
	// Create the object to learn the private bytes the provider insists on,
	// then record it the way schema version 0 stored it.
	created := ok(t, b.create("fixture_file", schema.Properties{"path": "old.txt", "content": "x"})).CreateResourceResponse.OutputProperties
	v0 := schema.Properties{
		"id": "old.txt", "filename": "old.txt", "content": "x", "mode": nil,
		"__tf": map[string]any{"schema_version": 0, "private": tfMeta(t, created)["private"]},
	}
	in := schema.Properties{"path": "old.txt", "content": "y"}
	out := ok(t, b.update("fixture_file", schema.Properties{"filename": "old.txt", "content": "x"}, v0, in)).UpdateResourceResponse.OutputProperties
	if got := readFile(t, filepath.Join(root, "old.txt")); got != "y" {
		t.Errorf("file content %q, want y", got)
	}
	if out["path"] != "old.txt" || out["mode"] != "0644" || out["content_sha256"] != sha("y") {
		t.Errorf("upgraded outputs: %v", out)
	}
	if tfMeta(t, out)["schema_version"] != json.Number("1") {
		t.Errorf("schema_version after upgrade = %v", tfMeta(t, out)["schema_version"])
	}
	if strings.Contains(b.stderr.String(), "replacing") {
		t.Errorf("upgrade led to a replacement")
	}
}

func TestFixtureImport(t *testing.T) {
	t.Parallel()
	b, root, _ := fixture(t)
	if err := os.WriteFile(filepath.Join(root, "found.txt"), []byte("adopted"), 0o640); err != nil {
		t.Fatal(err)
	}
	resp := ok(t, b.importResource("fixture_file", "found.txt")).ImportResourceResponse
	if resp.OutputProperties["content"] != "adopted" || resp.OutputProperties["mode"] != "0640" {
		t.Errorf("imported outputs: %v", resp.OutputProperties)
	}
	wantIn := schema.Properties{"path": "found.txt", "content": "adopted", "mode": "0640"}
	if diff := cmp.Diff(wantIn, resp.InputProperties); diff != "" {
		t.Errorf("imported inputs (-want +got):\n%s", diff)
	}
	// The adopted object updates like any other, private state included.
	in := schema.Properties{"path": "found.txt", "content": "changed", "mode": "0640"}
	ok(t, b.update("fixture_file", resp.InputProperties, resp.OutputProperties, in))
	if got := readFile(t, filepath.Join(root, "found.txt")); got != "changed" {
		t.Errorf("content after update %q", got)
	}

	msg := failure(t, b.importResource("fixture_file", "missing.txt"))
	if !strings.Contains(msg, `found no fixture_file with id "missing.txt"`) {
		t.Errorf("import of a missing file: %q", msg)
	}
}

func TestFixtureDataSources(t *testing.T) {
	t.Parallel()
	b, root, _ := fixture(t)
	input := map[string]any{"list": []any{1, "a"}, "obj": map[string]any{"k": true}}
	resp := ok(t, b.send(schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
		Type: "data-source-fixture_echo", InputProperties: schema.Properties{"input": input, "sensitive_input": "hush"}, IsStateful: false,
	}}))
	out := resp.CreateResourceResponse.OutputProperties
	if diff := cmp.Diff(normalize(t, input), out["output"]); diff != "" {
		t.Errorf("echo output (-want +got):\n%s", diff)
	}
	if out["sensitive_output"] != "hush" {
		t.Errorf("sensitive_output = %v", out["sensitive_output"])
	}
	if diff := cmp.Diff([]any{"sensitive_input", "sensitive_output"}, tfMeta(t, out)["sensitive_paths"]); diff != "" {
		t.Errorf("sensitive_paths (-want +got):\n%s", diff)
	}

	if err := os.WriteFile(filepath.Join(root, "d.txt"), []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := ok(t, b.create("data-source-fixture_file", schema.Properties{"path": "d.txt"})).CreateResourceResponse.OutputProperties
	if file["content"] != "data" || file["size"] != json.Number("4") {
		t.Errorf("fixture_file data source: %v", file)
	}
	// Data sources are read again on update.
	if err := os.WriteFile(filepath.Join(root, "d.txt"), []byte("newer"), 0o644); err != nil {
		t.Fatal(err)
	}
	again := ok(t, b.update("data-source-fixture_file", schema.Properties{"path": "d.txt"}, file, schema.Properties{"path": "d.txt"})).UpdateResourceResponse.OutputProperties
	if again["content"] != "newer" {
		t.Errorf("data source update did not read again: %v", again)
	}

	msg := failure(t, b.create("fixture_echo", schema.Properties{"input": 1}))
	if !strings.Contains(msg, `use type "data-source-fixture_echo"`) {
		t.Errorf("data source used as a resource type: %q", msg)
	}
}

func TestFixtureConfigErrors(t *testing.T) {
	t.Parallel()
	bin := providerBin(t, "terraform-provider-fixture")
	token := "tok-" + rand.Text()
	cases := map[string]struct {
		config map[string]any
		want   []string
	}{
		"missing token": {map[string]any{"root": t.TempDir()}, []string{"terraform-provider-fixture", "configuration", "attribute token: is required"}},
		"wrong token":   {map[string]any{"root": t.TempDir(), "token": "wrong-" + token}, []string{"configure provider", "Invalid provider token", "(at attribute token)"}},
		"unknown key":   {map[string]any{"root": t.TempDir(), "token": token, "region": "x"}, []string{"attribute region: is not in the schema"}},
		"no config":     {nil, []string{"attribute root: is required"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := bridgeOpts{env: []string{"FIXTURE_EXPECTED_TOKEN=" + token}}
			if tc.config != nil {
				o.config = tc.config
			}
			b := startBridge(t, bin, o)
			msg := failure(t, b.create("fixture_file", schema.Properties{"path": "a", "content": "x"}))
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not mention %q", msg, w)
				}
			}
			if strings.Contains(msg, token) || strings.Contains(b.stderr.String(), token) {
				t.Errorf("the token leaked into an error or log")
			}
			// The failure sticks: the next request reports the same cause.
			if again := failure(t, b.create("fixture_file", schema.Properties{"path": "a", "content": "x"})); again != msg {
				t.Errorf("second request: %q, first: %q", again, msg)
			}
		})
	}
}

func TestFixtureResourceErrors(t *testing.T) {
	t.Parallel()
	b, _, _ := fixture(t)
	cases := []struct {
		name string
		in   schema.Properties
		want []string
	}{
		{"missing required", schema.Properties{"content": "x"}, []string{"attribute path: is required"}},
		{"nested required", schema.Properties{"path": "p", "content": "x", "rules": []any{map[string]any{"allow": true}}}, []string{"attribute rules[0].name: is required"}},
		{"nested unknown", schema.Properties{"path": "p", "content": "x", "metadata": map[string]any{"colour": "red"}}, []string{"attribute metadata.colour: is not in the schema"}},
		{"block wrong shape", schema.Properties{"path": "p", "content": "x", "section": map[string]any{}}, []string{"attribute section: must be an array"}},
		{"nested type", schema.Properties{"path": "p", "content": "x", "ports": map[string]any{"h": map[string]any{"number": "eighty"}}}, []string{`attribute ports["h"].number`, "must be number"}},
		{"provider validation", schema.Properties{"path": "p", "content": "x", "sensitive_content": "y"}, []string{"validate resource type config", "Invalid content", "(at attribute content)"}},
	}
	for _, tc := range cases {
		msg := failure(t, b.create("fixture_file", tc.in))
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q does not mention %q", tc.name, msg, w)
			}
		}
	}
}

func TestFixtureConfigNotJSON(t *testing.T) {
	t.Parallel()
	bin := providerBin(t, "terraform-provider-fixture")
	b := startBridge(t, bin, bridgeOpts{rawConfig: []byte(`{"token": hunter2}`)})
	if code := b.exitCode(); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	logs := b.stderr.String()
	if !strings.Contains(logs, "read provider configuration: not a JSON object (syntax error at byte") {
		t.Errorf("stderr does not explain the bad configuration:\n%s", logs)
	}
	if strings.Contains(logs, "hunter2") {
		t.Errorf("the configuration's content appears on stderr")
	}
}
