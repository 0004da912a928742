package tfvalue

import (
	"slices"

	"github.com/zclconf/go-cty/cty"
)

// KnownJSON is [ToJSON] of v with every unknown value in it made null, and
// calls unknown with the path of each unknown value, in the order
// cty.Transform meets them: what a plan shows of an object before apply.
// The path is in pier's v0 form, as [AttributePath] gives it; the slice
// is the caller's to keep.
//
// It is that Transform and ToJSON in one walk, building a path only for
// an unknown value, and in the v0 form at once: a preview's response was
// a third of the bridge's allocations, and most of it was the transformed
// copy and a path per attribute, then a cty path converted again per
// unknown value. A set that holds unknown values is the exception, built
// as before: making its elements null makes another set, ordered anew.
func KnownJSON(v cty.Value, unknown func(path []any)) (any, error) {
	w := knownWalk{unknown: unknown}
	return w.value(v)
}

// knownWalk is one KnownJSON: steps is the path from the root to the
// value being walked, each step's key held unboxed until a path is needed.
type knownWalk struct {
	unknown func([]any)
	steps   []knownStep
}

// knownStep is an attribute (name) or an index: a map key (name, isKey) or
// a list or tuple position (n).
type knownStep struct {
	name  string
	isKey bool
	isIdx bool
	n     int
}

// attributePath is the walk's position in the v0 form: what
// [AttributePath] gives of [knownWalk.path], without making that.
func (w *knownWalk) attributePath() []any {
	if len(w.steps) == 0 {
		return nil // the root, as AttributePath gives it
	}
	p := make([]any, len(w.steps))
	for i, s := range w.steps {
		if s.isIdx {
			p[i] = s.n
		} else {
			p[i] = s.name
		}
	}
	return p
}

func (w *knownWalk) path() cty.Path {
	p := make(cty.Path, len(w.steps))
	for i, s := range w.steps {
		switch {
		case s.isKey:
			p[i] = cty.IndexStep{Key: cty.StringVal(s.name)}
		case s.isIdx:
			p[i] = cty.IndexStep{Key: cty.NumberIntVal(int64(s.n))}
		default:
			p[i] = cty.GetAttrStep{Name: s.name}
		}
	}
	return p
}

func (w *knownWalk) value(v cty.Value) (any, error) {
	if !v.IsKnown() {
		w.unknown(w.attributePath())
		return nil, nil
	}
	if v.IsMarked() || v.IsNull() {
		return toJSON(v, nil) // nil for null; marks are refused as ToJSON refuses them
	}
	ty := v.Type()
	switch {
	case ty.IsSetType():
		if v.IsWhollyKnown() {
			return toJSON(v, nil)
		}
		prefix := w.path()
		t, err := cty.Transform(v, func(p cty.Path, e cty.Value) (cty.Value, error) {
			if e.IsKnown() {
				return e, nil
			}
			w.unknown(AttributePath(append(prefix[:len(prefix):len(prefix)], p...)))
			return cty.NullVal(e.Type()), nil
		})
		if err != nil {
			return nil, err
		}
		return toJSON(t, nil)
	case ty.IsListType(), ty.IsTupleType():
		out := make([]any, 0, v.LengthInt())
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, e := it.Element()
			w.steps = append(w.steps, knownStep{isIdx: true, n: i})
			j, err := w.value(e)
			w.steps = w.steps[:len(w.steps)-1]
			if err != nil {
				return nil, err
			}
			out = append(out, j)
		}
		return out, nil
	case ty.IsObjectType():
		// In the order of cty's iterator (sorted names), which the
		// unknown paths keep, without it: it allocates the sorted names
		// and a normalised cty string per attribute.
		atys := ty.AttributeTypes()
		var buf [32]string
		names := buf[:0]
		for name := range atys {
			names = append(names, name)
		}
		slices.Sort(names)
		out := make(map[string]any, len(names))
		for _, name := range names {
			w.steps = append(w.steps, knownStep{name: name})
			j, err := w.value(v.GetAttr(name))
			w.steps = w.steps[:len(w.steps)-1]
			if err != nil {
				return nil, err
			}
			out[name] = j
		}
		return out, nil
	case ty.IsMapType():
		out := make(map[string]any, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			w.steps = append(w.steps, knownStep{name: k.AsString(), isKey: true})
			j, err := w.value(e)
			w.steps = w.steps[:len(w.steps)-1]
			if err != nil {
				return nil, err
			}
			// A map key is a string value: as toJSON writes it.
			key, err := toJSON(k, nil)
			if err != nil {
				return nil, err
			}
			out[key.(string)] = j
		}
		return out, nil
	}
	return toJSON(v, nil)
}

// AttributePath converts a cty path to pier's v0 form: attribute names
// and map keys as strings, list and tuple positions as ints. A set
// element has no index of its own; the path stops at the set (or, in a
// set of strings, names the element by its value).
func AttributePath(p cty.Path) []any {
	var out []any
	for _, s := range p {
		switch s := s.(type) {
		case cty.GetAttrStep:
			out = append(out, s.Name)
		case cty.IndexStep:
			switch {
			case !s.Key.IsKnown() || s.Key.IsNull():
				return out
			case s.Key.Type() == cty.String:
				out = append(out, s.Key.AsString())
			case s.Key.Type() == cty.Number:
				i, _ := s.Key.AsBigFloat().Int64()
				out = append(out, int(i))
			default:
				return out
			}
		}
	}
	return out
}

// WhollyKnown is v.IsWhollyKnown() without cty's element iterator for an
// object, which sorts the attribute names into a new slice and makes a
// cty string of each: the answer does not depend on the order, so the
// attributes are read in the type's own.
func WhollyKnown(v cty.Value) bool {
	if v.IsMarked() {
		v, _ = v.Unmark()
	}
	if !v.IsKnown() {
		return false
	}
	if v.IsNull() {
		return true
	}
	switch ty := v.Type(); {
	case ty.IsPrimitiveType():
		return true
	case ty.IsObjectType():
		for name := range ty.AttributeTypes() {
			if !WhollyKnown(v.GetAttr(name)) {
				return false
			}
		}
		return true
	}
	return v.IsWhollyKnown()
}
