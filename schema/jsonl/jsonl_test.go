package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadFrame reads each input to its end, going on after a refused
// line as providersdk does: a refusal names the limit, and the line after
// it is read whole.
func TestReadFrame(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 3*readChunk+17)
	tooLarge := func(max, read int) string {
		return fmt.Sprintf("ERR frame too large: line exceeds the %d byte limit (%d bytes read)", max, read)
	}
	cases := map[string]struct {
		input   string
		max     int
		want    []string // frames, or "ERR <message>" for a refused line
		wantEnd error    // the error that ends the input
	}{
		"empty input":            {input: "", want: nil, wantEnd: io.EOF},
		"one frame":              {input: "{}\n", want: []string{"{}"}, wantEnd: io.EOF},
		"two frames":             {input: "{\"a\":1}\n[2]\n", want: []string{`{"a":1}`, "[2]"}, wantEnd: io.EOF},
		"empty line":             {input: "\n{}\n", want: []string{"", "{}"}, wantEnd: io.EOF},
		"crlf keeps cr":          {input: "{}\r\n", want: []string{"{}\r"}, wantEnd: io.EOF},
		"torn last line":         {input: "{}\n{\"a\"", want: []string{"{}"}, wantEnd: io.ErrUnexpectedEOF},
		"line longer than chunk": {input: long + "\n", want: []string{long}, wantEnd: io.EOF},
		"exactly max":            {input: "12345\n", max: 5, want: []string{"12345"}, wantEnd: io.EOF},
		"one over max":           {input: "123456\n", max: 5, want: []string{tooLarge(5, 6)}, wantEnd: io.EOF},
		"one over max then next": {input: "123456\nok\n", max: 5, want: []string{tooLarge(5, 6), "ok"}, wantEnd: io.EOF},
		"over max across chunks": {input: long + "\n", max: readChunk, want: []string{tooLarge(readChunk, 2*readChunk)}, wantEnd: io.EOF},
		"over max across chunks then next": {
			input: long + "\n{}\n", max: readChunk, want: []string{tooLarge(readChunk, 2*readChunk), "{}"}, wantEnd: io.EOF,
		},
		"over max without newline": {
			input: long, max: 2 * readChunk, want: []string{tooLarge(2*readChunk, 3*readChunk)}, wantEnd: io.EOF,
		},
		"over max in the last chunk without newline": {
			input: "ok\n123456", max: 5, want: []string{"ok", tooLarge(5, 6)}, wantEnd: io.EOF,
		},
		"small frame then too large then small": {
			input: "{}\n" + long + "\n[]\n", max: readChunk, want: []string{"{}", tooLarge(readChunk, 2*readChunk), "[]"}, wantEnd: io.EOF,
		},
		"two too large in a row": {
			input: long + "\n" + long + "\n{}\n", max: readChunk,
			want: []string{tooLarge(readChunk, 2*readChunk), tooLarge(readChunk, 2*readChunk), "{}"}, wantEnd: io.EOF,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := NewReader(strings.NewReader(tc.input), tc.max)
			var got []string
			var end error
			for {
				line, err := r.ReadFrame()
				var tl *FrameTooLargeError
				if errors.As(err, &tl) {
					if !errors.Is(err, ErrFrameTooLarge) {
						t.Errorf("%v does not match ErrFrameTooLarge", err)
					}
					got = append(got, "ERR "+err.Error())
					continue
				}
				if err != nil {
					end = err
					break
				}
				got = append(got, string(line))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("frames (-want +got):\n%s", diff)
			}
			if !errors.Is(end, tc.wantEnd) {
				t.Errorf("final error = %v, want %v", end, tc.wantEnd)
			}
		})
	}
}

// TestReadFrameHugeLineBounded reads a line far over the limit from a
// generator and checks that the reader stops soon after the limit rather
// than buffering the whole line.
func TestReadFrameHugeLineBounded(t *testing.T) {
	t.Parallel()
	src := &countingReader{limit: 100 << 20}
	r := NewReader(src, 1<<20)
	_, err := r.ReadFrame()
	var tl *FrameTooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("ReadFrame() error = %v, want *FrameTooLargeError", err)
	}
	if tl.Max != 1<<20 || tl.Read <= tl.Max {
		t.Errorf("FrameTooLargeError = %+v, want Max 1MiB and Read above it", tl)
	}
	if src.read > 2<<20 {
		t.Errorf("reader consumed %d bytes of the oversize line; want it to stop near the 1 MiB limit", src.read)
	}
}

// countingReader yields limit bytes of 'a' and no newline.
type countingReader struct{ limit, read int }

func (c *countingReader) Read(p []byte) (int, error) {
	if c.read >= c.limit {
		return 0, io.EOF
	}
	n := min(len(p), c.limit-c.read)
	for i := range n {
		p[i] = 'a'
	}
	c.read += n
	return n, nil
}

func TestBufferedSeesSecondFrame(t *testing.T) {
	t.Parallel()
	r := NewReader(strings.NewReader("{}\n{}\n"), 0)
	if _, err := r.ReadFrame(); err != nil {
		t.Fatal(err)
	}
	if r.Buffered() == 0 {
		t.Error("Buffered() = 0 after the first of two frames written together")
	}
	if err := r.Peek(); err != nil {
		t.Errorf("Peek() = %v, want nil", err)
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		value any
		want  string
	}{
		"nil":              {value: nil, want: "null\n"},
		"empty object":     {value: map[string]any{}, want: "{}\n"},
		"newline escaped":  {value: map[string]string{"s": "a\nb"}, want: `{"s":"a\nb"}` + "\n"},
		"nested":           {value: map[string]any{"a": []int{1, 2}}, want: `{"a":[1,2]}` + "\n"},
		"unicode kept one": {value: "\u2028", want: `"\u2028"` + "\n"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := Encode(tc.value)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(data)); diff != "" {
				t.Errorf("Encode (-want +got):\n%s", diff)
			}
			var buf bytes.Buffer
			if err := WriteFrame(&buf, data); err != nil {
				t.Fatal(err)
			}
			if err := WriteFrame(&buf, data[:len(data)-1]); err != nil {
				t.Fatal(err)
			}
			r := NewReader(&buf, 0)
			for i := range 2 {
				line, err := r.ReadFrame()
				if err != nil {
					t.Fatalf("frame %d: %v", i, err)
				}
				if diff := cmp.Diff(strings.TrimSuffix(tc.want, "\n"), string(line)); diff != "" {
					t.Errorf("frame %d (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

func TestWriteFrameRejectsEmbeddedNewline(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	err := WriteFrame(&buf, []byte("{\n}"))
	if err == nil || !strings.Contains(err.Error(), "newline") {
		t.Errorf("WriteFrame with embedded newline = %v, want an error naming the newline", err)
	}
	if buf.Len() != 0 {
		t.Errorf("WriteFrame wrote %q despite the error", buf.String())
	}
}

func FuzzReadFrame(f *testing.F) {
	f.Add([]byte("{}\n{\"a\":1}\n"), 8)
	f.Add([]byte("no newline"), 4)
	f.Add([]byte("\n\n\n"), 0)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < 0 || max > 1<<16 {
			max = 0
		}
		r := NewReader(bytes.NewReader(data), max)
		total, refused := 0, 0
		for {
			line, err := r.ReadFrame()
			if errors.Is(err, ErrFrameTooLarge) {
				// Reading goes on after a refusal, and each one
				// consumes more than the limit.
				if refused++; refused*(r.Max()+1) > len(data) {
					t.Fatalf("%d refusals from %d bytes of input", refused, len(data))
				}
				continue
			}
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("unexpected error %v", err)
				}
				break
			}
			if len(line) > r.Max() {
				t.Fatalf("frame of %d bytes exceeds max %d", len(line), r.Max())
			}
			if bytes.IndexByte(line, '\n') >= 0 {
				t.Fatalf("frame %q contains a newline", line)
			}
			total += len(line) + 1
			if total > len(data) {
				t.Fatalf("read %d bytes from %d bytes of input", total, len(data))
			}
		}
	})
}

// TestReadFrameLimit checks that a per-frame limit replaces the reader's
// for that frame only: a state read may be larger than any other response.
func TestReadFrameLimit(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 3*readChunk)
	cases := map[string]struct {
		second  string // the frame after long
		limits  []int  // one per frame read; 0 is the reader's own
		want    []string
		wantErr error
	}{
		"raised for one frame":      {second: "{}", limits: []int{4 * readChunk, 0}, want: []string{long, "{}"}},
		"reader's limit afterwards": {second: long, limits: []int{4 * readChunk, 0}, want: []string{long}, wantErr: ErrFrameTooLarge},
		"lowered for one frame":     {second: "{}", limits: []int{readChunk}, wantErr: ErrFrameTooLarge},
		"default limit refuses it":  {second: "{}", limits: []int{0}, wantErr: ErrFrameTooLarge},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := NewReader(strings.NewReader(long+"\n"+tc.second+"\n"), 2*readChunk)
			var got []string
			var err error
			for _, limit := range tc.limits {
				var line []byte
				if line, err = r.ReadFrameLimit(limit); err != nil {
					break
				}
				got = append(got, string(line))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("frames (-want +got):\n%s", diff)
			}
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("error = %v, want %v", err, tc.wantErr)
			}
			var tl *FrameTooLargeError
			if errors.As(err, &tl) {
				want := tc.limits[len(got)]
				if want == 0 {
					want = 2 * readChunk
				}
				if tl.Max != want {
					t.Errorf("FrameTooLargeError.Max = %d, want the frame's limit %d", tl.Max, want)
				}
			}
		})
	}
}

// TestReadFrameLetsLargeBufferGo checks that a reader does not keep a huge
// assembly buffer once the next frame is read.
func TestReadFrameLetsLargeBufferGo(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 2*keepBuffer)
	r := NewReader(strings.NewReader(big+"\n"+long()+"\n"), 0)
	if _, err := r.ReadFrame(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadFrame(); err != nil {
		t.Fatal(err)
	}
	if cap(r.buf) > keepBuffer {
		t.Errorf("buffer capacity %d after a small frame, want at most %d", cap(r.buf), keepBuffer)
	}
}

func long() string { return strings.Repeat("y", 2*readChunk) }

// TestRefusalCostsAtMostTheLimit: a line over the limit is refused having
// kept at most the limit, not a buffer that doubled past it (a state read
// refused at 1 GiB cost pier a 4.2 GB peak, a 65 MiB response refused at
// 64 MiB 352 MB); a line within it is copied once, into a slice of its
// size. It measures the bytes allocated, which only this goroutine does
// while it runs: it is not parallel, so the package's parallel tests wait
// for it.
func TestRefusalCostsAtMostTheLimit(t *testing.T) { //nolint:paralleltest // measures the process's allocations
	const limit = 32 << 20
	allocated := func(line int, newline bool) uint64 {
		var src io.Reader = &countingReader{limit: line}
		if newline {
			src = io.MultiReader(src, strings.NewReader("\n"))
		}
		r := NewReader(src, 0)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := r.ReadFrameLimit(limit)
		runtime.ReadMemStats(&after)
		if line > limit && !errors.Is(err, ErrFrameTooLarge) {
			t.Fatalf("line of %d bytes: %v, want frame too large", line, err)
		}
		if line <= limit && err != nil {
			t.Fatalf("line of %d bytes: %v", line, err)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	if got, bound := allocated(limit+limit/2, true), uint64(limit)+limit/8; got > bound {
		t.Errorf("refusing a line of 1.5 × the limit allocated %d bytes, want at most %d (the limit and the blocks' slack)", got, bound)
	}
	if got, bound := allocated(limit, true), 2*uint64(limit)+limit/8; got > bound {
		t.Errorf("reading a line of the limit allocated %d bytes, want at most %d (the blocks and one copy)", got, bound)
	}
}
