package plan

import (
	"encoding/json"
	"reflect"
)

// equalJSON reports whether two JSON values are equal as values: numbers
// by their exact value (1, 1.0 and 1e0 are one number, see exactNumber),
// and an empty object, an empty array and null alike, since sources and
// providers spell "nothing" each their own way. It allocates nothing for
// values that are spelt alike, because every plan compares the inputs of
// every recorded resource.
func equalJSON(a, b any) bool {
	if empty(a) || empty(b) {
		return empty(a) && empty(b)
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equalJSON(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case json.Number:
		if y, ok := b.(json.Number); ok && x == y {
			return true // spelt alike
		}
	}
	if isNumber(a) || isNumber(b) {
		return isNumber(a) && isNumber(b) && exactNumber(a) == exactNumber(b)
	}
	return reflect.DeepEqual(a, b)
}

// empty reports whether v is null, {} or [].
func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

func isNumber(v any) bool {
	switch v.(type) {
	case json.Number, float64, int, int64:
		return true
	}
	return false
}
