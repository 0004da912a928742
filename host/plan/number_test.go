package plan

import (
	"encoding/json"
	"testing"
)

func TestSameInputsNumbers(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		a, b any
		same bool
	}{
		"beyond float64":        {json.Number("9007199254740993"), json.Number("9007199254740992"), false},
		"equal big":             {json.Number("9007199254740993"), json.Number("9007199254740993"), true},
		"int and fraction":      {json.Number("1"), json.Number("1.0"), true},
		"exponent":              {json.Number("1e3"), json.Number("1000"), true},
		"float64 and number":    {0.1, json.Number("0.1"), true},
		"int and number":        {42, json.Number("42"), true},
		"int64 and float64":     {int64(7), 7.0, true},
		"number is not string":  {json.Number("1"), "1", false},
		"different fractions":   {json.Number("0.1"), json.Number("0.10000000000000001"), false},
		"huge integers differ":  {json.Number("123456789012345678901234567890"), json.Number("123456789012345678901234567891"), false},
		"nested beyond float64": {map[string]any{"n": []any{json.Number("9007199254740993")}}, map[string]any{"n": []any{json.Number("9007199254740992")}}, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := SameInputs(map[string]any{"v": tc.a}, map[string]any{"v": tc.b}); got != tc.same {
				t.Errorf("sameInputs(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.same)
			}
		})
	}
}
