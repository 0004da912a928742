package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/urfave/cli/v2"
)

// version is pier's version, reported by --version and sent as
// nixopsVersion in state events.
var version = "0.1.0-dev"

// Commands are registered by the init functions of the cmd_*.go files, one
// per subcommand, so that each command stays in its own file. Constructors
// run in newApp, after every init.
var (
	topCommands []func() *cli.Command
	subCommands = map[string][]func() *cli.Command{}
)

// groupUsage describes the command groups that registerSub fills.
var groupUsage = map[string]string{
	"adapter":   "run a provider that ships with pier (speaks the v0 protocol on stdin/stdout)",
	"provider":  "talk to one provider directly, to test it",
	"state":     "inspect and maintain a deployment's state",
	"statefile": "inspect and maintain a state_file event log",
	"tf":        "inspect Terraform provider binaries",
}

// register adds a top-level command.
func register(f func() *cli.Command) { topCommands = append(topCommands, f) }

// registerSub adds a subcommand to one of the groups in groupUsage.
func registerSub(group string, f func() *cli.Command) {
	if _, ok := groupUsage[group]; !ok {
		panic("unknown command group " + group + ": this is a bug in pier")
	}
	subCommands[group] = append(subCommands[group], f)
}

func newApp() *cli.App {
	var commands []*cli.Command
	for _, f := range topCommands {
		commands = append(commands, f())
	}
	for group, fs := range subCommands {
		c := &cli.Command{Name: group, Usage: groupUsage[group]}
		for _, f := range fs {
			c.Subcommands = append(c.Subcommands, f())
		}
		sortCommands(c.Subcommands)
		commands = append(commands, c)
	}
	sortCommands(commands)
	return &cli.App{
		Name:                 "pier",
		Usage:                "deploy resources through JSON-lines resource providers",
		Version:              version,
		Commands:             commands,
		EnableBashCompletion: true,
		// Exit codes are chosen in main, after deferred cleanup has run.
		ExitErrHandler: func(*cli.Context, error) {},
	}
}

func sortCommands(cs []*cli.Command) {
	slices.SortFunc(cs, func(a, b *cli.Command) int { return strings.Compare(a.Name, b.Name) })
}

// interrupts implements pier's two-stage Ctrl-C. The first SIGINT or
// SIGTERM closes stop; commands that can finish gracefully (apply, destroy)
// watch it, stop starting new work and let running operations finish and
// be recorded. The second cancels the root context, which kills providers.
// Commands that did not ask for graceful stopping are cancelled at once.
type interrupts struct {
	stop     chan struct{}
	graceful atomic.Bool
}

var interrupt = &interrupts{stop: make(chan struct{})}

// gracefulStop returns the channel closed by the first interrupt, and
// makes that interrupt not cancel the root context.
func gracefulStop() <-chan struct{} {
	interrupt.graceful.Store(true)
	return interrupt.stop
}

func (in *interrupts) watch(cancel context.CancelFunc) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		n := 0
		for range sigs {
			n++
			if n == 1 {
				close(in.stop)
				if in.graceful.Load() {
					fmt.Fprintln(os.Stderr, "\npier: interrupted: letting running operations finish and be recorded; interrupt again to stop them now")
					continue
				}
			}
			cancel()
		}
	}()
}

func main() {
	// PIER_CPUPROFILE=FILE writes a CPU profile of the whole run, for
	// performance bug reports.
	if path := os.Getenv("PIER_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	interrupt.watch(cancel)
	err := newApp().RunContext(ctx, os.Args)
	cancel()
	code := exitCode(err)
	pprof.StopCPUProfile()
	os.Exit(code)
}

// Exit codes. They are API: each command's help lists the ones it uses.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// usageError marks an error in how pier was invoked.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitCoder lets an error choose its own exit code (e.g. "plan has changes").
type exitCoder interface{ ExitCode() int }

func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(os.Stderr, "pier:", err)
	var ue usageError
	var ec exitCoder
	switch {
	case errors.As(err, &ue):
		return exitUsage
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.As(err, &ec):
		return ec.ExitCode()
	}
	return exitError
}
