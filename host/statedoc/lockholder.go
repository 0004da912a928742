package statedoc

import (
	"fmt"

	"github.com/pierhq/pier/schema"
)

// takeLockHolder removes the handler's note of the lock holder from doc,
// before anything reads doc: it is a note to this read, not state, and the
// document a saved plan hashes, or a state command shows, is the stored
// one.
func takeLockHolder(doc map[string]any) *LockHolder {
	h, ok := schema.ReadLockHolder(doc[schema.LockHolderKey])
	if !ok {
		return nil
	}
	delete(doc, schema.LockHolderKey)
	return (*LockHolder)(&h)
}

// LockHolder is the command that holds a state's lock, as its handler
// reports it ([schema.LockHolderKey]).
type LockHolder schema.LockHolder

func (h *LockHolder) String() string {
	cmd := h.Command
	if cmd == "" {
		cmd = "another pier"
	}
	s := cmd
	if h.PID > 0 {
		s += fmt.Sprintf(", pid %d", h.PID)
	}
	if h.Host != "" {
		s += " on host " + h.Host
	}
	if h.User != "" {
		s += ", run by " + h.User
	}
	if h.Since != "" {
		s += ", holding the state lock since " + h.Since
	}
	return s
}
