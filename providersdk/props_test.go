package providersdk_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
)

type fileInputs struct {
	Name     string   `json:"name"`
	Contents string   `json:"contents"`
	Mode     *int     `json:"mode"`
	Tags     []string `json:"tags,omitempty"`
	Extra    any      `json:"extra,omitzero"`
	//lint:ignore U1000 present to check that unexported fields are not inputs
	hidden string
}

type embedded struct {
	Base string `json:"base"`
}

type withEmbedded struct {
	embedded
	Own string `json:"own"`
}

func TestDecodeInputs(t *testing.T) {
	t.Parallel()
	mode := 0o600
	tests := map[string]struct {
		props   string
		into    func() any
		want    any
		wantErr string
		field   string
	}{
		"all fields": {
			props: `{"name":"a","contents":"b","mode":384,"tags":["x"],"extra":{"k":1}}`,
			into:  func() any { return &fileInputs{} },
			want:  &fileInputs{Name: "a", Contents: "b", Mode: &mode, Tags: []string{"x"}, Extra: map[string]any{"k": json.Number("1")}},
		},
		"optional fields absent": {
			props: `{"name":"a","contents":""}`,
			into:  func() any { return &fileInputs{} },
			want:  &fileInputs{Name: "a"},
		},
		"nil properties": {
			props:   `null`,
			into:    func() any { return &fileInputs{} },
			wantErr: `input field "contents": required field is missing`,
			field:   "contents",
		},
		"unknown field": {
			props:   `{"name":"a","contents":"b","colour":"red","absent":1}`,
			into:    func() any { return &fileInputs{} },
			wantErr: `input field "absent": unknown field (known: contents, extra, mode, name, tags)`,
			field:   "absent",
		},
		"unexported field is unknown": {
			props:   `{"name":"a","contents":"b","hidden":"x"}`,
			into:    func() any { return &fileInputs{} },
			wantErr: `input field "hidden": unknown field (known: contents, extra, mode, name, tags)`,
			field:   "hidden",
		},
		"missing required": {
			props:   `{"contents":"b"}`,
			into:    func() any { return &fileInputs{} },
			wantErr: `input field "name": required field is missing`,
			field:   "name",
		},
		"null where not allowed": {
			props:   `{"name":null,"contents":"b"}`,
			into:    func() any { return &fileInputs{} },
			wantErr: `input field "name": must not be null`,
			field:   "name",
		},
		"null pointer is fine": {
			props: `{"name":"a","contents":"b","mode":null}`,
			into:  func() any { return &fileInputs{} },
			want:  &fileInputs{Name: "a", Contents: "b"},
		},
		"wrong type": {
			props:   `{"name":"a","contents":3}`,
			into:    func() any { return &fileInputs{} },
			wantErr: `input field "contents": cannot use a JSON number as string`,
			field:   "contents",
		},
		"embedded struct is flattened": {
			props: `{"base":"b","own":"o"}`,
			into:  func() any { return &withEmbedded{} },
			want:  &withEmbedded{embedded: embedded{Base: "b"}, Own: "o"},
		},
		"map target": {
			props: `{"any":[1,"x"]}`,
			into:  func() any { return &map[string]any{} },
			want:  &map[string]any{"any": []any{json.Number("1"), "x"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var props schema.Properties
			if err := json.Unmarshal([]byte(tc.props), &props); err != nil {
				t.Fatal(err)
			}
			got := tc.into()
			err := providersdk.DecodeInputs(props, got)
			if tc.wantErr != "" {
				var ie *providersdk.InputError
				if !errors.As(err, &ie) {
					t.Fatalf("DecodeInputs = %v, want an *InputError", err)
				}
				if diff := cmp.Diff(tc.wantErr, err.Error()); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				if ie.Field != tc.field {
					t.Errorf("InputError.Field = %q, want %q", ie.Field, tc.field)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeInputs: %v", err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(withEmbedded{}, fileInputs{})); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEncodeOutputs(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		v       any
		want    schema.Properties
		wantErr string
	}{
		"struct": {
			v: struct {
				Stdout string `json:"stdout"`
				N      int64  `json:"n"`
			}{"hi", 1 << 60},
			want: schema.Properties{"stdout": "hi", "n": json.Number("1152921504606846976")},
		},
		"empty struct": {v: struct{}{}, want: schema.Properties{}},
		"map":          {v: map[string]int{"a": 1}, want: schema.Properties{"a": json.Number("1")}},
		"nil map":      {v: map[string]int(nil), wantErr: "encode outputs: map[string]int does not encode as a JSON object"},
		"not object":   {v: []int{1}, wantErr: "encode outputs: []int does not encode as a JSON object"},
		"unencodable":  {v: map[string]any{"f": func() {}}, wantErr: "encode outputs: json: unsupported type: func()"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := providersdk.EncodeOutputs(tc.v)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("EncodeOutputs = %v, want error %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
		})
	}
}
