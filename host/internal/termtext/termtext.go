// Package termtext makes text that pier did not write (a provider's
// stderr, error messages and diagnostics) safe to show on a terminal. It
// is the one place that decides what a terminal may receive from a
// provider, and at what level a provider's stderr line is logged;
// host/provider and host/tfschema call it where provider text comes in.
package termtext

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"
)

// MaxLine caps one line of a provider's text, in bytes: a provider that
// returns a whole file as its message, or dumps binary data to stderr,
// cannot flood the terminal or grow pier's memory. 16 KiB holds any log
// line or message written for people.
const MaxLine = 16 << 10

// Truncated marks where an overlong line was cut.
const Truncated = " …(line truncated)"

// Printable returns a provider's text fit for a terminal: every control
// character but tab and newline (ESC, carriage return, backspace, DEL, the
// C1 controls), the bidirectional-text controls that reorder what is shown,
// and each byte that is not UTF-8 are written as Go escapes (\x1b, \u202e),
// so that no provider can clear the screen, set the window title or
// disguise a line, and each line longer than MaxLine is cut to MaxLine
// with a mark ([Truncate]). Text with nothing to change is returned as it is.
func Printable(s string) string {
	if isPrintable(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	lineStart := 0
	cut := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\n' {
			b.WriteByte('\n')
			lineStart, cut = b.Len(), false
			i += size
			continue
		}
		if cut {
			i += size
			continue
		}
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case needsEscape(r):
			if r < 0x80 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
		if b.Len()-lineStart > MaxLine {
			text := b.String()
			b.Reset()
			b.WriteString(text[:lineStart])
			b.WriteString(Truncate(text[lineStart:]))
			cut = true
		}
	}
	return b.String()
}

// Truncate marks line as cut short: it returns line with its end dropped,
// at a rune boundary, so that with [Truncated] after it it holds at most
// MaxLine bytes. A line already marked and short enough is returned as
// it is, so that text shown twice is cut once.
func Truncate(line string) string {
	if len(line) <= MaxLine && strings.HasSuffix(line, Truncated) {
		return line
	}
	end := min(len(line), MaxLine-len(Truncated))
	for end > 0 && end < len(line) && !utf8.RuneStart(line[end]) {
		end--
	}
	return line[:end] + Truncated
}

// isPrintable reports whether Printable would return s unchanged.
func isPrintable(s string) bool {
	lineLen := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == '\n' {
				lineLen = 0
			} else if needsEscape(rune(c)) {
				return false
			} else {
				lineLen++
			}
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			if (r == utf8.RuneError && size == 1) || needsEscape(r) {
				return false
			}
			lineLen += size
			i += size
		}
		if lineLen > MaxLine {
			return false
		}
	}
	return true
}

// needsEscape reports whether r would act on a terminal instead of being
// shown: C0 controls but tab and newline, DEL, C1 controls, and the
// bidirectional embedding, override and isolate controls.
func needsEscape(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// LineLevel is the level a provider's stderr line is logged at: Info for a
// plain line, while a JSON log line (pier's own, or hclog's) keeps its
// level, from "level" or hclog's "@level", in any case: trace and debug,
// info, warn and warning, error, fatal, panic and critical.
func LineLevel(text string) slog.Level {
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

// setRequest attributes the lines that follow to the request in flight:
// its resource, and its request_id once it is sent.
