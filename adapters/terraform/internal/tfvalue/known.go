package tfvalue

import (
	"github.com/zclconf/go-cty/cty"
)

// KnownJSON is [ToJSON] of v with every unknown value in it made null, and
// calls unknown with the path of each unknown value, in the order
// cty.Transform meets them: what a plan shows of an object before apply.
//
// It is that Transform and ToJSON in one walk, building a path only for
// an unknown value: a preview's response was a third of the bridge's
// allocations, and most of it was the transformed copy and a path per
// attribute. A set that holds unknown values is the exception, built as
// before: making its elements null makes another set, ordered anew.
func KnownJSON(v cty.Value, unknown func(cty.Path)) (any, error) {
	w := knownWalk{unknown: unknown}
	return w.value(v)
}

// knownWalk is one KnownJSON: steps is the path from the root to the
// value being walked, each step's key held unboxed until a path is needed.
type knownWalk struct {
	unknown func(cty.Path)
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
		w.unknown(w.path())
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
			w.unknown(append(prefix[:len(prefix):len(prefix)], p...))
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
	case ty.IsMapType(), ty.IsObjectType():
		out := make(map[string]any, v.LengthInt())
		isMap := ty.IsMapType()
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			name := k.AsString()
			w.steps = append(w.steps, knownStep{name: name, isKey: isMap})
			j, err := w.value(e)
			w.steps = w.steps[:len(w.steps)-1]
			if err != nil {
				return nil, err
			}
			if isMap {
				// A map key is a string value: as toJSON writes it.
				key, err := toJSON(k, nil)
				if err != nil {
					return nil, err
				}
				name = key.(string)
			}
			out[name] = j
		}
		return out, nil
	}
	return toJSON(v, nil)
}
