package statedoc

import (
	"encoding/json"
	"fmt"

	"github.com/pierhq/pier/schema"
)

// takeLockHolder removes the handler's note of the lock holder from doc,
// before anything reads doc: it is a note to this read, not state, and the
// document a saved plan hashes, or a state command shows, is the stored
// one.
func takeLockHolder(doc map[string]any) *LockHolder {
	m, ok := doc[schema.LockHolderKey].(map[string]any)
	if !ok {
		return nil
	}
	delete(doc, schema.LockHolderKey)
	h := &LockHolder{}
	switch pid := m["pid"].(type) {
	case float64:
		h.PID = int(pid)
	case json.Number:
		n, _ := pid.Int64()
		h.PID = int(n)
	}
	h.Since, _ = m["since"].(string)
	h.Command, _ = m["command"].(string)
	h.User, _ = m["user"].(string)
	h.Host, _ = m["host"].(string)
	return h
}

// LockHolder is the command that holds a state's lock, as its handler
// reports it ([schema.LockHolderKey]).
type LockHolder struct {
	PID                        int
	Since, Command, User, Host string
}

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
