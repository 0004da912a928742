package provider

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/internal/termtext"
	"github.com/pierhq/pier/schema/logkey"
)

// TestStderrForwarder feeds lines through a real pipe and checks the ring
// buffer keeps the last stderrTailLines, long lines are truncated, and
// every line is logged.
func TestStderrForwarder(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		input    string
		wantTail []string
		wantLogs int
	}{
		"no output": {input: "", wantTail: []string{}, wantLogs: 0},
		"few lines": {input: "a\nb\r\nc", wantTail: []string{"a", "b", "c"}, wantLogs: 3},
		"ring wraps": {
			input:    numbered(1, 30),
			wantTail: strings.Split(strings.TrimSpace(numbered(11, 30)), "\n"),
			wantLogs: 30,
		},
		"long line truncated": {
			input:    strings.Repeat("x", maxStderrLine+5000) + "\nnext\n",
			wantTail: []string{strings.Repeat("x", maxStderrLine-len(termtext.Truncated)) + termtext.Truncated, "next"},
			wantLogs: 2,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			var logs logBuffer
			f := newStderrForwarder(r, slog.New(slog.NewJSONHandler(&logs, nil)))
			f.setRequest("web.db", 0)
			go func() {
				w.WriteString(tc.input)
				w.Close()
			}()
			<-f.done
			r.Close()
			if diff := cmp.Diff(tc.wantTail, f.lines()); diff != "" {
				t.Errorf("tail (-want +got):\n%s", diff)
			}
			recs := logs.records(t, "")
			if len(recs) != tc.wantLogs {
				t.Errorf("logged %d records, want %d", len(recs), tc.wantLogs)
			}
			for _, rec := range recs {
				if rec[logkey.Resource] != "web.db" {
					t.Errorf("record %v lacks resource=web.db", rec)
				}
			}
		})
	}
}

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		err  error
		want string
	}{
		"exited with stderr": {
			err: &Error{Provider: "aws", Executable: "/bin/p", Request: "createResourceRequest", ResourceType: "bucket", Resource: "web.assets",
				Kind: KindExited, ExitStatus: "exit status 1", Stderr: []string{"boom"}, Err: fmt.Errorf("exited before responding")},
			want: `provider "aws" (/bin/p): createResourceRequest for web.assets (type "bucket"): exited before responding (exit status 1)
last stderr lines:
  | boom
hint: a provider must answer every request with one line on stdout and keep running until its stdin is closed; see its stderr above`,
		},
		"timeout without stderr": {
			err: &Error{Provider: "aws", Executable: "/bin/p", Request: "updateResourceRequest", ResourceType: "bucket", Resource: "web.assets",
				Kind: KindTimeout, Err: fmt.Errorf("no response within 1s")},
			want: `provider "aws" (/bin/p): updateResourceRequest for web.assets (type "bucket"): no response within 1s
(the provider wrote nothing to stderr)
hint: raise the per-request timeout if the operation is legitimately slow; the provider's process group was killed`,
		},
		"at shutdown": {
			err:  &Error{Provider: "aws", Executable: "/bin/p", Kind: KindExited, ExitStatus: "exit status 5", Stderr: []string{"x"}, Err: fmt.Errorf("exited unsuccessfully after its stdin was closed")},
			want: "provider \"aws\" (/bin/p) at shutdown: exited unsuccessfully after its stdin was closed (exit status 5)\nlast stderr lines:\n  | x\nhint: a provider should exit with status 0 once its stdin is closed",
		},
		"response error": {
			err:  &ResponseError{Provider: "aws", Executable: "/bin/p", Request: "createResourceRequest", ResourceType: "bucket", Resource: "web.assets", Message: "access denied"},
			want: `provider "aws" (/bin/p): createResourceRequest for web.assets (type "bucket"): provider reported an error: access denied`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, tc.err.Error()); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorKindString(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		kind ErrorKind
		want string
	}{
		"zero":         {kind: KindUnknown, want: "Unknown"},
		"exited":       {kind: KindExited, want: "Exited"},
		"too large":    {kind: KindTooLarge, want: "TooLarge"},
		"out of range": {kind: ErrorKind(99), want: "ErrorKind(99)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := tc.kind.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}
