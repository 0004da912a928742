// Package proctest holds test helpers for checking process hygiene: that no
// process of a provider's process group survives.
package proctest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// LiveInGroup returns the processes of group pgid that are alive (zombies,
// which have exited but wait for their parent to reap them, don't count).
// It reads /proc, so it works whoever the processes' parent is.
func LiveInGroup(pgid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var live []int
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // exited while we looked
		}
		// The command name is in parentheses and may contain spaces and
		// parentheses itself; the fields after the last ')' are fixed.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		fields := bytes.Fields(data[i+1:])
		if len(fields) < 3 {
			continue
		}
		state, pgrp := string(fields[0]), string(fields[2])
		if state == "Z" || state == "X" || pgrp != strconv.Itoa(pgid) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		live = append(live, pid)
	}
	return live
}

// AssertGroupGone fails the test if a process of group pgid is still alive
// after a short settling time (SIGKILL delivery is asynchronous).
func AssertGroupGone(tb testing.TB, pgid int) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		live := LiveInGroup(pgid)
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			tb.Errorf("processes %v of process group %d are still alive", live, pgid)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
