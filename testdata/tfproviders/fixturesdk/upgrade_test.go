package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUpgradeDirV0(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		raw     map[string]any
		want    map[string]any
		wantErr bool
	}{
		"renames and converts files": {
			raw: map[string]any{"id": "d", "path": "d", "mode": "0700", "files": map[string]any{"b": "B", "a": "A"}},
			want: map[string]any{"id": "d", "name": "d", "mode": "0700", "file": []any{
				map[string]any{"name": "a", "content": "A", "mode": "0644"},
				map[string]any{"name": "b", "content": "B", "mode": "0644"},
			}},
		},
		"no files": {
			raw:  map[string]any{"id": "d", "path": "d", "mode": "0755"},
			want: map[string]any{"id": "d", "name": "d", "mode": "0755", "file": []any(nil)},
		},
		"nil state": {raw: nil, want: nil},
		"no path":   {raw: map[string]any{"id": "d"}, wantErr: true},
		"bad file":  {raw: map[string]any{"path": "d", "files": map[string]any{"a": 1}}, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := upgradeDirV0(t.Context(), tc.raw, nil)
			if (err != nil) != tc.wantErr {
				t.Fatalf("upgradeDirV0 error = %v, want error %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" && !tc.wantErr {
				t.Errorf("upgradeDirV0 (-want +got):\n%s", diff)
			}
		})
	}
}
