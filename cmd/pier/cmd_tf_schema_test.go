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

// TestTerraformFormatSchema reads real providers' schemas in the format
// of `terraform providers schema -json` and decodes them as a tool built
// for that format would: time v0.14.2 (protocol 5, with functions) and
// the fixture provider (protocol 6: nested attributes, nested blocks).
func TestTerraformFormatSchema(t *testing.T) {
	t.Parallel()
	type attr struct {
		Type       json.RawMessage `json:"type"`
		NestedType *struct {
			NestingMode string                     `json:"nesting_mode"`
			Attributes  map[string]json.RawMessage `json:"attributes"`
		} `json:"nested_type"`
		DescriptionKind string `json:"description_kind"`
		Required        bool   `json:"required"`
		Optional        bool   `json:"optional"`
		Computed        bool   `json:"computed"`
		Sensitive       bool   `json:"sensitive"`
	}
	type block struct {
		Attributes map[string]attr `json:"attributes"`
		BlockTypes map[string]struct {
			NestingMode string `json:"nesting_mode"`
			Block       block  `json:"block"`
		} `json:"block_types"`
		Description string `json:"description"`
	}
	type schema struct {
		Version int64  `json:"version"`
		Block   *block `json:"block"`
	}
	type doc struct {
		FormatVersion string `json:"format_version"`
		Schemas       map[string]struct {
			Provider          *schema           `json:"provider"`
			ResourceSchemas   map[string]schema `json:"resource_schemas"`
			DataSourceSchemas map[string]schema `json:"data_source_schemas"`
			Functions         map[string]struct {
				Summary    string          `json:"summary"`
				ReturnType json.RawMessage `json:"return_type"`
				Parameters []struct {
					Name string          `json:"name"`
					Type json.RawMessage `json:"type"`
				} `json:"parameters"`
			} `json:"functions"`
		} `json:"provider_schemas"`
	}
	run := func(t *testing.T, plugin, source string) doc {
		var stdout, stderr bytes.Buffer
		if err := runTerraformSchema(t.Context(), plugin, source, &stdout, &stderr); err != nil {
			t.Fatalf("runTerraformSchema: %v\n%s", err, stderr.String())
		}
		var d doc
		if err := json.Unmarshal(stdout.Bytes(), &d); err != nil {
			t.Fatalf("decode: %v\n%s", err, stdout.String())
		}
		if d.FormatVersion != "1.0" || len(d.Schemas) != 1 {
			t.Fatalf("format_version %q, %d providers, want 1.0 and one", d.FormatVersion, len(d.Schemas))
		}
		return d
	}
	t.Run("time", func(t *testing.T) {
		t.Parallel()
		d := run(t, tfProviderForTest(t, "terraform-provider-time"), "")
		p, ok := d.Schemas["registry.terraform.io/hashicorp/time"]
		if !ok {
			t.Fatalf("provider_schemas lacks registry.terraform.io/hashicorp/time: %v", d.Schemas)
		}
		if p.Provider == nil || p.Provider.Block == nil {
			t.Errorf("no provider schema")
		}
		static, ok := p.ResourceSchemas["time_static"]
		if !ok || static.Block == nil {
			t.Fatalf("resource_schemas lacks time_static")
		}
		for name, want := range map[string]struct {
			typ                          string
			required, optional, computed bool
		}{
			"rfc3339":  {`"string"`, false, true, true},
			"triggers": {`["map","string"]`, false, true, false},
			"unix":     {`"number"`, false, false, true},
			"id":       {`"string"`, false, false, true},
		} {
			a, ok := static.Block.Attributes[name]
			if !ok {
				t.Errorf("time_static lacks %s", name)
				continue
			}
			if compact(a.Type) != want.typ || a.Required != want.required || a.Optional != want.optional || a.Computed != want.computed || a.DescriptionKind == "" {
				t.Errorf("time_static.%s = type %s required %v optional %v computed %v kind %q, want %+v", name, a.Type, a.Required, a.Optional, a.Computed, a.DescriptionKind, want)
			}
		}
		f, ok := p.Functions["rfc3339_parse"]
		if !ok {
			t.Fatalf("functions lack rfc3339_parse: %v", p.Functions)
		}
		if len(f.Parameters) != 1 || compact(f.Parameters[0].Type) != `"string"` || !strings.HasPrefix(compact(f.ReturnType), `["object",{`) || f.Summary == "" {
			t.Errorf("rfc3339_parse = %+v, want one string parameter, an object result and a summary", f)
		}
	})
	t.Run("fixture", func(t *testing.T) {
		t.Parallel()
		d := run(t, tfProviderForTest(t, "terraform-provider-fixture"), "example.com/pier/fixture")
		p, ok := d.Schemas["example.com/pier/fixture"]
		if !ok {
			t.Fatalf("provider_schemas lacks the --source key: %v", d.Schemas)
		}
		file := p.ResourceSchemas["fixture_file"].Block
		if file == nil {
			t.Fatalf("resource_schemas lacks fixture_file")
		}
		if md := file.Attributes["metadata"]; md.NestedType == nil || md.NestedType.NestingMode != "single" || md.Type != nil {
			t.Errorf("fixture_file.metadata = %+v, want a single nested_type without type", md)
		} else if _, ok := md.NestedType.Attributes["api_key"]; !ok {
			t.Errorf("fixture_file.metadata lacks api_key")
		}
		if sec := file.BlockTypes["section"]; sec.NestingMode != "list" || !sec.Block.Attributes["title"].Required {
			t.Errorf("fixture_file block section = %+v, want a list block with a required title", sec)
		}
		if _, ok := p.DataSourceSchemas["fixture_echo"]; !ok {
			t.Errorf("data_source_schemas lacks fixture_echo (no data-source- prefix in Terraform's format)")
		}
	})
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func TestImpliedProviderType(t *testing.T) {
	t.Parallel()
	for plugin, want := range map[string]string{
		"/x/terraform-provider-time":       "time",
		"terraform-provider-aws_v5.1.0_x5": "aws",
		"/x/my-provider":                   "",
		"/x/terraform-provider-":           "",
	} {
		got, ok := impliedProviderType(plugin)
		if got != want && ok || ok != (want != "") {
			t.Errorf("impliedProviderType(%q) = %q, %v, want %q", plugin, got, ok, want)
		}
	}
}
