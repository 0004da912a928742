package schema

import (
	"encoding/json"
	"time"
)

// LockHolder is the note under [LockHolderKey]: who holds a state's lock,
// as the state handler (state_file, pg_state) tells a reader that does
// not lock. Handlers write it with [LockHolder.Note] and pier reads it
// with [ReadLockHolder], so its shape is spelled here alone.
type LockHolder struct {
	PID int
	// Since is when the lock was taken, RFC 3339; empty when unknown.
	Since string
	// Command, User and Host are empty where the holder did not record
	// them. Command holds no flag values: they may be secrets.
	Command, User, Host string
}

// NewLockHolder is the note for a holder that has held the lock since
// since (the zero time when unknown).
func NewLockHolder(pid int, since time.Time, command, user, host string) LockHolder {
	h := LockHolder{PID: pid, Command: command, User: user, Host: host}
	if !since.IsZero() {
		h.Since = since.UTC().Format(time.RFC3339)
	}
	return h
}

// Note is h as the decoded document holds it: pid, and since, command,
// user and host where they are set.
func (h LockHolder) Note() map[string]any {
	note := map[string]any{"pid": h.PID}
	for k, v := range map[string]string{"since": h.Since, "command": h.Command, "user": h.User, "host": h.Host} {
		if v != "" {
			note[k] = v
		}
	}
	return note
}

// ReadLockHolder reads the note under [LockHolderKey] from a decoded
// document's value; ok is false when v is not an object. A field of the
// wrong kind reads as unset: the note is for a message, never a decision.
func ReadLockHolder(v any) (h LockHolder, ok bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return LockHolder{}, false
	}
	switch pid := m["pid"].(type) {
	case float64:
		h.PID = int(pid)
	case json.Number:
		n, _ := pid.Int64()
		h.PID = int(n)
	case int:
		h.PID = pid
	}
	h.Since, _ = m["since"].(string)
	h.Command, _ = m["command"].(string)
	h.User, _ = m["user"].(string)
	h.Host, _ = m["host"].(string)
	return h, true
}
