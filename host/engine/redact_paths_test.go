package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
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
			if diff := cmp.Diff(tc.want, Redact(tc.in)); diff != "" {
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
			if diff := cmp.Diff(tc.want, RedactInputs(tc.in, tc.outputs)); diff != "" {
				t.Errorf("RedactInputs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRedactDiffs(t *testing.T) {
	t.Parallel()
	prior := &statedoc.Recorded{Entry: statedoc.Entry{OutputProperties: map[string]any{"__tf": map[string]any{"sensitive_paths": []any{"old_secret"}}}}}
	tests := map[string]struct {
		change   *Change
		old, new map[string]any
		want     []Diff
	}{
		"nothing sensitive": {
			change: &Change{}, new: map[string]any{"a": "x"},
			want: []Diff{{Key: "a", Kind: DiffAdded, New: "x"}},
		},
		"schema paths on create": {
			change: &Change{SensitiveInputs: []string{"metadata.api_key", "sensitive_content", "rules.*.secret"}},
			new: map[string]any{"sensitive_content": "s", "metadata": map[string]any{"api_key": "k", "owner": "o"},
				"rules": []any{map[string]any{"secret": "r", "name": "n"}}, "path": "p"},
			want: []Diff{
				{Key: "metadata", Kind: DiffAdded, New: map[string]any{"api_key": source.SensitiveText, "owner": "o"}},
				{Key: "path", Kind: DiffAdded, New: "p"},
				{Key: "rules", Kind: DiffAdded, New: []any{map[string]any{"secret": source.SensitiveText, "name": "n"}}},
				{Key: "sensitive_content", Kind: DiffAdded, New: source.SensitiveText},
			},
		},
		"nested change": {
			change: &Change{SensitiveInputs: []string{"metadata.api_key"}},
			old:    map[string]any{"metadata": map[string]any{"api_key": "k1", "owner": "o"}},
			new:    map[string]any{"metadata": map[string]any{"api_key": "k2", "owner": "o"}},
			want:   []Diff{{Key: "metadata", Kind: DiffNested, Children: []Diff{{Key: "api_key", Kind: DiffChanged, Old: source.SensitiveText, New: source.SensitiveText}}}},
		},
		"whole sensitive map": {
			change: &Change{SensitiveInputs: []string{"labels"}},
			old:    map[string]any{"labels": map[string]any{"a": "1"}},
			new:    map[string]any{"labels": map[string]any{"a": "2"}},
			want:   []Diff{{Key: "labels", Kind: DiffChanged, Old: source.SensitiveText, New: source.SensitiveText}},
		},
		"recorded paths on destroy": {
			change: &Change{Prior: prior}, old: map[string]any{"old_secret": "s", "open": "o"},
			want: []Diff{{Key: "old_secret", Kind: DiffRemoved, Old: source.SensitiveText}, {Key: "open", Kind: DiffRemoved, Old: "o"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, tc.change.RedactDiffs(DiffInputs(tc.old, tc.new))); diff != "" {
				t.Errorf("RedactDiffs (-want +got):\n%s", diff)
			}
		})
	}
}
