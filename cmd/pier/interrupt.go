package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// interrupts implements pier's two-stage Ctrl-C. The first SIGINT or
// SIGTERM closes stop; commands that can finish gracefully (apply, destroy)
// watch it, stop starting new work and let running operations finish and
// be recorded. The second cancels the root context, which kills providers.
// Commands that did not ask for graceful stopping are cancelled at once.
type interrupts struct {
	stop     chan struct{}
	graceful atomic.Bool
}

func newInterrupts() *interrupts { return &interrupts{stop: make(chan struct{})} }

// gracefulStop returns the channel closed by the first interrupt, and
// makes that interrupt not cancel the root context.
func (in *interrupts) gracefulStop() <-chan struct{} {
	in.graceful.Store(true)
	return in.stop
}

// watch turns this process's SIGINT and SIGTERM into the two stages,
// cancel being the root context's; the acknowledgement of a graceful
// first stage goes to stderr.
func (in *interrupts) watch(cancel context.CancelFunc, stderr io.Writer) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		n := 0
		for range sigs {
			n++
			if n == 1 {
				close(in.stop)
				if in.graceful.Load() {
					fmt.Fprintln(stderr, "\npier: interrupted: letting running operations finish and be recorded; interrupt again to stop them now")
					continue
				}
			}
			cancel()
		}
	}()
}
