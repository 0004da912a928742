package main

import (
	"os"
	"runtime/debug"
)

// commandGCPercent is the collector's pace for a pier command's own
// process: it lets the heap grow to five times what is live before
// collecting, where Go's default is twice. Most commands are short and
// allocate far more than they keep: a no-op plan of 10,000 resources
// allocates about 100 MiB and keeps less than half of it, and collecting
// at the default pace costs it about a sixth of its CPU. A long apply keeps
// little (about 11 MiB for 1000 bridged resources), so its heap stays
// small instead of growing to a fixed threshold first, and pier's own
// processes stay smaller than the providers they run.
const commandGCPercent = 400

// tuneGC sets the collector's pace for a command and for the local
// adapter, whose state handler reads and writes the whole state as the
// command does. The Terraform bridges and holder (`pier adapter
// terraform`, `pier tf hold`) live as long as the command, keep little,
// and run beside the provider they serve: they keep Go's default, so the
// user's memory goes to the provider. GOGC or GOMEMLIMIT in the
// environment win: the user chose.
func tuneGC(args []string) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if len(args) > 2 && (args[1] == "adapter" && args[2] == "terraform" || args[1] == "tf" && args[2] == "hold") {
		return
	}
	debug.SetGCPercent(commandGCPercent)
}
