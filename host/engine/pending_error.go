package engine

import (
	"fmt"
	"strings"

	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// This file is the refusal of an operation on a resource whose pending
// operation an interrupted run left unresolved: planning warns of it, and
// apply refuses with it.

// PendingError refuses an operation on a resource with an unresolved
// pending operation from an interrupted run.
type PendingError struct {
	Address string
	// Handler is the state the pending operation is recorded in.
	Handler string
	Pending statedoc.PendingOperation
	// Recorded says the state still records an object at Address (a
	// create-before-destroy's old one, or the one a destroy was for).
	Recorded bool
	// CanImport says the resource's provider declares import.
	CanImport bool
	// Gone says the deployment no longer has the resource: nothing will
	// create it again.
	Gone bool
}

func (e *PendingError) Error() string {
	p := e.Pending
	var b strings.Builder
	fmt.Fprintf(&b, "pier was interrupted while provider %q was %s %s (type %s), started %s: a pending %s is recorded in state %s", p.Provider, p.Operation.Verb(), e.Address, p.Type, p.Started, p.Operation, e.Handler)
	b.WriteString(e.Advice())
	return b.String()
}

// Advice says what the pending operation means and how to resolve it.
func (e *PendingError) Advice() string {
	a := e.Address
	if e.Pending.Operation == statedoc.PendingDestroy {
		return fmt.Sprintf(". The object may be gone although the state records it. Check whether it exists: if it does, run pier state resolve %s --created (the record stays); if it is gone, run pier state resolve %s --absent (the record goes)", a, a)
	}
	s := ". The provider may have made an object that pier never recorded, so pier will not create it again until you say what became of it"
	switch {
	case e.Gone:
		s += fmt.Sprintf(". The deployment no longer has %s, so nothing creates it again: if the object exists, remove it yourself; then run pier state resolve %s --absent", a, a)
	case e.Recorded:
		s += fmt.Sprintf(" (the state still records the object it was replacing). Check by hand: if the new object exists, remove it yourself; then run pier state resolve %s --absent, and the next apply replaces it again", a)
	case e.CanImport:
		s += fmt.Sprintf(". If the object exists, adopt it with pier import %s ID (or pier state resolve %s --created ID); if it does not, or once you have removed it, run pier state resolve %s --absent, and the next apply creates it", a, a, a)
	default:
		s += fmt.Sprintf(". Check by hand whether it exists (provider %q does not declare import, so pier cannot adopt it): if it does, remove it yourself; then run pier state resolve %s --absent, and the next apply creates it", e.Pending.Provider, a)
	}
	return s
}

func (e *Engine) PendingError(addr, handler string, p *statedoc.PendingOperation, recorded bool) *PendingError {
	return &PendingError{Address: addr, Handler: handler, Pending: *p, Recorded: recorded, CanImport: e.providers.Supports(p.Provider, schema.OperationImport)}
}
