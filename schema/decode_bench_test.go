package schema

import "testing"

// BenchmarkDecodeResponse measures DecodeResponse on the kinds the
// optional operations bring, as a bridge answers them for one
// time_static: the preview of its create (once per resource on every
// fresh plan and apply), a refresh's read and an import.
func BenchmarkDecodeResponse(b *testing.B) {
	ops := []Operation{OperationRead, OperationImport, OperationPreview}
	for _, tt := range []struct {
		name string
		line string
	}{
		{"preview", `{"previewResourceResponse":{"replace":false,"plannedOutputProperties":{"day":null,"hour":null,"id":null,"minute":null,"month":null,"rfc3339":null,"second":null,"triggers":{"index":"7"},"unix":null,"year":null},"unknownOutputs":[["day"],["hour"],["id"],["minute"],["month"],["rfc3339"],["second"],["unix"],["year"]],"plan":"eyJ0eXBlIjoidGltZV9zdGF0aWMifQ=="}}`},
		{"read", `{"readResourceResponse":{"exists":true,"outputProperties":{"day":1,"hour":11,"id":"2026-12-01T11:12:36Z","minute":12,"month":12,"rfc3339":"2026-12-01T11:12:36Z","second":36,"triggers":{"index":"7"},"unix":1796123556,"year":2026,"__tf":{"private":"","schemaVersion":0,"sensitive":[]}}}}`},
		{"import", `{"importResourceResponse":{"inputProperties":{"rfc3339":"2026-12-01T11:12:36Z"},"outputProperties":{"day":1,"hour":11,"id":"2026-12-01T11:12:36Z","minute":12,"month":12,"rfc3339":"2026-12-01T11:12:36Z","second":36,"unix":1796123556,"year":2026}}}`},
	} {
		line := []byte(tt.line)
		if _, err := DecodeResponse(line, ops); err != nil {
			b.Fatalf("%s: %v", tt.name, err)
		}
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if _, err := DecodeResponse(line, ops); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
