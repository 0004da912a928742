package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// This file reads a deployment's states: it runs every state handler (a
// stateless create, as in NixOps4) and reads the state it holds. Planning
// reads them before it decides anything, the state commands before they
// record, and applying a saved plan reads them again.

// HandlerRef is a state handler as run during planning.
type HandlerRef struct {
	Resource *source.Resource
	Outputs  map[string]any
	View     *statedoc.View
}

// StateSet is every state of a deployment, as read for one snapshot.
type StateSet struct {
	// Handlers are the state handlers as read, by address.
	Handlers map[string]*HandlerRef
	// Recorded are all entries across the states, by address.
	Recorded map[string]*statedoc.Recorded
	// Duplicate is the first resource found recorded in two states:
	// planning refuses it, while the state commands must still work, to
	// let pier state forget resolve it.
	Duplicate error
}

// Views are the states' views, by handler address.
func (s *StateSet) Views() map[string]*statedoc.View {
	out := make(map[string]*statedoc.View, len(s.Handlers))
	for h, ref := range s.Handlers {
		out[h] = ref.View
	}
	return out
}

// ReadStates runs every state handler of snap, in address order, and
// reads the state it holds.
func (e *Engine) ReadStates(ctx context.Context, snap *source.Snapshot) (*StateSet, error) {
	return e.ReadStatesAfter(ctx, snap, nil)
}

// ReadStatesAfter is ReadStates for the snapshot that early (see
// [Engine.StartStateReads]) watched resolve: it takes the states early
// read when they are the ones ReadStates would have read first, and
// otherwise gives their handlers' locks back and reads every state.
func (e *Engine) ReadStatesAfter(ctx context.Context, snap *source.Snapshot, early *EarlyStates) (*StateSet, error) {
	reads := early.finish()
	set := &StateSet{Handlers: map[string]*HandlerRef{}, Recorded: map[string]*statedoc.Recorded{}}
	handlers := e.stateHandlers(snap)
	ready := map[string]*source.Resource{}
	for _, r := range snap.Ready {
		if mayBeOneOf(r.Address, handlers) {
			ready[r.Address.String()] = r
		}
	}
	order := slices.Sorted(maps.Keys(handlers))
	if !usable(reads, order, ready) {
		for _, rd := range reads {
			if _, err := e.providers.RetakeHandler(rd.r.Provider, rd.r.Address.String()); err != nil {
				return nil, err
			}
		}
		reads = nil
	}
	for i, h := range order {
		r := ready[h]
		if r == nil {
			return nil, e.handlerNotReady(h, snap)
		}
		if r.Stateful() {
			return nil, fmt.Errorf("%s (%s): a state handler cannot itself be stateful: its state would have to be read before it could be read", h, r.Range)
		}
		var ref *HandlerRef
		var err error
		if i < len(reads) {
			ref, err = reads[i].ref, reads[i].err
		} else {
			ref, err = e.ReadState(ctx, r)
		}
		if err != nil {
			return nil, err
		}
		set.Handlers[h] = ref
		for addr, rec := range ref.View.Entries {
			if other, dup := set.Recorded[addr]; dup {
				if set.Duplicate == nil {
					set.Duplicate = fmt.Errorf("resource %s is recorded in two states, %s and %s; remove it from one with: pier state forget --state %s %s", addr, other.Handler, h, h, addr)
				}
				continue
			}
			set.Recorded[addr] = rec
		}
	}
	return set, nil
}

// mayBeOneOf reports false when a is none of the addresses in set,
// without spelling a, which for a large deployment is most of the cost
// of finding its few state handlers among its resources: an address
// whose last step has a plain name holds that name as it is, so it is
// no address that lacks it.
func mayBeOneOf(a source.Address, set map[string]bool) bool {
	if len(a) == 0 || !source.PlainName(a[len(a)-1].Name) {
		return true
	}
	name := a[len(a)-1].Name
	for s := range set {
		if strings.Contains(s, name) {
			return true
		}
	}
	return false
}

// States runs the deployment's state handlers and reads what they hold,
// without starting any other provider.
func (e *Engine) States(ctx context.Context) (map[string]*statedoc.View, error) {
	set, _, err := e.readStatesOnly(ctx)
	if err != nil {
		return nil, err
	}
	return set.Views(), nil
}

// readStatesOnly reads the states for a snapshot that knows no outputs,
// and returns that snapshot: what the state commands, which change no
// object, read before they record.
func (e *Engine) readStatesOnly(ctx context.Context) (*StateSet, *source.Snapshot, error) {
	snap, err := e.Snapshot(ctx, source.Outputs{})
	if err != nil {
		return nil, nil, err
	}
	set, err := e.ReadStates(ctx, snap)
	if err != nil {
		return nil, nil, err
	}
	return set, snap, nil
}

// stateHandlers returns the addresses of the state handlers in snap: those
// the resources refer to, and resources of the built-in state types. The
// latter matter when nothing refers to a state any more (its last
// resource was removed): its entries must still be read to be destroyed.
func (e *Engine) stateHandlers(snap *source.Snapshot) map[string]bool {
	out := map[string]bool{}
	for _, r := range snap.Ready {
		if r.State != nil {
			out[r.State.String()] = true
		}
		if d := snap.Providers[r.Provider]; d != nil && d.Builtin != "" && e.cfg.Builtins[d.Builtin].IsStateType(r.Type) && !r.Stateful() {
			out[r.Address.String()] = true
		}
	}
	for _, b := range snap.Blocked {
		if b.Resource != nil && b.Resource.State != nil {
			out[b.Resource.State.String()] = true
		}
	}
	return out
}

// handlerNotReady says why state handler h could not be read: it waits
// on outputs, or is no resource of the deployment.
func (e *Engine) handlerNotReady(h string, snap *source.Snapshot) error {
	// The position of a resource that names h, so that the user can find
	// the reference.
	var user *source.Resource
	for _, r := range snap.Ready {
		if r.State != nil && r.State.String() == h {
			user = r
			break
		}
	}
	for _, b := range snap.Blocked {
		if user == nil && b.Resource != nil && b.Resource.State != nil && b.Resource.State.String() == h {
			user = b.Resource
		}
	}
	for _, b := range snap.Blocked {
		if b.Address.String() == h {
			var waits []string
			for _, w := range b.WaitsOn {
				waits = append(waits, w.String())
			}
			at := ""
			if b.Resource != nil && b.Resource.Range.Filename != "" {
				at = b.Resource.Range.String() + ": "
			}
			return fmt.Errorf("%sstate handler %s depends on outputs of %s: a state handler's inputs must be known before apply, because state is read first", at, h, strings.Join(waits, ", "))
		}
	}
	if user != nil {
		return fmt.Errorf("%s: %s names state handler %s, which is not a resource of the deployment", user.Range, user.Address, h)
	}
	return fmt.Errorf("state handler %s is not a resource of the deployment", h)
}

// ReadState creates a state handler resource and reads its state.
func (e *Engine) ReadState(ctx context.Context, r *source.Resource) (*HandlerRef, error) {
	addr := r.Address.String()
	resp, err := e.providers.callHandler(ctx, r.Provider, addr, &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
		Type: r.Type, InputProperties: r.Inputs, IsStateful: false,
	}})
	if err != nil {
		return nil, fmt.Errorf("state handler %s (provider %s): %w", addr, r.Provider, err)
	}
	outputs := resp.CreateResourceResponse.OutputProperties
	read, size, err := e.providers.callHandlerSized(ctx, r.Provider, addr, &schema.Request{StateResourceReadRequest: &schema.StateResourceReadRequest{
		Resource: schema.ExtantResource{Type: r.Type, InputProperties: r.Inputs, OutputProperties: outputs},
	}})
	if err != nil {
		return nil, fmt.Errorf("read state from %s (provider %s): %w", addr, r.Provider, err)
	}
	view, err := statedoc.Decode(addr, read.StateResourceReadResponse.State)
	if err != nil {
		return nil, fmt.Errorf("%w (read through provider %s)", err, r.Provider)
	}
	view.SetSize(int64(size))
	return &HandlerRef{Resource: r, Outputs: outputs, View: view}, nil
}
