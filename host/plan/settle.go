package plan

import (
	"context"
	"maps"
	"slices"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// settle feeds the recorded outputs of unchanged resources back into the
// source until no more resources turn out unchanged: a resource whose
// inputs equal its recorded inputs keeps its recorded outputs, which may in
// turn make its dependents' inputs known and equal.
func (pl *planner) settle(ctx context.Context, snap *source.Snapshot) (*source.Snapshot, error) {
	// Keyed by resource, not address: a source returns the same resource
	// for an instance it did not re-evaluate, and spelling every address
	// in every round is what a deep chain costs. What speculate found
	// unchanged is known already, and not looked at again.
	// What is found unchanged is kept in pl.same, for classify not to
	// compare the same inputs again.
	snap, same, err := pl.speculate(ctx, snap)
	if err != nil {
		return nil, err
	}
	return pl.settleRounds(ctx, snap, same)
}

// settleRounds is settle after speculate, which found same unchanged.
func (pl *planner) settleRounds(ctx context.Context, snap *source.Snapshot, same map[*source.Resource]bool) (*source.Snapshot, error) {
	pl.same = same
	looked := map[*source.Resource]bool{}
	for {
		added := false
		for _, r := range snap.Ready {
			if same[r] || looked[r] {
				continue
			}
			looked[r] = true
			addr := r.Address.String()
			if _, known := pl.plan.Known[addr]; !known && pl.unchanged(r, addr) {
				pl.plan.Known[addr] = recordedOutputs(pl.recorded[addr])
				same[r] = true
				added = true
			}
		}
		// Resolve again even when nothing is blocked: the deployment's
		// outputs may refer to the resources just found unchanged.
		if !added {
			return snap, nil
		}
		next, err := pl.e.Snapshot(ctx, pl.plan.Known)
		if err != nil {
			return nil, err
		}
		snap = next
	}
}

// unchanged reports whether r, at addr, keeps its recorded outputs: it is
// recorded, stateful, of the recorded type (a changed type is replaced,
// with new outputs), not to be replaced, and its inputs are the recorded
// ones.
func (pl *planner) unchanged(r *source.Resource, addr string) bool {
	rec := pl.recorded[addr]
	return rec != nil && r.Stateful() && rec.Entry.Type == r.Type && !pl.replace[addr] && SameInputs(keptInputs(r, rec), rec.Entry.InputProperties)
}

func recordedOutputs(rec *statedoc.Recorded) map[string]any {
	if rec.Entry.OutputProperties == nil {
		return map[string]any{}
	}
	return rec.Entry.OutputProperties
}

// speculate settles a mostly unchanged deployment in a few resolves: it
// gives every recorded resource its recorded outputs at once, then
// withdraws them from each resource that turns out not unchanged and from
// everything that depends on one, and resolves again, until every
// resource that keeps its recorded outputs is unchanged. settle's rounds
// alone make one resolve per level of references, each evaluating the
// whole deployment, so a chain of n unchanged resources cost n². The
// result is the same: references are acyclic, so whether a resource is
// unchanged follows from its dependencies' being so, and what is left
// known here is what settle's rounds would have found; they then add back
// what was withdrawn only for depending on a changed resource. A resolve
// that fails with the recorded outputs (a changed resource's dependent
// reading an output it no longer has) leaves settle's rounds to find what
// is unchanged, and to report the errors that remain.
//
// It also returns the resources it found unchanged, whose recorded
// outputs it leaves known.
func (pl *planner) speculate(ctx context.Context, snap *source.Snapshot) (*source.Snapshot, map[*source.Resource]bool, error) {
	guessed := pl.guess()
	if len(guessed) == 0 {
		return snap, map[*source.Resource]bool{}, nil
	}
	return pl.speculateFrom(ctx, guessed, nil)
}

// guess makes every recorded resource's recorded outputs known, and
// returns the addresses it guessed.
func (pl *planner) guess() map[string]bool {
	// Sized once: grown entry by entry, maps of a large state's
	// addresses are rehashed a dozen times.
	pl.plan.Known = withRoom(pl.plan.Known, len(pl.recorded))
	guessed := make(map[string]bool, len(pl.recorded))
	for addr, rec := range pl.recorded {
		if _, known := pl.plan.Known[addr]; !known {
			pl.plan.Known[addr] = recordedOutputs(rec)
			guessed[addr] = true
		}
	}
	return guessed
}

// speculateFrom is speculate's rounds after guess; first, when not nil,
// is the first round's snapshot, resolved already with the guesses.
func (pl *planner) speculateFrom(ctx context.Context, guessed map[string]bool, first *source.Snapshot) (*source.Snapshot, map[*source.Resource]bool, error) {
	// A resource the source did not evaluate again keeps its pointer and
	// was found unchanged already.
	right := make(map[*source.Resource]bool, len(guessed))
	for {
		next, err := first, error(nil)
		first = nil
		if next == nil {
			next, err = pl.e.Snapshot(ctx, pl.plan.Known)
		}
		if err != nil {
			for addr := range guessed {
				delete(pl.plan.Known, addr)
			}
			snap, err := pl.e.Snapshot(ctx, pl.plan.Known)
			return snap, map[*source.Resource]bool{}, err
		}
		// The guesses found right are counted first: in a no-op all are,
		// and the wrong ones need not be listed. A snapshot lists each
		// address once, so the count is that of the right addresses.
		rightAddrs := 0
		for _, r := range next.Ready {
			addr := r.Address.String()
			if right[r] {
				if guessed[addr] {
					rightAddrs++
				}
				continue
			}
			if guessed[addr] && pl.unchanged(r, addr) {
				right[r] = true
				rightAddrs++
			}
		}
		if rightAddrs == len(guessed) {
			return next, right, nil
		}
		wrong := maps.Clone(guessed)
		for _, r := range next.Ready {
			if right[r] {
				delete(wrong, r.Address.String())
			}
		}
		// Withdraw the wrong guesses and those of everything that read
		// them. Resolve again only when one of them is in the deployment:
		// the record of a removed resource is read by nothing.
		present := map[string]bool{}
		readers := map[string][]*source.Resource{}
		for _, r := range next.Ready {
			present[r.Address.String()] = true
			for _, d := range r.DependsOn {
				readers[d.String()] = append(readers[d.String()], r)
			}
		}
		for _, b := range next.Blocked {
			present[b.Address.String()] = true
		}
		again := false
		queue := slices.Collect(maps.Keys(wrong))
		for len(queue) > 0 {
			addr := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			delete(pl.plan.Known, addr)
			delete(guessed, addr)
			again = again || present[addr]
			for _, r := range readers[addr] {
				if a := r.Address.String(); guessed[a] && !wrong[a] {
					wrong[a] = true
					delete(right, r)
					queue = append(queue, a)
				}
			}
		}
		if !again {
			return next, right, nil
		}
	}
}

// withRoom is m, or a copy of m with room for n more entries without
// growing, when m has fewer than n.
func withRoom[K comparable, V any](m map[K]V, n int) map[K]V {
	if len(m) >= n {
		return m
	}
	out := make(map[K]V, len(m)+n)
	maps.Copy(out, m)
	return out
}
