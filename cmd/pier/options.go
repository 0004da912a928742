package main

import (
	"io"
	"os"
)

// globalOptions are what every command of one run of pier shares: the
// streams it reads and writes, whether it may colour them, its interrupts,
// and the flags that change how any command's error is shown. main builds
// one and newApp hands it to every command's constructor, so a run's
// settings live in it and not in package state: two apps built in one
// process do not share them.
type globalOptions struct {
	stdin          *os.File
	stdout, stderr io.Writer
	// noColour is set by NO_COLOR (no-color.org: set to anything) and by
	// the running command's --no-color.
	noColour   bool
	interrupts *interrupts
	// shown are the running command's flags that change how its error is
	// printed; the action wrapper of newApp sets them.
	shown runFlags
}

// newGlobalOptions are the options of a run that reads stdin and writes
// stdout and stderr, with interrupts no signal reaches until main watches
// them.
func newGlobalOptions(stdin *os.File, stdout, stderr io.Writer) *globalOptions {
	_, noColour := os.LookupEnv("NO_COLOR")
	return &globalOptions{stdin: stdin, stdout: stdout, stderr: stderr, noColour: noColour, interrupts: newInterrupts()}
}

// gracefulStop is the channel closed by the run's first interrupt, which
// then no longer cancels the command's context (see interrupts).
func (g *globalOptions) gracefulStop() <-chan struct{} { return g.interrupts.gracefulStop() }

// colourFor reports whether output written to w may be coloured: on a
// terminal, unless NO_COLOR or --no-color says not to.
func (g *globalOptions) colourFor(w io.Writer) bool {
	return !g.noColour && isTerminal(w)
}

// colourOut is w carrying g's decision to colour it, for the renderers
// (see colourWriter).
func (g *globalOptions) colourOut(w io.Writer) colourWriter {
	return colourWriter{w, g.colourFor(w)}
}
