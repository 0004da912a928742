package provider

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// stderrTailLines is how many of the last stderr lines an [*Error] carries:
// enough for a panic message and the top of its trace or a stack of
// wrapped errors, short enough to read in a terminal.
const stderrTailLines = 20

// maxStderrLine caps one stderr line; the rest of a longer line is
// dropped (marked with a suffix) so a provider dumping binary data to
// stderr cannot grow pier's memory.
const maxStderrLine = 16 << 10

// stderrDrainTimeout bounds how long pier waits for a failed or exiting
// provider's stderr to reach end of file, so that an error carries the
// lines written just before the failure. It only runs out when a
// descendant that escaped the process group keeps the pipe open.
const stderrDrainTimeout = 2 * time.Second

// stderrForwarder reads a provider's stderr, logs each line with the
// resource in flight, and keeps the last lines for error messages.
type stderrForwarder struct {
	log  *slog.Logger
	done chan struct{} // closed when the reader goroutine has returned

	mu       sync.Mutex
	resource string
	tail     []string // ring buffer of the last stderrTailLines lines
	next     int      // index of the oldest line once tail is full
	panicked bool     // a "panic:" line was seen: log the rest at error level
}

func newStderrForwarder(r io.Reader, log *slog.Logger) *stderrForwarder {
	f := &stderrForwarder{log: log, done: make(chan struct{})}
	go f.run(r)
	return f
}

func (f *stderrForwarder) run(r io.Reader) {
	defer close(f.done)
	br := bufio.NewReaderSize(r, 4096)
	var line []byte
	truncated := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !truncated && len(line)+len(chunk) <= maxStderrLine {
			line = append(line, chunk...)
		} else {
			truncated = true
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 {
			text := string(bytes.TrimRight(line, "\r\n"))
			if truncated {
				text += " …(line truncated)"
			}
			f.emit(text)
		}
		line, truncated = line[:0], false
		if err != nil {
			return // EOF, or the pipe was closed after the process was reaped
		}
	}
}

func (f *stderrForwarder) emit(text string) {
	f.mu.Lock()
	if strings.HasPrefix(text, "panic:") || strings.HasPrefix(text, "fatal error:") {
		f.panicked = true
	}
	level := lineLevel(text)
	if f.panicked {
		level = slog.LevelError
	}
	resource := f.resource
	if len(f.tail) < stderrTailLines {
		f.tail = append(f.tail, text)
	} else {
		f.tail[f.next] = text
		f.next = (f.next + 1) % stderrTailLines
	}
	f.mu.Unlock()
	f.log.Log(context.Background(), level, text, KeyResource, resource)
}

// lineLevel is Info for plain lines; a JSON line keeps its own level
// ("level" or hclog's "@level").
func lineLevel(text string) slog.Level {
	if !strings.HasPrefix(text, "{") {
		return slog.LevelInfo
	}
	var fields struct {
		Level   string `json:"level"`
		AtLevel string `json:"@level"`
	}
	if json.Unmarshal([]byte(text), &fields) != nil {
		return slog.LevelInfo
	}
	name := fields.Level
	if name == "" {
		name = fields.AtLevel
	}
	switch strings.ToLower(name) {
	case "trace", "debug":
		return slog.LevelDebug
	case "warn", "warning":
		return slog.LevelWarn
	case "error", "fatal", "panic", "critical":
		return slog.LevelError
	}
	return slog.LevelInfo
}

func (f *stderrForwarder) setResource(resource string) {
	f.mu.Lock()
	f.resource = resource
	f.mu.Unlock()
}

// lines returns a copy of the kept lines, oldest first.
func (f *stderrForwarder) lines() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.tail))
	out = append(out, f.tail[f.next:]...)
	return append(out, f.tail[:f.next]...)
}

// wait waits up to d for stderr to reach end of file; it reports whether
// it did.
func (f *stderrForwarder) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-f.done:
		return true
	case <-t.C:
		return false
	}
}
