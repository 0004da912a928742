package local

import (
	"github.com/pierhq/pier/internal/lockholder"
	"github.com/pierhq/pier/statefile"
)

// lockHolder describes, for a state file's lock record, the pier command
// this adapter serves (see [lockholder.Current]).
func lockHolder() *statefile.Holder {
	h := lockholder.Current()
	return &h
}
