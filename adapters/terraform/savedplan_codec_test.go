package terraform

import (
	"bytes"
	"testing"
)

func TestSavedPlanRoundTrip(t *testing.T) {
	t.Parallel()
	tests := map[string]*savedPlan{
		"create":          newSavedPlan("create\x00t\x00{}", []byte{0x81, 0xa1, 0x61, 0xc0}, nil, nil),
		"create, private": newSavedPlan("create\x00t\x00{}", []byte{0xc0}, []byte(`{"schema_version":"1"}`), nil),
		"update":          newSavedPlan("update\x00t\x00{}\x00{}", []byte{0xc0}, []byte{1}, []byte{0x80}),
	}
	for name, p := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := decodeSavedPlan(p.encode())
			if err != nil {
				t.Fatal(err)
			}
			if got.key != p.key || !bytes.Equal(got.planned, p.planned) || !bytes.Equal(got.private, p.private) || !bytes.Equal(got.prior, p.prior) {
				t.Errorf("decoded %+v, want %+v", got, p)
			}
			if (got.prior == nil) != (p.prior == nil) {
				t.Errorf("prior nil: %t, want %t (nil marks a create)", got.prior == nil, p.prior == nil)
			}
		})
	}
}

func TestSavedPlanFits(t *testing.T) {
	t.Parallel()
	p := newSavedPlan("create\x00t\x00{\"a\":1}", []byte{0xc0}, nil, nil)
	if !p.fits("create\x00t\x00{\"a\":1}") {
		t.Error("a plan does not fit the request it was made for")
	}
	if p.fits("create\x00t\x00{\"a\":2}") {
		t.Error("a plan fits a request with other inputs")
	}
}

func TestSavedPlanRejects(t *testing.T) {
	t.Parallel()
	good := newSavedPlan("k", []byte{0xc0}, nil, nil).encode()
	tests := map[string]string{
		"empty":          "",
		"not base64":     "!!!",
		"other version":  "Ag" + good[2:],
		"truncated":      good[:len(good)-4],
		"trailing bytes": good + "AA",
		"no planned":     newSavedPlan("k", nil, nil, nil).encode(),
	}
	for name, s := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := decodeSavedPlan(s); err == nil {
				t.Errorf("decodeSavedPlan(%q) accepted it", s)
			}
		})
	}
}

// FuzzDecodeSavedPlan: a plan comes back from a file on disk; whatever it
// holds, decoding returns an error or a plan that encodes to itself.
func FuzzDecodeSavedPlan(f *testing.F) {
	f.Add(newSavedPlan("k", []byte{0xc0}, []byte{1, 2}, []byte{3}).encode())
	f.Add("AQ")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := decodeSavedPlan(s)
		if err != nil {
			return
		}
		again, err := decodeSavedPlan(p.encode())
		if err != nil || again.key != p.key || !bytes.Equal(again.planned, p.planned) || !bytes.Equal(again.private, p.private) || !bytes.Equal(again.prior, p.prior) {
			t.Errorf("a decoded plan does not survive encode and decode: %v", err)
		}
	})
}
