package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// This file holds what a resource's lifecycle and the plan options do to
// a plan: ignore_changes keeps recorded inputs, create_before_destroy
// turns a replace into a create and the destroy of a deposed object,
// prevent_destroy refuses plans, and targets cut the plan down.

// keptInputs are r's inputs with the paths its lifecycle ignores taken
// from the recorded entry.
func keptInputs(r *source.Resource, rec *statedoc.Recorded) map[string]any {
	if r.Lifecycle == nil || len(r.Lifecycle.IgnoreChanges) == 0 || rec == nil {
		return r.Inputs
	}
	prior := rec.Entry.InputProperties
	out := maps.Clone(r.Inputs)
	if out == nil {
		out = map[string]any{}
	}
	for _, path := range r.Lifecycle.IgnoreChanges {
		if path == "*" {
			return maps.Clone(prior)
		}
		keepPath(out, prior, strings.Split(path, "."))
	}
	return out
}

// keepPath sets the value at path in dst to the one in prior, or deletes
// it where prior has none. Maps on the way are copied, never changed in
// place: dst shares them with the source's resource.
func keepPath(dst, prior map[string]any, path []string) {
	k := path[0]
	pv, inPrior := prior[k]
	if len(path) == 1 {
		if inPrior {
			dst[k] = pv
		} else {
			delete(dst, k)
		}
		return
	}
	pm, _ := pv.(map[string]any)
	dm, ok := dst[k].(map[string]any)
	if !ok {
		if pm != nil {
			dst[k] = pv
		}
		return
	}
	dm = maps.Clone(dm)
	dst[k] = dm
	if pm == nil {
		pm = map[string]any{}
	}
	keepPath(dm, pm, path[1:])
}

// withKeptInputs returns r, or a copy of it with the ignored inputs kept
// from the record.
func withKeptInputs(r *source.Resource, rec *statedoc.Recorded) *source.Resource {
	kept := keptInputs(r, rec)
	if r.Lifecycle == nil || len(r.Lifecycle.IgnoreChanges) == 0 {
		return r
	}
	c := *r
	c.Inputs = kept
	return &c
}

// finish completes a plan once every change is decided: the deposed
// objects left by earlier applies are destroyed, create-before-destroy
// replaces get their deposed halves, prevent_destroy is enforced and
// targets applied.
func (pl *planner) finish(snap *source.Snapshot) error {
	p := pl.plan
	// Sorted are only the resources with deposed objects, which are few:
	// sorting every recorded address costs what the state costs.
	var withDeposed []string
	for addr, rec := range pl.recorded {
		if len(rec.Entry.Deposed) > 0 {
			withDeposed = append(withDeposed, addr)
		}
	}
	slices.Sort(withDeposed)
	for _, addr := range withDeposed {
		rec := pl.recorded[addr]
		for _, key := range slices.Sorted(maps.Keys(rec.Entry.Deposed)) {
			p.add(&Change{
				Address: rec.Address, Action: execgraph.ActionDestroy, Deposed: key,
				Prior: &statedoc.Recorded{Address: rec.Address, Handler: rec.Handler, Entry: rec.Entry.Deposed[key]},
				Note:  "deposed object left by a create-before-destroy replacement whose destroy did not complete",
			})
		}
	}
	for _, c := range append([]*Change(nil), p.Changes...) {
		if c.Action == execgraph.ActionReplace && c.Resource != nil && c.Resource.Lifecycle != nil && c.Resource.Lifecycle.CreateBeforeDestroy {
			planCreateBeforeDestroy(p, c)
		}
	}
	if err := preventDestroy(p, snap); err != nil {
		return err
	}
	if err := p.checkReplace(); err != nil {
		return err
	}
	if len(p.Targets) > 0 {
		if err := p.target(); err != nil {
			return err
		}
	}
	pl.notePending()
	p.sort()
	return nil
}

// planCreateBeforeDestroy makes c create its new object first and depose
// the old one, and adds the destroy of that deposed object.
func planCreateBeforeDestroy(p *Plan, c *Change) {
	c.CreateBeforeDestroy = true
	c.DeposeKey = deposedKey(c.Address, c.Prior.Entry)
	if c.Note == "" {
		c.Note = "create before destroy"
	} else {
		c.Note += "; create before destroy"
	}
	p.add(&Change{
		Address: c.Address, Action: execgraph.ActionDestroy, Deposed: c.DeposeKey, OfReplace: true,
		// Recorded where the replacement records its new object.
		Prior: &statedoc.Recorded{Address: c.Address, Handler: c.Resource.State.String(), Entry: c.Prior.Entry},
		Note:  "the object " + c.Address.String() + " replaces, destroyed once the replacement and its dependents are done",
	})
}

// deposedKey names a deposed object, as Terraform's deposed keys do:
// eight hex digits. It is derived from the object, not drawn at random,
// so that planning the same change twice names it the same way (a saved
// plan is checked against a new plan); an address deposes an object once.
func deposedKey(addr source.Address, old statedoc.Entry) string {
	raw, _ := json.Marshal(old)
	sum := sha256.Sum256(append([]byte(addr.String()+"\x00"), raw...))
	return hex.EncodeToString(sum[:4])
}

// preventDestroy fails a plan that destroys or replaces a resource whose
// lifecycle has prevent_destroy, naming each with its position.
func preventDestroy(p *Plan, snap *source.Snapshot) error {
	// Listed only for a plan that destroys something: most plans do not,
	// and on a large deployment the list is a noticeable part of a no-op.
	var declared map[string]*source.Resource
	declaredAt := func(addr string) *source.Resource {
		if declared == nil {
			declared = map[string]*source.Resource{}
			if snap != nil {
				for _, r := range snap.Ready {
					declared[r.Address.String()] = r
				}
				for _, b := range snap.Blocked {
					if b.Resource != nil {
						declared[b.Address.String()] = b.Resource
					}
				}
			}
		}
		return declared[addr]
	}
	var errs []error
	for _, c := range p.Changes {
		if c.Deposed != "" || (c.Action != execgraph.ActionDestroy && c.Action != execgraph.ActionReplace) {
			continue
		}
		r := c.Resource
		if r == nil {
			// A destroy: the resource may still be declared (pier destroy).
			r = declaredAt(c.Address.String())
		}
		if r == nil || r.Lifecycle == nil || !r.Lifecycle.PreventDestroy {
			continue
		}
		verb := "destroy"
		if c.Action == execgraph.ActionReplace {
			verb = "replace"
		}
		at := r.Lifecycle.Range
		if at.Filename == "" {
			at = r.Range
		}
		errs = append(errs, &PreventDestroyError{Range: at, Address: c.Address.String(), Verb: verb, Reason: changeReason(p, c)})
	}
	return errors.Join(errs...)
}

// PreventDestroyError refuses a plan that would destroy or replace a
// resource whose lifecycle sets prevent_destroy. Range is the setting's
// position (or the resource's).
type PreventDestroyError struct {
	Range   source.Range
	Address string
	Verb    string // "destroy" or "replace"
	Reason  string // why the plan would do it
}

func (e *PreventDestroyError) Error() string {
	msg := e.Detail()
	if pos := e.Range.String(); pos != "" {
		msg = pos + ": " + msg
	}
	return msg
}

// Detail is the error without its position, for a renderer that shows
// the position itself.
func (e *PreventDestroyError) Detail() string {
	return fmt.Sprintf("resource %s has lifecycle.prevent_destroy set, but this plan would %s it (%s); change the plan, or remove prevent_destroy first", e.Address, e.Verb, e.Reason)
}

func changeReason(p *Plan, c *Change) string {
	switch {
	case p.Destroy:
		return "pier destroy destroys everything"
	case c.Note != "":
		return c.Note
	case c.Action == execgraph.ActionDestroy:
		return "it is no longer in the deployment"
	}
	return "its inputs changed"
}

// Targeted reports whether addr is one of targets or below one.
func Targeted(addr string, targets []string) bool {
	for _, t := range targets {
		if addr == t || strings.HasPrefix(addr, t+"[") || strings.HasPrefix(addr, t+".") {
			return true
		}
	}
	return false
}

// checkReplace refuses a --replace address that names no resource
// instance of the plan, as a typo or a missing instance key would
// otherwise plan "No changes" in silence. An address that names a whole
// counted resource or a composite lists the instances it could mean.
func (p *Plan) checkReplace() error {
	for _, a := range slices.Sorted(maps.Keys(p.replace)) {
		if p.Change(a) != nil {
			continue
		}
		var under []string
		for _, c := range p.Changes {
			if addr := c.Address.String(); !c.StateHandler && c.Deposed == "" && Targeted(addr, []string{a}) && !slices.Contains(under, addr) {
				under = append(under, addr)
			}
		}
		if len(under) == 0 {
			return fmt.Errorf("--replace %s: no resource of the deployment or its state has this address", a)
		}
		const shown = 5
		more := ""
		if len(under) > shown {
			more = fmt.Sprintf(" and %d more", len(under)-shown)
			under = under[:shown]
		}
		return fmt.Errorf("--replace %s: names no single resource instance, but %s%s under it: give the full address of each one to replace, e.g. --replace '%s'", a, strings.Join(under, ", "), more, under[0])
	}
	return nil
}

// target cuts the plan down to the targets and what they depend on.
func (p *Plan) target() error {
	keep := map[string]bool{}
	var visit func(addr string)
	visit = func(addr string) {
		if keep[addr] {
			return
		}
		keep[addr] = true
		c := p.Change(addr)
		if c == nil {
			return
		}
		if c.Resource != nil {
			for _, d := range c.Resource.DependsOn {
				visit(d.String())
			}
			if c.Resource.State != nil {
				visit(c.Resource.State.String())
			}
		}
		for _, w := range c.WaitsOn {
			visit(w)
		}
	}
	matched := map[string]bool{}
	for _, c := range p.Changes {
		for _, t := range p.Targets {
			if Targeted(c.Address.String(), []string{t}) {
				matched[t] = true
				visit(c.Addr())
			}
		}
	}
	for _, t := range p.Targets {
		if !matched[t] {
			return fmt.Errorf("--target %s: no resource of the deployment or its state has this address", t)
		}
	}
	var kept []*Change
	p.byAddr = map[string]*Change{}
	for _, c := range p.Changes {
		if c.StateHandler || keep[c.Addr()] || keep[c.Address.String()] {
			kept = append(kept, c)
			p.byAddr[c.Addr()] = c
		}
	}
	p.Changes = kept
	p.Warnings = append(p.Warnings, "Resource targeting is in effect: the plan covers only "+strings.Join(p.Targets, ", ")+" and what they depend on, so it may be incomplete. Use --target only to recover from errors or mistakes, not routinely.")
	return nil
}
