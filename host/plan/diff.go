package plan

import (
	"sort"

	"github.com/pierhq/pier/host/source"
)

// DiffKind says how one input changed.
type DiffKind int

// The diff kinds.
const (
	DiffInvalid DiffKind = iota
	DiffAdded
	DiffRemoved
	DiffChanged
	// DiffNested is an object whose keys changed; its Children say how.
	DiffNested
)

// Diff is one changed input, possibly nested.
type Diff struct {
	Key      string
	Kind     DiffKind
	Old, New any
	Children []Diff
}

// DiffInputs compares recorded inputs with desired ones, recursing into
// objects so that a nested change shows the key that changed. Unchanged
// keys are left out. Values that are [source.Unknown] count as changed.
func DiffInputs(old, new map[string]any) []Diff {
	// The keys of both, without a set: the plan renders one diff per
	// resource, and a set and a growing out were most of what a fresh
	// apply's rendering allocated.
	sorted := make([]string, 0, len(old)+len(new))
	for k := range old {
		sorted = append(sorted, k)
	}
	for k := range new {
		if _, inOld := old[k]; !inOld {
			sorted = append(sorted, k)
		}
	}
	sort.Strings(sorted)
	var out []Diff // made at the first change, room for every key
	add := func(d Diff) {
		if out == nil {
			out = make([]Diff, 0, len(sorted))
		}
		out = append(out, d)
	}
	for _, k := range sorted {
		o, inOld := old[k]
		n, inNew := new[k]
		switch {
		case !inOld:
			add(Diff{Key: k, Kind: DiffAdded, New: n})
		case !inNew:
			add(Diff{Key: k, Kind: DiffRemoved, Old: o})
		default:
			om, oIsMap := o.(map[string]any)
			nm, nIsMap := n.(map[string]any)
			if oIsMap && nIsMap {
				if children := DiffInputs(om, nm); len(children) > 0 {
					add(Diff{Key: k, Kind: DiffNested, Children: children})
				}
				continue
			}
			if source.IsUnknown(n) || !SameInputs(map[string]any{"v": o}, map[string]any{"v": n}) {
				add(Diff{Key: k, Kind: DiffChanged, Old: o, New: n})
			}
		}
	}
	return out
}
