// Package lockholder says who holds a state lock: the pier command the
// user started, for the message a user refused the lock is shown. The
// state handlers (state_file, pg_state) record it beside their locks, as
// a [statefile.Holder], the one type for it.
package lockholder

import (
	"bytes"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/statefile"
)

// Record is the note a state handler adds under schema.LockHolderKey to
// the state it sends a reader that does not lock, when h has held the
// lock since since (the zero time when unknown). state_file and pg_state
// write it alike, in the one shape [schema.LockHolder] defines.
func Record(h statefile.Holder, since time.Time) map[string]any {
	return schema.NewLockHolder(h.PID, since, h.Command, h.User, h.Host).Note()
}

// Current describes the pier command this process serves. pier runs
// state handlers as `pier adapter …`, a direct child of the command the
// user started (`pier apply`, …), so when the parent runs the same
// executable, the parent is named: a user refused the lock learns which
// command to wait for or stop, not an adapter's pid. Otherwise (the
// adapter run by hand or by another host) this process is named.
func Current() statefile.Holder {
	pid, args := os.Getpid(), os.Args
	if ppid := os.Getppid(); sameExecutable(ppid) {
		if a := procArgs(ppid); a != nil {
			pid, args = ppid, a
		}
	}
	h := statefile.Holder{PID: pid, Command: WithoutValues(args)}
	if u, err := user.Current(); err == nil {
		h.User = u.Username
	}
	h.Host, _ = os.Hostname()
	return h
}

// sameExecutable reports whether process pid runs this process's
// executable.
func sameExecutable(pid int) bool {
	self, err1 := os.Readlink("/proc/self/exe")
	other, err2 := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	return err1 == nil && err2 == nil && self == other
}

func procArgs(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(string(bytes.TrimRight(b, "\x00")), "\x00")
}

// WithoutValues renders a command line for a lock record: the program's
// name, the words before the first flag (the subcommand), and flag names.
// Every value after a flag is dropped, because a --var value may be a
// secret and the record is readable by whoever can read the lock.
func WithoutValues(args []string) string {
	if len(args) == 0 {
		return ""
	}
	out := []string{filepath.Base(args[0])}
	flags := false
	for _, a := range args[1:] {
		switch {
		case strings.HasPrefix(a, "-"):
			flags = true
			name, _, hasValue := strings.Cut(a, "=")
			if hasValue {
				name += "=…"
			}
			out = append(out, name)
		case !flags:
			out = append(out, a)
		default:
			out = append(out, "…")
		}
	}
	return strings.Join(out, " ")
}
