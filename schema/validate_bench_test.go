package schema

import (
	"encoding/json"
	"fmt"
	"testing"
)

// stateReadResponse is a stateResourceReadResponse for n memo resources,
// the frame a no-op apply validates once per state handler.
func stateReadResponse(n int) []byte {
	resources := map[string]any{}
	for i := range n {
		resources[fmt.Sprintf("m[%d]", i)] = map[string]any{
			"type":             "memo",
			"provider":         "local",
			"inputProperties":  map[string]any{"initialize_with": fmt.Sprintf("value-%d", i)},
			"outputProperties": map[string]any{"value": fmt.Sprintf("value-%d", i)},
		}
	}
	data, err := json.Marshal(map[string]any{"stateResourceReadResponse": map[string]any{"state": map[string]any{"resources": resources}}})
	if err != nil {
		panic(err)
	}
	return data
}

// BenchmarkValidateRequest measures the check of one request pier sends:
// the create of one time_static, as the bridge is asked for it.
func BenchmarkValidateRequest(b *testing.B) {
	create := []byte(`{"createResourceRequest":{"type":"time_static","inputProperties":{"triggers":{"index":"7"}},"isStateful":true}}`)
	if err := ValidateRequest(create, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(create)))
	for b.Loop() {
		if err := ValidateRequest(create, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate measures one frame's validation: a bridged create
// response (the Terraform state of one time_static), the preview of one,
// and the state read of a 10,000-resource deployment.
func BenchmarkValidate(b *testing.B) {
	create := []byte(`{"createResourceResponse":{"outputProperties":{"day":1,"hour":11,"id":"2026-12-01T11:12:36Z","minute":12,"month":12,"rfc3339":"2026-12-01T11:12:36Z","second":36,"triggers":{"index":"7"},"unix":1796123556,"year":2026,"__tf":{"private":"","schemaVersion":0,"sensitive":[]}}}}`)
	preview := []byte(`{"previewResourceResponse":{"replace":false,"plannedOutputProperties":{"day":null,"hour":null,"id":null,"minute":null,"month":null,"rfc3339":null,"second":null,"triggers":{"index":"7"},"unix":null,"year":null},"unknownOutputs":[["day"],["hour"],["id"],["minute"],["month"],["rfc3339"],["second"],["unix"],["year"]]}}`)
	ops := []Operation{OperationPreview}
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"create", create},
		{"preview", preview},
		{"state-10000", stateReadResponse(10000)},
	} {
		if err := ValidateResponse(tt.data, ops); err != nil {
			b.Fatalf("%s: %v", tt.name, err)
		}
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tt.data)))
			for b.Loop() {
				if err := ValidateResponse(tt.data, ops); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
