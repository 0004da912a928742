package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/adapters/terraform"
	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

func tfProviderForTest(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(testbin.ModuleRoot(), "bin", "tfproviders", name)
	testneed.File(t, p, "run make tfproviders (.ci/setup.d/30-tfproviders.sh)")
	return p
}

func TestTFSchema(t *testing.T) {
	t.Parallel()
	plugin := tfProviderForTest(t, "terraform-provider-fixture")
	cases := map[string]struct {
		json  bool
		check func(t *testing.T, out string)
	}{
		"text": {false, func(t *testing.T, out string) {
			for _, want := range []string{
				"(plugin protocol 6)",
				"resource type fixture_file (schema version 1)",
				"data source data-source-fixture_echo",
				"token",
				"required, sensitive",
				"ports.*.number",
				"set block",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		}},
		"json": {true, func(t *testing.T, out string) {
			var doc struct {
				MessageType string `json:"message_type"`
				terraform.SchemaInfo
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("decode: %v\n%s", err, out)
			}
			if doc.MessageType != "tf_schema" || doc.ProtocolVersion != 6 {
				t.Errorf("message_type %q protocol %d", doc.MessageType, doc.ProtocolVersion)
			}
			found := false
			for _, rt := range doc.ResourceTypes {
				for _, a := range rt.Attributes {
					if rt.Name == "fixture_file" && a.Path == "metadata.api_key" {
						found = a.Sensitive && a.Optional && a.Type == "string"
					}
				}
			}
			if !found {
				t.Errorf("fixture_file metadata.api_key is not listed as an optional sensitive string")
			}
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			if err := runTFSchema(t.Context(), tfSchemaOptions{plugin: plugin, json: tc.json}, &stdout, &stderr); err != nil {
				t.Fatalf("runTFSchema: %v\n%s", err, stderr.String())
			}
			tc.check(t, stdout.String())
		})
	}
}

func TestTFSchemaMissingPlugin(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	err := runTFSchema(t.Context(), tfSchemaOptions{plugin: filepath.Join(t.TempDir(), "terraform-provider-absent")}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "terraform-provider-absent") {
		t.Errorf("err = %v, want one naming the provider", err)
	}
}
