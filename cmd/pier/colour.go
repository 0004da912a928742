package main

import "io"

// Colour follows Terraform and the NO_COLOR convention (no-color.org):
// colour only on a terminal, never when NO_COLOR is set to anything or
// --no-color is given: globalOptions.colourFor decides, once per output.

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
// output, so it is made once per run, not per line: a command that colours
// its output hands its run function globalOptions.colourOut(stdout).
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

// sameColour returns to, coloured as from is: a renderer that buffers its
// output keeps the colour decision of the writer it was given.
func sameColour(from io.Writer, to io.Writer) io.Writer {
	if cw, ok := from.(colourWriter); ok {
		return colourWriter{Writer: to, on: cw.on}
	}
	return to
}
