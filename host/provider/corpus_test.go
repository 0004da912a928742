package provider

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/pierhq/pier/host/internal/proc/proctest"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
)

// TestMisbehavingProviders drives every script of the misbehaving corpus
// (testdata/providers/faulty) through a real process and checks the error
// kind, that the message names the executable, request, type and resource
// and carries the stderr tail, and that no process of the group survives.
func TestMisbehavingProviders(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		script  string
		timeout time.Duration // per request; the hang case needs a short one
		kind    ErrorKind
		stderr  string // a line the provider wrote to stderr
		cause   string // part of the message describing the fault
		status  string // exit status, for KindExited
	}{
		"exits early with status 0": {script: "exit-early.sh", kind: KindExited, stderr: "faulty: giving up without answering", cause: "exited before responding (exit status 0)", status: "exit status 0"},
		"exits non-zero":            {script: "exit-nonzero.sh", kind: KindExited, stderr: "faulty: out of cheese", cause: "exited before responding (exit status 3)", status: "exit status 3"},
		"cannot tell what happened": {script: "outcome-unknown.sh", kind: KindExited, stderr: "faulty: outcome unknown: the backend's connection broke mid-create", cause: "hint: the provider could not tell whether the operation took effect", status: "exit status 75"},
		"panics":                    {script: "panic.sh", kind: KindExited, stderr: "panic: runtime error: index out of range [3] with length 3", cause: "(exit status 2)", status: "exit status 2"},
		"exits mid-line":            {script: "partial-line.sh", kind: KindExited, stderr: "faulty: writing half a response", cause: "exited in the middle of a response line", status: "exit status 0"},
		"prints garbage":            {script: "garbage.sh", kind: KindBadOutput, stderr: "faulty: printing garbage", cause: `response is not JSON`},
		"prints invalid UTF-8":      {script: "invalid-utf8.sh", kind: KindBadOutput, stderr: "faulty: answering with bytes that are not UTF-8", cause: "response is not valid UTF-8 (first invalid byte at offset 53)"},
		"prints two responses":      {script: "two-responses.sh", kind: KindBadOutput, stderr: "faulty: answering twice", cause: "extra output after the response"},
		"prints the wrong kind":     {script: "wrong-kind.sh", kind: KindWrongKind, stderr: "faulty: answering with an update", cause: "response is updateResourceResponse, want createResourceResponse or errorResponse"},
		"prints a schema-invalid response": {
			script: "invalid.sh", kind: KindInvalid, stderr: "faulty: misspelling outputProperties", cause: "/createResourceResponse",
		},
		"hangs past the timeout": {script: "hang.sh", timeout: 300 * time.Millisecond, kind: KindTimeout, stderr: "faulty: thinking very hard", cause: "no response within 300ms"},
		"writes a 100 MB line":   {script: "huge-line.sh", kind: KindTooLarge, stderr: "faulty: dumping 100 MB", cause: "exceeds the 67108864 byte limit: frame too large"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			exe := testProvider(t, "faulty/"+tc.script, "sh")
			timeout := tc.timeout
			if timeout == 0 {
				timeout = 30 * time.Second // a wrong classification must fail, not hang
			}
			var logs logBuffer
			p, err := Start(t.Context(), Config{
				Name: "faulty", Executable: exe, Timeout: timeout,
				Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
			})
			if err != nil {
				t.Fatal(err)
			}
			pid := p.Pid()
			_, err = p.Create(t.Context(), "web.db", &schema.CreateResourceRequest{
				Type: "thing", InputProperties: schema.Properties{"a": 1}, IsStateful: true,
			})
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("Create() error = %v (%T), want *Error", err, err)
			}
			if pe.Kind != tc.kind {
				t.Errorf("Kind = %v, want %v; error:\n%v", pe.Kind, tc.kind, err)
			}
			msg := err.Error()
			for _, want := range []string{exe, "createResourceRequest", `type "thing"`, "web.db", tc.stderr, tc.cause, "hint: "} {
				if !strings.Contains(msg, want) {
					t.Errorf("error message lacks %q:\n%s", want, msg)
				}
			}
			if got := pe.Stderr; len(got) == 0 || !containsLine(got, tc.stderr) {
				t.Errorf("Error.Stderr = %q, want it to contain %q", got, tc.stderr)
			}
			if tc.status != "" && pe.ExitStatus != tc.status {
				t.Errorf("ExitStatus = %q, want %q", pe.ExitStatus, tc.status)
			}
			if pe.Provider != "faulty" || pe.Executable != exe || pe.Request != "createResourceRequest" || pe.ResourceType != "thing" || pe.Resource != "web.db" {
				t.Errorf("Error fields = %+v, want provider, executable, request, type and resource set", *pe)
			}
			proctest.AssertGroupGone(t, pid)

			// The process is dead: later requests fail at once, naming the
			// original failure, and Close has nothing left to do.
			_, again := p.Create(t.Context(), "web.other", &schema.CreateResourceRequest{Type: "thing", InputProperties: schema.Properties{}})
			if !errors.As(again, &pe) || !strings.Contains(again.Error(), "unusable after an earlier failure") {
				t.Errorf("second Create() = %v, want the earlier *Error", again)
			}
			if err := p.Close(); err != nil {
				t.Errorf("Close() = %v", err)
			}
			if recs := logs.records(t, tc.stderr); len(recs) == 0 || recs[0][logkey.Provider] != "faulty" || recs[0][logkey.Resource] != "web.db" {
				t.Errorf("stderr line %q logged as %v, want one record with provider=faulty resource=web.db", tc.stderr, recs)
			}
		})
	}
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

// TestPanicLinesLoggedAsErrors checks that a panic line and everything
// after it is logged at error level, and the lines before it are not.
func TestPanicLinesLoggedAsErrors(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "faulty/panic.sh", "sh")
	var logs logBuffer
	p, err := Start(t.Context(), Config{Name: "faulty", Executable: exe, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, _ = p.Create(t.Context(), "web.db", &schema.CreateResourceRequest{Type: "thing", InputProperties: schema.Properties{}})
	levels := map[string]string{
		"faulty: about to index": "INFO",
		"panic: runtime error":   "ERROR",
		"goroutine 1 [running]:": "ERROR",
		"main.main()":            "ERROR",
	}
	for line, want := range levels {
		recs := logs.records(t, line)
		if len(recs) != 1 || recs[0]["level"] != want {
			t.Errorf("stderr line %q logged as %v, want one record at %s", line, recs, want)
		}
	}
}

// TestExtraOutputBeforeNextRequest: a second response written a moment
// after the first is caught before the next request is sent.
func TestExtraOutputBeforeNextRequest(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "faulty/late-second-response.sh", "sh")
	p, err := Start(t.Context(), Config{Name: "faulty", Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	req := &schema.CreateResourceRequest{Type: "thing", InputProperties: schema.Properties{}}
	if _, err := p.Create(t.Context(), "a", req); err != nil {
		t.Fatalf("first Create() = %v", err)
	}
	// The script writes its second line 0.2 s after the first; on a loaded
	// machine it may take much longer, and a request sent before it lands
	// would read it as its response. Wait until it is there.
	for deadline := time.Now().Add(30 * time.Second); !readable(p.proc.Stdout()); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the script's second line did not arrive within 30s")
		}
	}
	_, err = p.Create(t.Context(), "b", req)
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != KindBadOutput || !strings.Contains(err.Error(), "extra output after the previous response") {
		t.Fatalf("second Create() = %v, want a BadOutput error about extra output", err)
	}
	proctest.AssertGroupGone(t, p.Pid())
}

func TestCloseKillsProviderIgnoringStdinClose(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "faulty/ignore-stdin-close.sh", "sh")
	var logs logBuffer
	p, err := Start(t.Context(), Config{Name: "faulty", Executable: exe, CloseGrace: 200 * time.Millisecond, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Create(t.Context(), "a", &schema.CreateResourceRequest{Type: "thing", InputProperties: schema.Properties{}}); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close() = %v, want nil (lingering is logged, not an error)", err)
	}
	proctest.AssertGroupGone(t, p.Pid())
	if recs := logs.records(t, "did not exit after its stdin was closed"); len(recs) != 1 || recs[0]["level"] != "WARN" {
		t.Errorf("warning records = %v, want one WARN", recs)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close() = %v, want nil", err)
	}
}

func TestCloseReportsFailedExit(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "faulty/fail-on-close.sh", "sh")
	p, err := Start(t.Context(), Config{Name: "faulty", Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Create(t.Context(), "a", &schema.CreateResourceRequest{Type: "thing", InputProperties: schema.Properties{}}); err != nil {
		t.Fatal(err)
	}
	err = p.Close()
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != KindExited || pe.ExitStatus != "exit status 5" {
		t.Fatalf("Close() = %v, want a KindExited *Error with exit status 5", err)
	}
	for _, want := range []string{"at shutdown", "exit status 5", "faulty: could not flush state"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Close() error lacks %q:\n%v", want, err)
		}
	}
}

func TestCancelKillsProcessGroup(t *testing.T) {
	t.Parallel()
	exe := testProvider(t, "faulty/hang.sh", "sh")
	p, err := Start(t.Context(), Config{Name: "faulty", Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err = p.Create(ctx, "web.db", &schema.CreateResourceRequest{Type: "thing", InputProperties: schema.Properties{}})
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != KindCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("Create() = %v, want a KindCanceled *Error wrapping context.Canceled", err)
	}
	proctest.AssertGroupGone(t, p.Pid())
	if err := p.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
}
