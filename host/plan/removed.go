package plan

import (
	"fmt"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// Orphans: records whose resource block is gone. A removed block
// (source.Removed, Terraform's) says what becomes of one: destroy it
// through a named provider, which is how a record NixOps4 wrote (it has no
// provider field) or one whose provider declaration was removed can be
// destroyed at all, or forget it (destroy = false), leaving the object.

// removedFor returns the removed block covering the record at a, or nil.
func removedFor(snap *source.Snapshot, a source.Address) *source.Removed {
	if snap == nil {
		return nil
	}
	for _, rm := range snap.Removed {
		if rm.Matches(a) {
			return rm
		}
	}
	return nil
}

// orphanChange plans what becomes of a record whose resource is no
// longer in the deployment: a destroy, through the removed block's
// provider if one names it, or, with destroy = false, a forget.
func orphanChange(e *engine.Engine, rec *statedoc.Recorded, snap *source.Snapshot) *Change {
	rm := removedFor(snap, rec.Address)
	switch {
	case rm == nil:
		return DestroyChange(e, rec)
	case !rm.Destroy:
		return &Change{Address: rec.Address, Action: execgraph.ActionForget, Prior: rec,
			Note: fmt.Sprintf("removed block at %s: destroy = false, so the object is left alone and pier forgets it", rm.Range)}
	case rm.Provider != "":
		r := *rec
		r.Entry.Provider = rm.Provider
		c := DestroyChange(e, &r)
		note := fmt.Sprintf("through provider %s, as the removed block at %s says", rm.Provider, rm.Range)
		if c.Note != "" {
			note += "; " + c.Note
		}
		c.Note = note
		return c
	}
	return DestroyChange(e, rec)
}

// OrphanAdvice says how to proceed with a record pier cannot destroy
// because its provider is missing.
func OrphanAdvice(provider string, addr source.Address) string {
	from := removedFrom(addr)
	if provider == "" {
		return fmt.Sprintf("its state entry names no provider (it was written without one, e.g. by NixOps4), so pier cannot tell which provider destroys it: add removed { from = %s, provider = provider.NAME } to destroy it through a declared provider, or removed { from = %s, destroy = false } to forget it and leave the object", from, from)
	}
	return fmt.Sprintf("provider %q, which recorded it, is no longer declared in the deployment, so pier cannot destroy it: declare the provider again, add removed { from = %s, provider = provider.NAME } to destroy it through another, or removed { from = %s, destroy = false } to forget it and leave the object", provider, from, from)
}

// removedFrom spells an address as a removed block's from.
func removedFrom(a source.Address) string {
	s := ""
	for i, st := range a {
		kw := "deployment."
		if i == len(a)-1 {
			kw = "resource."
		}
		s += kw + source.Address{st}.String()
		if i < len(a)-1 {
			s += "."
		}
	}
	return s
}
