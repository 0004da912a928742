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
	keys := map[string]bool{}
	for k := range old {
		keys[k] = true
	}
	for k := range new {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	var out []Diff
	for _, k := range sorted {
		o, inOld := old[k]
		n, inNew := new[k]
		switch {
		case !inOld:
			out = append(out, Diff{Key: k, Kind: DiffAdded, New: n})
		case !inNew:
			out = append(out, Diff{Key: k, Kind: DiffRemoved, Old: o})
		default:
			om, oIsMap := o.(map[string]any)
			nm, nIsMap := n.(map[string]any)
			if oIsMap && nIsMap {
				if children := DiffInputs(om, nm); len(children) > 0 {
					out = append(out, Diff{Key: k, Kind: DiffNested, Children: children})
				}
				continue
			}
			if source.IsUnknown(n) || !SameInputs(map[string]any{"v": o}, map[string]any{"v": n}) {
				out = append(out, Diff{Key: k, Kind: DiffChanged, Old: o, New: n})
			}
		}
	}
	return out
}
