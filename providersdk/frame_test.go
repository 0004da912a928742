package providersdk

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLineReader(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("y", 100<<10) // longer than the bufio buffer
	tests := map[string]struct {
		in   string
		max  int
		want []string // lines, or "ERR <message>" entries
	}{
		"empty":                                {in: "", max: 10, want: nil},
		"one line":                             {in: "abc\n", max: 10, want: []string{"abc"}},
		"no final newline":                     {in: "abc\ndef", max: 10, want: []string{"abc", "def"}},
		"blank lines":                          {in: "\n \n\t\nabc\n\n", max: 10, want: []string{"abc"}},
		"crlf":                                 {in: "abc\r\ndef\r\n", max: 10, want: []string{"abc", "def"}},
		"exactly the limit":                    {in: "0123456789\n", max: 10, want: []string{"0123456789"}},
		"one over the limit":                   {in: "0123456789a\nok\n", max: 10, want: []string{"ERR frame too large: line exceeds the 10 byte limit (11 bytes read)", "ok"}},
		"over the limit at eof":                {in: "ok\n0123456789a", max: 10, want: []string{"ok", "ERR frame too large: line exceeds the 10 byte limit (11 bytes read)"}},
		"longer than the buffer":               {in: long + "\nz\n", max: 200 << 10, want: []string{long, "z"}},
		"longer than the buffer and the limit": {in: long + "\nz\n", max: 1000, want: []string{"ERR frame too large: line exceeds the 1000 byte limit (65536 bytes read)", "z"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			lr := newLineReader(strings.NewReader(tc.in), tc.max)
			var got []string
			for {
				line, err := lr.next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					got = append(got, "ERR "+err.Error())
					continue
				}
				got = append(got, string(line))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

func BenchmarkLineReader(b *testing.B) {
	line := `{"createResourceRequest":{"type":"file","inputProperties":{"name":"a","contents":"` + strings.Repeat("x", 1000) + `"},"isStateful":true}}` + "\n"
	in := strings.Repeat(line, 100)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		lr := newLineReader(strings.NewReader(in), DefaultMaxLineSize)
		for {
			if _, err := lr.next(); err != nil {
				break
			}
		}
	}
}
