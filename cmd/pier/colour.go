package main

import (
	"io"
	"os"
)

// Colour follows Terraform and the NO_COLOR convention (no-color.org):
// colour only on a terminal, never when NO_COLOR is set to anything or
// --no-color is given.

// noColour is set by --no-color for the whole run.
var noColour bool

// colourFor reports whether output written to w may be coloured.
func colourFor(w io.Writer) bool {
	if noColour {
		return false
	}
	if _, set := os.LookupEnv("NO_COLOR"); set {
		return false
	}
	return isTerminal(w)
}

// SGR codes pier uses.
const (
	sgrReset  = "\x1b[0m"
	sgrBold   = "\x1b[1m"
	sgrRed    = "\x1b[31m"
	sgrGreen  = "\x1b[32m"
	sgrYellow = "\x1b[33m"
	sgrCyan   = "\x1b[36m"
)

// paint wraps s in an SGR code when on is set.
func paint(on bool, code, s string) string {
	if !on || s == "" {
		return s
	}
	return code + s + sgrReset
}
