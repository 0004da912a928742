package tfvalue

import (
	"math/big"
	"testing"

	"github.com/zclconf/go-cty/cty"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
)

// msgpackTypes are the types FuzzUnmarshal decodes against, by index.
var msgpackTypes = []cty.Type{
	cty.String, cty.Number, cty.Bool, cty.DynamicPseudoType,
	cty.List(cty.String), cty.Set(cty.Number), cty.Map(cty.Bool),
	cty.Tuple([]cty.Type{cty.String, cty.Number}),
	cty.Object(map[string]cty.Type{
		"id": cty.String, "n": cty.Number, "b": cty.Bool,
		"triggers": cty.Map(cty.String), "list": cty.List(cty.Object(map[string]cty.Type{"x": cty.String})),
		"set": cty.Set(cty.String), "any": cty.DynamicPseudoType, "tuple": cty.Tuple([]cty.Type{cty.Bool}),
	}),
	cty.List(cty.Object(map[string]cty.Type{"a": cty.Number})),
	cty.Map(cty.List(cty.String)),
	cty.EmptyObject, cty.EmptyTuple,
}

// msgpackValues are values of msgpackTypes, encoded by cty, for the
// corpus and TestUnmarshal.
func msgpackValues() []cty.Value {
	obj := msgpackTypes[8]
	big1, _ := new(big.Float).SetString("123456789012345678901234567890.5")
	return []cty.Value{
		cty.StringVal("héllo"), cty.StringVal(""), cty.StringVal("e\u0301"), cty.NullVal(cty.String), cty.UnknownVal(cty.String),
		cty.NumberIntVal(0), cty.NumberIntVal(-1), cty.NumberIntVal(127), cty.NumberIntVal(-33), cty.NumberIntVal(200),
		cty.NumberIntVal(-200), cty.NumberIntVal(70000), cty.NumberIntVal(-70000), cty.NumberIntVal(1 << 40), cty.NumberIntVal(-1 << 40),
		cty.NumberUIntVal(1<<64 - 1), cty.NumberFloatVal(0.5), cty.NumberFloatVal(-1e300), cty.NumberVal(big1),
		cty.PositiveInfinity, cty.NegativeInfinity,
		cty.True, cty.False, cty.NullVal(cty.Bool),
		cty.DynamicVal, cty.NullVal(cty.DynamicPseudoType),
		cty.ListVal([]cty.Value{cty.StringVal("a"), cty.UnknownVal(cty.String), cty.NullVal(cty.String)}), cty.ListValEmpty(cty.String),
		cty.SetVal([]cty.Value{cty.NumberIntVal(1), cty.NumberIntVal(2)}), cty.SetValEmpty(cty.Number),
		cty.MapVal(map[string]cty.Value{"k": cty.True, "": cty.False}), cty.MapValEmpty(cty.Bool),
		cty.TupleVal([]cty.Value{cty.StringVal("t"), cty.NumberIntVal(1)}),
		cty.ObjectVal(map[string]cty.Value{
			"id": cty.StringVal("x"), "n": cty.NumberIntVal(3), "b": cty.UnknownVal(cty.Bool),
			"triggers": cty.MapVal(map[string]cty.Value{"index": cty.StringVal("7")}),
			"list":     cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"x": cty.StringVal("y")})}),
			"set":      cty.UnknownVal(cty.Set(cty.String)), "any": cty.StringVal("dyn"), "tuple": cty.TupleVal([]cty.Value{cty.True}),
		}),
		cty.UnknownVal(obj), cty.NullVal(obj),
		cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"a": cty.NumberIntVal(1)})}),
		cty.MapVal(map[string]cty.Value{"m": cty.ListVal([]cty.Value{cty.StringVal("v")})}),
		cty.EmptyObjectVal, cty.EmptyTupleVal,
		cty.UnknownVal(cty.String).Refine().NotNull().StringPrefix("pre").NewValue(),
		cty.UnknownVal(cty.Number).Refine().NumberRangeLowerBound(cty.NumberIntVal(1), true).NewValue(),
	}
}

// checkUnmarshal holds Unmarshal and the decoder of its own to cty's:
// the same value where cty decodes one, and nothing of its own (cty's
// error, or cty's panic) where cty does not.
func checkUnmarshal(t *testing.T, data []byte, ty cty.Type) {
	t.Helper()
	got, ok := fastUnmarshal(data, ty)
	if !ok {
		// Unmarshal leaves it to cty's decoder. (Which is not run here: it
		// runs out of memory on a long array that the bytes do not hold.)
		return
	}
	want, werr, wpanic := func() (v cty.Value, err error, p any) {
		defer func() { p = recover() }()
		v, err = ctymsgpack.Unmarshal(data, ty)
		return v, err, nil
	}()
	if werr != nil || wpanic != nil {
		t.Fatalf("decoding %x against %#v gave %#v, where cty's decoder fails: %v %v", data, ty, got, werr, wpanic)
	}
	if !got.RawEquals(want) {
		t.Fatalf("decoding %x against %#v gave %#v, cty's decoder %#v", data, ty, got, want)
	}
}

// TestUnmarshal decodes what cty encodes, of every type, and a few
// encodings cty never writes but reads.
func TestUnmarshal(t *testing.T) {
	t.Parallel()
	for _, v := range msgpackValues() {
		for _, ty := range append([]cty.Type{v.Type()}, msgpackTypes...) {
			data, err := ctymsgpack.Marshal(v, ty)
			if err != nil {
				continue // not a value of ty
			}
			checkUnmarshal(t, data, ty)
			got, err := Unmarshal(data, ty)
			if err != nil {
				t.Fatalf("Unmarshal of %#v against %#v: %v", v, ty, err)
			}
			want, _ := ctymsgpack.Unmarshal(data, ty)
			if !got.RawEquals(want) {
				t.Fatalf("Unmarshal of %#v against %#v = %#v, cty's decoder %#v", v, ty, got, want)
			}
		}
	}
	for name, c := range map[string]struct {
		data []byte
		ty   cty.Type
	}{
		"float32":             {[]byte{0xca, 0x3f, 0xc0, 0, 0}, cty.Number},
		"int8":                {[]byte{0xd0, 0x80}, cty.Number},
		"uint16":              {[]byte{0xcd, 0xff, 0xff}, cty.Number},
		"number as string":    {[]byte{0xa3, '1', '.', '5'}, cty.Number},
		"not a number":        {[]byte{0xa1, 'x'}, cty.Number},
		"str8":                {[]byte{0xd9, 1, 'a'}, cty.String},
		"bin8 string":         {[]byte{0xc4, 1, 'a'}, cty.String},
		"ext8 unknown":        {[]byte{0xc7, 0, 0}, cty.String},
		"fixext2":             {[]byte{0xd5, 0, 0, 0}, cty.String},
		"truncated":           {[]byte{0x92, 0xa1}, cty.List(cty.String)},
		"wrong attribute":     {[]byte{0x81, 0xa1, 'z', 0xc0}, cty.Object(map[string]cty.Type{"a": cty.String})},
		"duplicate attribute": {[]byte{0x82, 0xa1, 'a', 0xc0, 0xa1, 'a', 0xc0}, cty.Object(map[string]cty.Type{"a": cty.String, "b": cty.String})},
		"too few attributes":  {[]byte{0x81, 0xa1, 'a', 0xc0}, cty.Object(map[string]cty.Type{"a": cty.String, "b": cty.String})},
		"empty for an object": {[]byte{0x80}, cty.Object(map[string]cty.Type{"a": cty.String})},
		"empty for a tuple":   {[]byte{0x90}, cty.Tuple([]cty.Type{cty.String})},
		"mixed list":          {[]byte{0x92, 0x80, 0x81, 0xa1, 'a', 0xc0}, cty.List(cty.Object(map[string]cty.Type{"a": cty.String}))},
		"trailing bytes":      {[]byte{0xc3, 0xc3}, cty.Bool},
		"array16":             {[]byte{0xdc, 0, 1, 0xc2}, cty.List(cty.Bool)},
		"map32":               {[]byte{0xdf, 0, 0, 0, 1, 0xa1, 'k', 0xc3}, cty.Map(cty.Bool)},
		"bool for string":     {[]byte{0xc3}, cty.String},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkUnmarshal(t, c.data, c.ty)
		})
	}

	// What providers send is decoded here, not by cty's decoder.
	state := cty.ObjectVal(map[string]cty.Value{
		"id": cty.StringVal("2026-12-04T01:00:00Z"), "unix": cty.NumberIntVal(1796346000), "rfc3339": cty.UnknownVal(cty.String),
		"triggers": cty.MapVal(map[string]cty.Value{"index": cty.StringVal("7")}), "ok": cty.NullVal(cty.Bool),
		"list": cty.ListVal([]cty.Value{cty.NumberFloatVal(0.25)}), "set": cty.SetValEmpty(cty.String),
	})
	data, err := ctymsgpack.Marshal(state, state.Type())
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := fastUnmarshal(data, state.Type()); !ok || !got.RawEquals(state) {
		t.Errorf("a state of every kind of attribute but dynamic was not decoded here: %#v, %v", got, ok)
	}
}

// FuzzUnmarshal holds the decoder to cty's on any bytes, against any of
// msgpackTypes.
func FuzzUnmarshal(f *testing.F) {
	for _, v := range msgpackValues() {
		for i, ty := range msgpackTypes {
			if data, err := ctymsgpack.Marshal(v, ty); err == nil {
				f.Add(data, uint8(i))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		checkUnmarshal(t, data, msgpackTypes[int(which)%len(msgpackTypes)])
	})
}

// BenchmarkUnmarshal decodes a time_static's new state, as a create does
// twice, here and by cty's decoder.
func BenchmarkUnmarshal(b *testing.B) {
	attrs := map[string]cty.Value{"triggers": cty.MapVal(map[string]cty.Value{"index": cty.StringVal("7")})}
	for _, n := range []string{"day", "hour", "minute", "month", "second", "unix", "year"} {
		attrs[n] = cty.NumberIntVal(2026)
	}
	attrs["id"], attrs["rfc3339"] = cty.StringVal("2026-12-04T01:00:00Z"), cty.StringVal("2026-12-04T01:00:00Z")
	state := cty.ObjectVal(attrs)
	ty := state.Type()
	data, err := ctymsgpack.Marshal(state, ty)
	if err != nil {
		b.Fatal(err)
	}
	for name, decode := range map[string]func([]byte, cty.Type) (cty.Value, error){"tfvalue": Unmarshal, "cty": ctymsgpack.Unmarshal} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decode(data, ty); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
