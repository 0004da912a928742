package provider

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pierhq/pier/host/internal/termtext"
	"github.com/pierhq/pier/schema/logkey"
	"github.com/pierhq/pier/schema/rawio"
)

// stderrTailLines is how many of the last stderr lines an [*Error] carries:
// enough for a panic message and the top of its trace or a stack of
// wrapped errors, short enough to read in a terminal.
const stderrTailLines = 20

// maxStderrLine caps one stderr line; the rest of a longer line is
// dropped (marked with a suffix) so a provider dumping binary data to
// stderr cannot grow pier's memory.
const maxStderrLine = termtext.MaxLine

// stderrDrainTimeout bounds how long pier waits for a failed or exiting
// provider's stderr to reach end of file, so that an error carries the
// lines written just before the failure. It only runs out when a
// descendant that escaped the process group keeps the pipe open.
const stderrDrainTimeout = 2 * time.Second

// stderrSettle bounds how long a finished request waits for the stderr
// lines its provider wrote before answering to be logged, so that they
// carry that request's resource. It only runs out for a provider that
// writes to stderr continuously or leaves a stderr line unfinished.
const stderrSettle = 50 * time.Millisecond

// stderrForwarder reads a provider's stderr, logs each line with the
// resource in flight, and keeps the last lines for error messages.
type stderrForwarder struct {
	pipe *os.File
	src  io.Reader // pipe, read by raw system calls (see package rawio)
	log  *slog.Logger
	done chan struct{} // closed when the reader goroutine has returned

	// read counts bytes taken from the pipe, processed bytes whose lines
	// have been logged (or are held as an unfinished line); equal counts
	// and an empty pipe mean every complete line written so far is logged.
	read, processed atomic.Int64
	progress        chan struct{} // signalled (without blocking) when processed grows

	mu       sync.Mutex
	resource string   // the resource of the request in flight, if any
	request  int      // its request_id once it is sent, else 0
	tail     []string // ring buffer of the last stderrTailLines lines
	next     int      // index of the oldest line once tail is full
	panicked bool     // a "panic:" line was seen: log the rest at error level
}

func newStderrForwarder(pipe *os.File, log *slog.Logger) *stderrForwarder {
	f := &stderrForwarder{pipe: pipe, src: rawio.Wrap(pipe), log: log, done: make(chan struct{}), progress: make(chan struct{}, 1)}
	go f.run()
	return f
}

// Read counts what the forwarder takes from the pipe; see settle.
func (f *stderrForwarder) Read(p []byte) (int, error) {
	n, err := f.src.Read(p)
	f.read.Add(int64(n))
	return n, err
}

var _ io.Reader = (*stderrForwarder)(nil)

func (f *stderrForwarder) run() {
	defer close(f.done)
	br := bufio.NewReaderSize(f, 4096)
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
			f.advance(len(chunk))
			continue
		}
		if len(line) > 0 {
			// Lines go to the terminal: no escape sequences.
			text := termtext.Printable(string(bytes.TrimRight(line, "\r\n")))
			if truncated {
				text = termtext.Truncate(text)
			}
			f.emit(text)
		}
		f.advance(len(chunk))
		line, truncated = line[:0], false
		if err != nil {
			return // EOF, or the pipe was closed after the process was reaped
		}
	}
}

// advance records n more bytes as processed and wakes a waiting settle.
func (f *stderrForwarder) advance(n int) {
	f.processed.Add(int64(n))
	select {
	case f.progress <- struct{}{}:
	default:
	}
}

func (f *stderrForwarder) emit(text string) {
	f.mu.Lock()
	if strings.HasPrefix(text, "panic:") || strings.HasPrefix(text, "fatal error:") {
		f.panicked = true
	}
	level := termtext.LineLevel(text)
	if f.panicked {
		level = slog.LevelError
	}
	attrs := []any{logkey.Resource, f.resource}
	if f.request > 0 {
		attrs = append(attrs, logkey.RequestID, f.request)
	}
	if len(f.tail) < stderrTailLines {
		f.tail = append(f.tail, text)
	} else {
		f.tail[f.next] = text
		f.next = (f.next + 1) % stderrTailLines
	}
	f.mu.Unlock()
	f.log.Log(context.Background(), level, text, attrs...)
}

func (f *stderrForwarder) setRequest(resource string, id int) {
	f.mu.Lock()
	f.resource, f.request = resource, id
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

// settle waits, up to stderrSettle, until every line the provider has
// written so far has been logged.
func (f *stderrForwarder) settle() { f.settleFrom(f.caughtUp()) }

// caughtUp reports whether every byte the forwarder has read is
// processed; then the pipe's being empty means every complete line
// written so far is logged.
func (f *stderrForwarder) caughtUp() bool { return f.read.Load() == f.processed.Load() }

// settleFrom is settle when the caller has already asked once: idle says
// the forwarder had caught up and the pipe was empty, so that the first
// check costs no system call of its own (see [Process.call]).
func (f *stderrForwarder) settleFrom(idle bool) {
	if idle {
		return
	}
	timer := time.NewTimer(stderrSettle)
	defer timer.Stop()
	for {
		if f.caughtUp() && !readable(f.pipe) {
			return
		}
		select {
		case <-f.progress:
		case <-f.done:
			return
		case <-timer.C:
			return
		}
	}
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
