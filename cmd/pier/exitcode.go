package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
)

// Exit codes are API: scripts branch on them. This file is the one place
// they are defined; exitCodes is printed by pier --help, and each command's
// help lists the ones it uses.
//
// Each code means one thing in every command. 2 is only ever "the plan
// has changes" (pier plan --detailed-exitcode, as terraform's), so a CI
// job that applies on 2 never applies after an error; a usage error is
// 64, sysexits.h's EX_USAGE, not Go's and urfave/cli's 2.
const (
	exitOK          = 0
	exitError       = 1
	exitPlanChanges = 2 // pier plan --detailed-exitcode only
	exitStalePlan   = 3
	exitStateLocked = 4
	exitUsage       = 64
	// exitOutcomeUnknown: pier adapter only, see schema.OutcomeUnknownExitStatus.
	exitOutcomeUnknown = schema.OutcomeUnknownExitStatus
	exitInterrupted    = 130
)

// exitCodes is the table pier --help prints, in order.
var exitCodes = []struct {
	code    int
	meaning string
}{
	{exitOK, "success"},
	{exitError, "error: a resource, provider or the configuration failed, or a confirmation was declined"},
	{exitPlanChanges, "changes: pier plan --detailed-exitcode found changes to make (never an error: no other case exits 2)"},
	{exitStalePlan, "stale plan: a saved plan no longer matches the state or the deployment (run pier plan again)"},
	{exitStateLocked, "state locked: another process holds the lock of a state (a state file, a PostgreSQL state, any state provider)"},
	{exitUsage, "usage: an unknown command or flag, wrong arguments, or a destroy off a terminal without --yes"},
	{exitOutcomeUnknown, "outcome unknown (pier adapter): a create or destroy may have taken effect but its answer was lost, so the adapter exited without answering and the host keeps the operation pending"},
	{exitInterrupted, "interrupted (Ctrl-C or SIGTERM)"},
}

// exitCodesHelp renders exitCodes for help text.
func exitCodesHelp() string {
	var b strings.Builder
	b.WriteString("EXIT CODES:\n")
	for _, e := range exitCodes {
		fmt.Fprintf(&b, "   %-5d%s\n", e.code, e.meaning)
	}
	return b.String()
}

// usageError marks an error in how pier was invoked.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// declinedError is returned when the user answers a confirmation prompt
// with anything but "yes". Nothing was changed, but the command did not do
// what it was asked, so scripts must not read it as success.
type declinedError struct{ what string }

func (e declinedError) Error() string { return e.what + " cancelled" }
func (e declinedError) ExitCode() int { return exitError }

// stateLocked is an error that says another process holds a state's
// lock: a state file's, a PostgreSQL state's, or any state provider's
// that answered with schema.StateLockedPrefix.
type stateLocked interface{ StateLocked() bool }

// exitCoder lets an error choose its own exit code (e.g. a stale plan).
type exitCoder interface{ ExitCode() int }

// quietError is an exit code that is not an error to print (pier plan
// --detailed-exitcode's "there are changes").
type quietError interface{ quiet() }

// printable reports whether main should print err.
func printable(err error) bool {
	var q quietError
	return err != nil && !errors.As(err, &q)
}

// exitCode maps the error a command returned to pier's exit code. It is
// the only switch from errors to codes.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ue usageError
	var ec exitCoder
	var locked stateLocked
	var unknown *providersdk.OutcomeUnknownError
	switch {
	case errors.As(err, &unknown):
		// Before the interrupted case: a cancelled call may be why its
		// outcome is lost, and the host must hear "unknown".
		return exitOutcomeUnknown
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &locked) && locked.StateLocked():
		return exitStateLocked
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.As(err, &ec):
		return ec.ExitCode()
	}
	return exitError
}
