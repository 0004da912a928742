package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pierhq/pier/host/statedoc"
)

// Forget removes a resource from the state that records it, with a
// "forget" event. The real object is left alone. A resource recorded in
// more than one state is forgotten only from the one state names; state
// may be empty otherwise.
func (e *Engine) Forget(ctx context.Context, addr, state string) (handler string, err error) {
	set, _, err := e.readStatesOnly(ctx)
	if err != nil {
		return "", err
	}
	states := set.Views()
	var in []string
	for _, h := range slices.Sorted(maps.Keys(states)) {
		if states[h].Entries[addr] != nil && (state == "" || state == h) {
			in = append(in, h)
		}
	}
	switch {
	case len(in) == 0 && state != "":
		return "", fmt.Errorf("%s is not recorded in state %s (see pier state list)", addr, state)
	case len(in) == 0:
		return "", fmt.Errorf("%s is not recorded in any state of this deployment (see pier state list)", addr)
	case len(in) > 1:
		return "", fmt.Errorf("%s is recorded in states %s; name the one to forget it from with --state", addr, strings.Join(in, ", "))
	}
	h := in[0]
	rec := states[h].Entries[addr]
	r := NewRecorder(e, h, set.Handlers[h])
	defer r.Close()
	if err := r.Record(ctx, "forget", func(pb *statedoc.PatchBuilder) error {
		pb.Remove(rec.Address)
		return nil
	}); err != nil {
		ref := set.Handlers[h]
		return "", fmt.Errorf("forget %s in state %s (provider %s): %w", addr, h, ref.Resource.Provider, err)
	}
	return h, nil
}
