package tfvalue

import (
	"encoding/binary"
	"math"

	"github.com/zclconf/go-cty/cty"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
)

// Unmarshal decodes msgpack against ty. Empty input is the null value, which
// is how a provider says "no object".
//
// It decodes what providers send (every type but dynamic, and unknown
// values without refinements) itself, straight from the bytes, and leaves
// the rest to cty's decoder, which also decodes anything this one does not
// accept, so that an error is always cty's own. cty's decoder builds a
// path step per attribute, with a normalised string for its name, on a
// general-purpose msgpack reader: most of the allocations of the two
// decodes a create makes (the planned and the new state). FuzzUnmarshal
// holds the two to the same values.
func Unmarshal(data []byte, ty cty.Type) (cty.Value, error) {
	if len(data) == 0 {
		return cty.NullVal(ty), nil
	}
	if v, ok := fastUnmarshal(data, ty); ok {
		return v, nil
	}
	return ctymsgpack.Unmarshal(data, ty)
}

func fastUnmarshal(data []byte, ty cty.Type) (v cty.Value, ok bool) {
	defer func() {
		// cty's constructors panic on what they refuse (a list of
		// elements of differing types); cty's decoder then says so.
		if recover() != nil {
			v, ok = cty.NilVal, false
		}
	}()
	d := msgpackDecoder{b: data}
	v, ok = d.value(ty)
	return v, ok
}

// msgpackDecoder reads one msgpack value from b at i, as cty's decoder
// reads it; ok false means it leaves the value to that decoder.
type msgpackDecoder struct {
	b []byte
	i int
}

// msgpack codes (the msgpack specification).
const (
	mpNil     = 0xc0
	mpFalse   = 0xc2
	mpTrue    = 0xc3
	mpExt8    = 0xc7
	mpExt16   = 0xc8
	mpExt32   = 0xc9
	mpFloat   = 0xca
	mpDouble  = 0xcb
	mpUint8   = 0xcc
	mpUint16  = 0xcd
	mpUint32  = 0xce
	mpUint64  = 0xcf
	mpInt8    = 0xd0
	mpInt16   = 0xd1
	mpInt32   = 0xd2
	mpInt64   = 0xd3
	mpFixExt1 = 0xd4
	mpFixExt2 = 0xd5
	mpFixExt4 = 0xd6
	mpFixExt8 = 0xd7
	mpFixExt  = 0xd8
	mpStr8    = 0xd9
	mpStr16   = 0xda
	mpStr32   = 0xdb
	mpArray16 = 0xdc
	mpArray32 = 0xdd
	mpMap16   = 0xde
	mpMap32   = 0xdf
)

// next returns the next n bytes.
func (d *msgpackDecoder) next(n int) ([]byte, bool) {
	if n < 0 || len(d.b)-d.i < n {
		return nil, false
	}
	p := d.b[d.i : d.i+n]
	d.i += n
	return p, true
}

// uint reads a big-endian unsigned integer of n bytes (1, 2, 4 or 8).
func (d *msgpackDecoder) uint(n int) (uint64, bool) {
	p, ok := d.next(n)
	if !ok {
		return 0, false
	}
	switch n {
	case 1:
		return uint64(p[0]), true
	case 2:
		return uint64(binary.BigEndian.Uint16(p)), true
	case 4:
		return uint64(binary.BigEndian.Uint32(p)), true
	}
	return binary.BigEndian.Uint64(p), true
}

// length reads the length that follows a str, array or map code of n
// bytes.
func (d *msgpackDecoder) length(n int) (int, bool) {
	u, ok := d.uint(n)
	if !ok || u > math.MaxInt32 {
		return 0, false
	}
	return int(u), true
}

// str reads a string, which cty's decoder also takes for a number.
func (d *msgpackDecoder) str() (string, bool) {
	p, ok := d.next(1)
	if !ok {
		return "", false
	}
	var n int
	switch c := p[0]; {
	case c >= 0xa0 && c <= 0xbf:
		n = int(c & 0x1f)
	case c == mpStr8:
		n, ok = d.length(1)
	case c == mpStr16:
		n, ok = d.length(2)
	case c == mpStr32:
		n, ok = d.length(4)
	default:
		return "", false
	}
	if !ok {
		return "", false
	}
	s, ok := d.next(n)
	return string(s), ok
}

// collection reads the length of an array (isMap false) or a map.
func (d *msgpackDecoder) collection(isMap bool) (int, bool) {
	p, ok := d.next(1)
	if !ok {
		return 0, false
	}
	c := p[0]
	switch {
	case !isMap && c >= 0x90 && c <= 0x9f, isMap && c >= 0x80 && c <= 0x8f:
		return int(c & 0x0f), true
	case !isMap && c == mpArray16, isMap && c == mpMap16:
		return d.length(2)
	case !isMap && c == mpArray32, isMap && c == mpMap32:
		return d.length(4)
	}
	return 0, false
}

// unknown reads an extension, cty's unknown value: one without
// refinements (a body of at most one byte) is read here.
func (d *msgpackDecoder) unknown(c byte) bool {
	var n int
	ok := true
	switch c {
	case mpFixExt1:
		n = 1
	case mpFixExt2, mpFixExt4, mpFixExt8, mpFixExt:
		return false // refinements, or another extension: cty's to read
	case mpExt8:
		n, ok = d.length(1)
	case mpExt16:
		n, ok = d.length(2)
	case mpExt32:
		n, ok = d.length(4)
	}
	if !ok || n > 1 {
		return false
	}
	_, ok = d.next(1 + n) // the extension's type code and its body
	return ok
}

func isExt(c byte) bool {
	return (c >= mpFixExt1 && c <= mpFixExt) || (c >= mpExt8 && c <= mpExt32)
}

func (d *msgpackDecoder) value(ty cty.Type) (cty.Value, bool) {
	if d.i >= len(d.b) {
		return cty.NilVal, false
	}
	c := d.b[d.i]
	if isExt(c) {
		d.i++
		return cty.UnknownVal(ty), d.unknown(c)
	}
	if ty == cty.DynamicPseudoType {
		return cty.NilVal, false // a value with its type: cty's to read
	}
	if c == mpNil {
		d.i++
		return cty.NullVal(ty), true
	}
	switch {
	case ty == cty.String:
		s, ok := d.str()
		if !ok {
			return cty.NilVal, false
		}
		return cty.StringVal(s), true
	case ty == cty.Number:
		return d.number(c)
	case ty == cty.Bool:
		d.i++
		switch c {
		case mpFalse:
			return cty.False, true
		case mpTrue:
			return cty.True, true
		}
		return cty.NilVal, false
	case ty.IsListType(), ty.IsSetType():
		n, ok := d.collection(false)
		if !ok {
			return cty.NilVal, false
		}
		ety := ty.ElementType()
		if n == 0 {
			if ty.IsListType() {
				return cty.ListValEmpty(ety), true
			}
			return cty.SetValEmpty(ety), true
		}
		vals, ok := d.elements(n, func(int) cty.Type { return ety })
		if !ok {
			return cty.NilVal, false
		}
		if ty.IsListType() {
			return cty.ListVal(vals), true
		}
		return cty.SetVal(vals), true
	case ty.IsTupleType():
		n, ok := d.collection(false)
		etys := ty.TupleElementTypes()
		switch {
		case !ok || (n != 0 && n != len(etys)):
			return cty.NilVal, false
		case n == 0:
			return cty.TupleVal(nil), true // as cty's decoder does, whatever the type
		}
		vals, ok := d.elements(n, func(i int) cty.Type { return etys[i] })
		if !ok {
			return cty.NilVal, false
		}
		return cty.TupleVal(vals), true
	case ty.IsMapType():
		n, ok := d.collection(true)
		if !ok {
			return cty.NilVal, false
		}
		ety := ty.ElementType()
		if n == 0 {
			return cty.MapValEmpty(ety), true
		}
		vals, ok := d.members(n, func(string) (cty.Type, bool) { return ety, true })
		if !ok {
			return cty.NilVal, false
		}
		return cty.MapVal(vals), true
	case ty.IsObjectType():
		n, ok := d.collection(true)
		atys := ty.AttributeTypes()
		switch {
		case !ok || (n != 0 && n != len(atys)):
			return cty.NilVal, false
		case n == 0:
			return cty.EmptyObjectVal, true // as cty's decoder does, whatever the type
		}
		vals, ok := d.members(n, func(k string) (cty.Type, bool) {
			aty, ok := atys[k]
			return aty, ok
		})
		if !ok {
			return cty.NilVal, false
		}
		return cty.ObjectVal(vals), true
	}
	return cty.NilVal, false
}

func (d *msgpackDecoder) elements(n int, ety func(int) cty.Type) ([]cty.Value, bool) {
	if n > len(d.b)-d.i { // every element takes a byte at least
		return nil, false
	}
	vals := make([]cty.Value, n)
	for i := range vals {
		v, ok := d.value(ety(i))
		if !ok {
			return nil, false
		}
		vals[i] = v
	}
	return vals, true
}

func (d *msgpackDecoder) members(n int, ety func(string) (cty.Type, bool)) (map[string]cty.Value, bool) {
	if n > (len(d.b)-d.i)/2 { // every key and value takes a byte at least
		return nil, false
	}
	vals := make(map[string]cty.Value, n)
	for range n {
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		t, ok := ety(k)
		if !ok {
			return nil, false
		}
		v, ok := d.value(t)
		if !ok {
			return nil, false
		}
		vals[k] = v
	}
	return vals, true
}

// number reads a number as cty's decoder does: integers as integers,
// floats as floats, anything else as its decimal string.
func (d *msgpackDecoder) number(c byte) (cty.Value, bool) {
	if c <= 0x7f || c >= 0xe0 { // a fixint
		d.i++
		return cty.NumberIntVal(int64(int8(c))), true
	}
	var size int
	switch c {
	case mpInt8, mpUint8:
		size = 1
	case mpInt16, mpUint16:
		size = 2
	case mpInt32, mpUint32, mpFloat:
		size = 4
	case mpInt64, mpUint64, mpDouble:
		size = 8
	default:
		s, ok := d.str()
		if !ok {
			return cty.NilVal, false
		}
		v, err := cty.ParseNumberVal(s)
		return v, err == nil
	}
	d.i++
	u, ok := d.uint(size)
	if !ok {
		return cty.NilVal, false
	}
	switch c {
	case mpUint8, mpUint16, mpUint32, mpUint64:
		return cty.NumberUIntVal(u), true
	case mpInt8:
		return cty.NumberIntVal(int64(int8(u))), true
	case mpInt16:
		return cty.NumberIntVal(int64(int16(u))), true
	case mpInt32:
		return cty.NumberIntVal(int64(int32(u))), true
	case mpInt64:
		return cty.NumberIntVal(int64(u)), true
	case mpFloat:
		return cty.NumberFloatVal(float64(math.Float32frombits(uint32(u)))), true
	}
	return cty.NumberFloatVal(math.Float64frombits(u)), true
}
