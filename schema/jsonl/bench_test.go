package jsonl

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// sampleFrame is a create response with n output properties, roughly the
// shape providers send.
func sampleFrame(n int) map[string]any {
	props := make(map[string]any, n)
	for i := range n {
		props[fmt.Sprintf("key%04d", i)] = strings.Repeat("v", 32)
	}
	return map[string]any{"createResourceResponse": map[string]any{"outputProperties": props}}
}

func benchmarkFrameEncode(b *testing.B, n int) {
	v := sampleFrame(n)
	b.ReportAllocs()
	for b.Loop() {
		data, err := Encode(v)
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteFrame(io.Discard, data); err != nil {
			b.Fatal(err)
		}
	}
}

func benchmarkFrameDecode(b *testing.B, n int) {
	data, err := Encode(sampleFrame(n))
	if err != nil {
		b.Fatal(err)
	}
	const frames = 64
	stream := bytes.Repeat(data, frames)
	src := bytes.NewReader(stream)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		src.Reset(stream)
		r := NewReader(src, 0)
		for range frames {
			if _, err := r.ReadFrame(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkFrameEncode10(b *testing.B)    { benchmarkFrameEncode(b, 10) }
func BenchmarkFrameEncode1000(b *testing.B)  { benchmarkFrameEncode(b, 1000) }
func BenchmarkFrameDecode10(b *testing.B)    { benchmarkFrameDecode(b, 10) }
func BenchmarkFrameDecode1000(b *testing.B)  { benchmarkFrameDecode(b, 1000) }
func BenchmarkFrameDecode10000(b *testing.B) { benchmarkFrameDecode(b, 10000) }
