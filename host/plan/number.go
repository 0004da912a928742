package plan

import (
	"encoding/json"
	"math/big"
	"strconv"
)

// numberPrecision is the precision, in bits, at which numbers are
// compared: cty's own (HCL's numbers, and the Terraform bridge's), so
// that what is equal to the deployment source is equal to the plan. It
// holds every integer of up to 154 digits exactly.
const numberPrecision = 512

// number is a JSON number's exact value, in a canonical spelling, so that
// reflect.DeepEqual tells equal numbers from different ones: 1, 1.0 and
// 1e0 are one number; 9007199254740993 and 9007199254740992 are two,
// though float64 holds them alike. Its own type keeps it from equalling
// the string "1".
type number string

// exactNumber is the exact value of a JSON number as the engine may hold
// it. A float64 counts as the shortest decimal that reads back as it, so
// that 0.1 decoded as float64 equals 0.1 kept as json.Number.
func exactNumber(v any) any {
	var text string
	switch x := v.(type) {
	case json.Number:
		text = string(x)
	case float64:
		text = strconv.FormatFloat(x, 'g', -1, 64)
	case int:
		text = strconv.Itoa(x)
	case int64:
		text = strconv.FormatInt(x, 10)
	default:
		return v
	}
	f, _, err := big.ParseFloat(text, 10, numberPrecision, big.ToNearestEven)
	if err != nil {
		return number("invalid:" + text) // compare as written
	}
	return number(f.Text('g', -1))
}
