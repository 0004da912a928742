package schema

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestLockHolderRoundTrip: a note a handler writes reads back the same
// after travelling as JSON, as pier decodes it (numbers as json.Number or
// float64), and a note of the wrong shape reads as what it has.
func TestLockHolderRoundTrip(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 12, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	cases := map[string]struct {
		holder   LockHolder
		wantJSON string
	}{
		"zero":       {holder: LockHolder{}, wantJSON: `{"pid":0}`},
		"pid only":   {holder: NewLockHolder(42, time.Time{}, "", "", ""), wantJSON: `{"pid":42}`},
		"everything": {holder: NewLockHolder(42, since, "pier apply --var=…", "ann", "box"), wantJSON: `{"command":"pier apply --var=…","host":"box","pid":42,"since":"2026-12-02T02:04:05Z","user":"ann"}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := json.Marshal(tc.holder.Note())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantJSON, string(data)); diff != "" {
				t.Errorf("note (-want +got):\n%s", diff)
			}
			for _, useNumber := range []bool{false, true} {
				dec := json.NewDecoder(bytes.NewReader(data))
				if useNumber {
					dec.UseNumber()
				}
				var v any
				if err := dec.Decode(&v); err != nil {
					t.Fatal(err)
				}
				got, ok := ReadLockHolder(v)
				if !ok {
					t.Fatalf("ReadLockHolder(%s) not ok", data)
				}
				if diff := cmp.Diff(tc.holder, got); diff != "" {
					t.Errorf("read back, UseNumber %v (-want +got):\n%s", useNumber, diff)
				}
			}
		})
	}
}

func TestReadLockHolderShapes(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		v      any
		want   LockHolder
		wantOK bool
	}{
		"nil":           {v: nil},
		"not an object": {v: "pid 42"},
		"empty object":  {v: map[string]any{}, wantOK: true},
		"wrong kinds":   {v: map[string]any{"pid": "42", "since": 1.0, "user": true}, wantOK: true},
		"some fields":   {v: map[string]any{"pid": 7.0, "host": "box"}, want: LockHolder{PID: 7, Host: "box"}, wantOK: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, ok := ReadLockHolder(tc.v)
			if ok != tc.wantOK {
				t.Errorf("ok = %v, want %v", ok, tc.wantOK)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("holder (-want +got):\n%s", diff)
			}
		})
	}
}
