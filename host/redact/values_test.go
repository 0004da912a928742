package redact

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/source"
)

// TestRedactBridgePaths covers the form the Terraform bridge writes:
// dotted attribute paths with "*" for any element.
func TestRedactBridgePaths(t *testing.T) {
	t.Parallel()
	tf := map[string]any{"sensitive_paths": []any{"metadata.api_key", "rules.*.secret", "ports.*.key", "sensitive_content", "absent.x"}}
	tests := map[string]struct {
		in, want map[string]any
	}{
		"outputs": {
			map[string]any{
				"sensitive_content": "s3cret", "content": nil,
				"metadata": map[string]any{"api_key": "k", "owner": "o"},
				"rules":    []any{map[string]any{"secret": "a", "name": "n"}, map[string]any{"secret": nil}},
				"ports":    map[string]any{"http": map[string]any{"key": "p"}},
				"__tf":     tf,
			},
			map[string]any{
				"sensitive_content": source.SensitiveText, "content": nil,
				"metadata": map[string]any{"api_key": source.SensitiveText, "owner": "o"},
				"rules":    []any{map[string]any{"secret": source.SensitiveText, "name": "n"}, map[string]any{"secret": nil}},
				"ports":    map[string]any{"http": map[string]any{"key": source.SensitiveText}},
				"__tf":     tf,
			},
		},
		"null metadata": {
			map[string]any{"metadata": nil, "__tf": tf},
			map[string]any{"metadata": nil, "__tf": tf},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, Outputs(tc.in)); diff != "" {
				t.Errorf("Redact (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRedactInputs(t *testing.T) {
	t.Parallel()
	outputs := map[string]any{"__tf": map[string]any{"sensitive_paths": []any{"sensitive_content", "metadata.api_key"}}}
	tests := map[string]struct {
		in, outputs, want map[string]any
	}{
		"nil": {nil, outputs, nil},
		"not terraform": {
			map[string]any{"sensitive_content": "x"}, map[string]any{"v": 1.0},
			map[string]any{"sensitive_content": "x"},
		},
		"redacted": {
			map[string]any{"path": "a", "sensitive_content": "s3cret", "metadata": map[string]any{"api_key": "k"}}, outputs,
			map[string]any{"path": "a", "sensitive_content": source.SensitiveText, "metadata": map[string]any{"api_key": source.SensitiveText}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, Inputs(tc.in, tc.outputs)); diff != "" {
				t.Errorf("RedactInputs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in, want map[string]any
	}{
		"nil":   {nil, nil},
		"no tf": {map[string]any{"a": "x"}, map[string]any{"a": "x"}},
		"paths": {
			map[string]any{"token": "s3cret", "nested": map[string]any{"key": "k", "open": "o"}, "list": []any{"a", "b"},
				"__tf": map[string]any{"private": "AAAA", "sensitive_paths": []any{[]any{"token"}, []any{"nested", "key"}, []any{"list", 1.0}, []any{"absent"}}}},
			map[string]any{"token": source.SensitiveText, "nested": map[string]any{"key": source.SensitiveText, "open": "o"}, "list": []any{"a", source.SensitiveText},
				"__tf": map[string]any{"private": source.SensitiveText, "sensitive_paths": []any{[]any{"token"}, []any{"nested", "key"}, []any{"list", 1.0}, []any{"absent"}}}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, Outputs(tc.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	in := map[string]any{"token": "s", "__tf": map[string]any{"sensitive_paths": []any{[]any{"token"}}}}
	Outputs(in)
	if in["token"] != "s" {
		t.Error("Outputs changed its input")
	}
}
