// Package hcldepth bounds how deeply HCL input nests before anything
// parses it. HCL's parsers recurse once (or more) per level, and a Go
// stack overflow is a crash no recover can catch, so every parser of HCL
// that pier did not write itself (deployment files, variable files and
// --var values, the lock file, pier fmt's files, pier eval and console
// expressions, the RPC service's) calls [Check] first. It is the one
// home of that bound.
package hcldepth

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Max bounds how deeply brackets, parentheses, braces, strings, template
// sequences and template directives (%{if}, %{for}) may nest in HCL
// input. HCL's parsers recurse once (or more) per level, so without a
// bound 100,000 nested "(" exhaust the Go stack. Real configurations nest
// a dozen levels.
const Max = 1000

// Check returns a positioned diagnostic when src, the contents of the file
// filename (JSON when its name ends in .json), nests deeper than Max.
// Anything that parses HCL calls it first; so does a renderer that parses
// a file again for a snippet.
func Check(src []byte, filename string) hcl.Diagnostics {
	return CheckSyntax(src, filename, strings.HasSuffix(filename, ".json"))
}

// CheckSyntax is [Check] for input whose syntax its name does not tell
// (a --var value, an expression): HCL's JSON syntax when isJSON.
//
// It returns a positioned diagnostic when src nests deeper than Max. It only scans, byte by byte with a stack of at most
// Max contexts, so it costs one linear pass and no allocation
// beyond that stack before the parse (lexing the file with hclsyntax
// instead would allocate every token a second time).
func CheckSyntax(src []byte, filename string, isJSON bool) hcl.Diagnostics {
	if isJSON {
		return checkJSONNesting(src, filename)
	}
	// Contexts: 'b' a bracket, parenthesis or brace; 't' a template
	// sequence (${ or %{) in a string; 's' a quoted string; 'h' a
	// heredoc, whose marker is heredoc.
	var stack []byte
	var heredoc []string
	// directives counts the %{if} and %{for} open around this point: the
	// template parser nests their bodies as it nests brackets, though each
	// directive's own %{ } closes.
	directives := 0
	line, col := 1, 1
	top := func() byte {
		if len(stack) == 0 {
			return 'e'
		}
		return stack[len(stack)-1]
	}
	push := func(c byte, i int) hcl.Diagnostics {
		stack = append(stack, c)
		if len(stack)+directives > Max {
			at := hcl.Pos{Line: line, Column: col, Byte: i}
			return tooDeep(hcl.Range{Filename: filename, Start: at, End: hcl.Pos{Line: line, Column: col + 1, Byte: i + 1}})
		}
		return nil
	}
	pop := func() {
		if stack[len(stack)-1] == 'h' {
			heredoc = heredoc[:len(heredoc)-1]
		}
		stack = stack[:len(stack)-1]
	}
	lineStart := true
	for i := 0; i < len(src); i++ {
		c := src[i]
		var ds hcl.Diagnostics
		switch top() {
		case 's', 'h':
			switch {
			case top() == 'h' && lineStart && endsHeredoc(src[i:], heredoc[len(heredoc)-1]):
				pop()
			case c == '\\' && top() == 's':
				i++ // the escaped character
				col++
			case c == '"' && top() == 's':
				pop()
			case (c == '$' || c == '%') && i+1 < len(src) && src[i+1] == c:
				i++ // $${ and %%{ are literal
				col++
			case (c == '$' || c == '%') && i+1 < len(src) && src[i+1] == '{':
				if c == '%' {
					switch directiveKeyword(src[i+2:]) {
					case "if", "for":
						directives++
					case "endif", "endfor":
						directives = max(directives-1, 0)
					}
				}
				ds = push('t', i)
				i++
				col++
			}
		default: // an expression: the top level, a bracket or a template sequence
			switch {
			case c == '#' || c == '/' && i+1 < len(src) && src[i+1] == '/':
				for i+1 < len(src) && src[i+1] != '\n' {
					i++
				}
			case c == '/' && i+1 < len(src) && src[i+1] == '*':
				for i++; i+1 < len(src) && !(src[i] == '*' && src[i+1] == '/'); i++ {
					if src[i] == '\n' {
						line, col = line+1, 0
					}
				}
				i++
			case c == '"':
				ds = push('s', i)
			case c == '<' && i+1 < len(src) && src[i+1] == '<':
				if marker, n := heredocMarker(src[i+2:]); marker != "" {
					heredoc = append(heredoc, marker)
					ds = push('h', i)
					i += 1 + n // up to the newline, handled below
				}
			case c == '(' || c == '[' || c == '{':
				ds = push('b', i)
			case c == ')' || c == ']' || c == '}':
				if t := top(); t == 'b' || t == 't' && c == '}' {
					pop()
				}
			}
		}
		if ds != nil {
			return ds
		}
		if i < len(src) && src[i] == '\n' {
			line, col, lineStart = line+1, 1, true
			continue
		}
		lineStart = false
		if i < len(src) && src[i]&0xC0 != 0x80 { // count characters, not UTF-8 continuation bytes
			col++
		}
	}
	return nil
}

// directiveKeyword returns the keyword that opens a template directive,
// b being what follows its "%{": an optional "~", blanks, then a word.
func directiveKeyword(b []byte) string {
	n := 0
	if n < len(b) && b[n] == '~' {
		n++
	}
	for n < len(b) && (b[n] == ' ' || b[n] == '\t' || b[n] == '\r' || b[n] == '\n') {
		n++
	}
	start := n
	for n < len(b) && b[n] >= 'a' && b[n] <= 'z' {
		n++
	}
	return string(b[start:n])
}

// heredocMarker reads the rest of a heredoc opener after "<<": an optional
// "-", an identifier, then the end of the line. It returns the marker and
// how many bytes it read (not the newline), or "" when this is no heredoc.
func heredocMarker(b []byte) (string, int) {
	n := 0
	if n < len(b) && b[n] == '-' {
		n++
	}
	start := n
	for n < len(b) && (b[n] == '_' || b[n] == '-' || b[n] >= 'a' && b[n] <= 'z' || b[n] >= 'A' && b[n] <= 'Z' || b[n] >= '0' && b[n] <= '9') {
		n++
	}
	marker := string(b[start:n])
	for n < len(b) && (b[n] == ' ' || b[n] == '\t' || b[n] == '\r') {
		n++
	}
	if marker == "" || n >= len(b) || b[n] != '\n' {
		return "", 0
	}
	return marker, n
}

// endsHeredoc reports whether the line starting at b is the heredoc's
// closing marker (indented or not).
func endsHeredoc(b []byte, marker string) bool {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	rest := b[i:]
	if len(rest) < len(marker) || string(rest[:len(marker)]) != marker {
		return false
	}
	rest = rest[len(marker):]
	return len(rest) == 0 || rest[0] == '\n' || rest[0] == '\r'
}

// checkJSONNesting is checkNesting for JSON: arrays and objects, outside
// strings.
func checkJSONNesting(src []byte, filename string) hcl.Diagnostics {
	depth := 0
	inString, escaped := false, false
	pos := hcl.InitialPos
	for i, c := range src {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			if depth > Max {
				at := hcl.Pos{Line: pos.Line, Column: pos.Column, Byte: i}
				return tooDeep(hcl.Range{Filename: filename, Start: at, End: hcl.Pos{Line: at.Line, Column: at.Column + 1, Byte: i + 1}})
			}
		case c == ']' || c == '}':
			depth = max(depth-1, 0)
		}
		if c == '\n' {
			pos.Line, pos.Column = pos.Line+1, 1
		} else if c&0xC0 != 0x80 { // count characters, not UTF-8 continuation bytes
			pos.Column++
		}
	}
	return nil
}

func tooDeep(rng hcl.Range) hcl.Diagnostics {
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Nesting too deep",
		Detail:   fmt.Sprintf("Brackets, parentheses, braces, strings, templates and template directives nest more than %d levels deep here; pier refuses such input rather than exhaust its stack. Split the expression, e.g. into locals.", Max),
		Subject:  rng.Ptr(),
	}}
}
