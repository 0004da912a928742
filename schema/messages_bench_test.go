package schema

import "testing"

// BenchmarkKind names the kind of a response and of a request, as the
// host does for every call.
func BenchmarkKind(b *testing.B) {
	resp := &Response{PreviewResourceResponse: &PreviewResourceResponse{}}
	req := &Request{CreateResourceRequest: &CreateResourceRequest{}}
	b.ReportAllocs()
	for b.Loop() {
		if resp.Kind() != "previewResourceResponse" || req.Kind() != "createResourceRequest" {
			b.Fatal("wrong kind")
		}
	}
}
