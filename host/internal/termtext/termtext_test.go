package termtext

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPrintable(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", MaxLine+10)
	tests := map[string]struct {
		in, want string
	}{
		"empty":                  {"", ""},
		"plain":                  {"create of a failed: no such file", "create of a failed: no such file"},
		"tab and newline":        {"a\tb\nc", "a\tb\nc"},
		"clear screen":           {"\x1b[2J\x1b[Hgone", `\x1b[2J\x1b[Hgone`},
		"window title":           {"\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		"carriage return":        {"ok\rFAKE", `ok\x0dFAKE`},
		"backspace and del":      {"a\bb\x7f", `a\x08b\x7f`},
		"C1 CSI":                 {"a\u009b2Jb", `a\u009b2Jb`},
		"bidi override":          {"user\u202egnp.exe", `user\u202egnp.exe`},
		"invalid UTF-8":          {"a\xffb", `a\xffb`},
		"unicode kept":           {"größe ✓ 名前", "größe ✓ 名前"},
		"long line cut":          {long + "\nnext", strings.Repeat("x", MaxLine-len(Truncated)) + Truncated + "\nnext"},
		"line at the cap":        {strings.Repeat("y", MaxLine), strings.Repeat("y", MaxLine)},
		"escapes count to cap":   {strings.Repeat("\x1b", MaxLine), strings.Repeat(`\x1b`, MaxLine/4)[:MaxLine-len(Truncated)] + Truncated},
		"cut on a rune boundary": {strings.Repeat("é", MaxLine), strings.Repeat("é", (MaxLine-len(Truncated))/2) + Truncated},
		"a cut line stays":       {strings.Repeat("z", 10) + Truncated, strings.Repeat("z", 10) + Truncated},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, Printable(tc.in)); diff != "" {
				t.Errorf("Printable (-want +got):\n%.2000s", diff)
			}
		})
	}
}

func FuzzPrintable(f *testing.F) {
	f.Add("\x1b[2J\x1b]0;t\x07\r\n\t\u202e\xff")
	f.Add(strings.Repeat("\x1bé", MaxLine/2) + "\n" + strings.Repeat("x", MaxLine+1))
	f.Fuzz(func(t *testing.T, s string) {
		out := Printable(s)
		for i, r := range out {
			if r != '\t' && r != '\n' && needsEscape(r) {
				t.Fatalf("Printable keeps %U at %d", r, i)
			}
		}
		if Printable(out) != out {
			t.Fatalf("Printable is not idempotent")
		}
		for line := range strings.SplitSeq(out, "\n") {
			if len(line) > MaxLine {
				t.Fatalf("a line of %d bytes", len(line))
			}
		}
	})
}

func TestLineLevel(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		line string
		want slog.Level
	}{
		"plain":            {line: "starting", want: slog.LevelInfo},
		"empty":            {line: "", want: slog.LevelInfo},
		"json debug":       {line: `{"level":"debug","msg":"x"}`, want: slog.LevelDebug},
		"json warn":        {line: `{"level":"WARN","msg":"x"}`, want: slog.LevelWarn},
		"json error":       {line: `{"level":"error"}`, want: slog.LevelError},
		"hclog trace":      {line: `{"@level":"trace","@message":"x"}`, want: slog.LevelDebug},
		"json no level":    {line: `{"msg":"x"}`, want: slog.LevelInfo},
		"broken json":      {line: `{"level":"error"`, want: slog.LevelInfo},
		"json level wrong": {line: `{"level":7}`, want: slog.LevelInfo},
		"json warning":     {line: `{"level":"warning"}`, want: slog.LevelWarn},
		"hclog fatal":      {line: `{"@level":"FATAL"}`, want: slog.LevelError},
		"json critical":    {line: `{"level":"critical"}`, want: slog.LevelError},
		"json panic":       {line: `{"level":"panic"}`, want: slog.LevelError},
		"slog json info":   {line: `{"time":"2026-12-02T03:11:06Z","level":"INFO","msg":"x"}`, want: slog.LevelInfo},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := LineLevel(tc.line); got != tc.want {
				t.Errorf("LineLevel(%q) = %v, want %v", tc.line, got, tc.want)
			}
		})
	}
}
