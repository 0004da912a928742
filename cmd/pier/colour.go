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

// colourWriter carries the decision to colour down the renderers of one
// output, so it is made once per plan, not per line.
type colourWriter struct {
	io.Writer
	on bool
}

// paintW paints s when w is a colourWriter that colours.
func paintW(w io.Writer, code, s string) string {
	cw, ok := w.(colourWriter)
	return paint(ok && cw.on, code, s)
}

// markerColour is Terraform's colour for a plan's action marker.
func markerColour(sym string) string {
	switch sym {
	case "+":
		return sgrGreen
	case "-":
		return sgrRed
	case "~":
		return sgrYellow
	}
	return sgrCyan // -/+
}
