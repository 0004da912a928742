package tfvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pierhq/pier/adapters/terraform/internal/tfproto"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
)

// PathError is a conversion error at an attribute path.
type PathError struct {
	Path cty.Path
	Err  error
}

func (e *PathError) Error() string {
	if len(e.Path) == 0 {
		return e.Err.Error()
	}
	return fmt.Sprintf("attribute %s: %v", FormatPath(e.Path), e.Err)
}

func (e *PathError) Unwrap() error { return e.Err }

func pathErr(path cty.Path, format string, args ...any) error {
	return &PathError{Path: slices.Clone(path), Err: fmt.Errorf(format, args...)}
}

// FormatPath renders a cty path as `a.b["k"][0]`.
func FormatPath(p cty.Path) string {
	var b strings.Builder
	for i, s := range p {
		switch s := s.(type) {
		case cty.GetAttrStep:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Name)
		case cty.IndexStep:
			switch {
			case s.Key.IsNull() || !s.Key.IsKnown():
				b.WriteString("[?]")
			case s.Key.Type() == cty.String:
				b.WriteString("[" + strconv.Quote(s.Key.AsString()) + "]")
			case s.Key.Type() == cty.Number:
				b.WriteString("[" + s.Key.AsBigFloat().Text('f', -1) + "]")
			default:
				b.WriteString("[?]")
			}
		}
	}
	return b.String()
}

// Config converts resource inputs (or provider configuration) to the
// configuration object of block, applying Terraform's configuration rules.
// A nil map is the empty configuration.
func Config(block *tfproto.Block, in map[string]any) (cty.Value, error) {
	return blockValue(block, in, nil)
}

func blockValue(b *tfproto.Block, in map[string]any, path cty.Path) (cty.Value, error) {
	if b == nil {
		b = &tfproto.Block{}
	}
	// A path is made only where it is used (most attributes of most
	// configurations are left unset), and the keys of in are checked
	// against the schema by counting those it names.
	vals := make(map[string]cty.Value, len(b.Attributes)+len(b.BlockTypes))
	named := 0
	for _, a := range b.Attributes {
		raw, present := in[a.Name]
		if present {
			named++
		}
		if present && raw != nil && a.Computed && !a.Optional && !a.Required {
			return cty.NilVal, pathErr(path.GetAttr(a.Name), "is computed by the provider and cannot be set")
		}
		if !present || raw == nil {
			if a.Required {
				return cty.NilVal, pathErr(path.GetAttr(a.Name), "is required")
			}
			vals[a.Name] = cty.NullVal(a.ImpliedType())
			continue
		}
		v, err := attrValue(a, raw, path.GetAttr(a.Name))
		if err != nil {
			return cty.NilVal, err
		}
		vals[a.Name] = v
	}
	for _, nb := range b.BlockTypes {
		raw, present := in[nb.TypeName]
		if present {
			named++
		}
		v, err := nestedBlockValue(nb, raw, path.GetAttr(nb.TypeName))
		if err != nil {
			return cty.NilVal, err
		}
		vals[nb.TypeName] = v
	}
	if named != len(in) || len(vals) != len(b.Attributes)+len(b.BlockTypes) {
		// A key the schema does not have (or a schema that names one
		// thing twice, which the count cannot tell): look them up.
		known := make(map[string]bool, len(vals))
		for _, a := range b.Attributes {
			known[a.Name] = true
		}
		for _, nb := range b.BlockTypes {
			known[nb.TypeName] = true
		}
		if err := unknownKeys(in, known, path); err != nil {
			return cty.NilVal, err
		}
	}
	return cty.ObjectVal(vals), nil
}

func unknownKeys(in map[string]any, known map[string]bool, path cty.Path) error {
	var extra []string
	for k := range in {
		if !known[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) == 0 {
		return nil
	}
	sort.Strings(extra)
	return pathErr(path.GetAttr(extra[0]), "is not in the schema")
}

func attrValue(a *tfproto.Attribute, raw any, path cty.Path) (cty.Value, error) {
	if a.NestedType == nil {
		return FromJSON(raw, a.ImpliedType(), path)
	}
	o := a.NestedType
	obj := func(raw any, p cty.Path) (cty.Value, error) {
		m, ok := raw.(map[string]any)
		if !ok {
			return cty.NilVal, pathErr(p, "must be an object, not %s", jsonKind(raw))
		}
		return blockValue(&tfproto.Block{Attributes: o.Attributes}, m, p)
	}
	ety := (&tfproto.Object{Attributes: o.Attributes, Nesting: tfproto.NestingSingle}).ImpliedType()
	return collection(o.Nesting, ety, raw, path, obj)
}

func nestedBlockValue(nb *tfproto.NestedBlock, raw any, path cty.Path) (cty.Value, error) {
	ety := nb.Block.ImpliedType()
	obj := func(raw any, p cty.Path) (cty.Value, error) {
		m, ok := raw.(map[string]any)
		if !ok {
			return cty.NilVal, pathErr(p, "must be an object, not %s", jsonKind(raw))
		}
		return blockValue(nb.Block, m, p)
	}
	if raw == nil {
		switch nb.Nesting {
		case tfproto.NestingSingle:
			return cty.NullVal(ety), nil
		case tfproto.NestingGroup:
			return blockValue(nb.Block, nil, path)
		}
		raw = emptyFor(nb.Nesting)
	}
	return collection(nb.Nesting, ety, raw, path, obj)
}

func emptyFor(n tfproto.Nesting) any {
	if n == tfproto.NestingMap {
		return map[string]any{}
	}
	return []any{}
}

// collection builds a value of nesting n whose elements, of type ety, come
// from elem. List and map nesting whose element type is dynamic become
// tuples and objects, matching [tfproto.NestedBlock.ImpliedType].
func collection(n tfproto.Nesting, ety cty.Type, raw any, path cty.Path, elem func(any, cty.Path) (cty.Value, error)) (cty.Value, error) {
	switch n {
	case tfproto.NestingSingle, tfproto.NestingGroup:
		if raw == nil {
			return cty.NullVal(ety), nil
		}
		return elem(raw, path)
	case tfproto.NestingList, tfproto.NestingSet:
		if raw == nil {
			return cty.NullVal(wrapType(n, ety)), nil
		}
		items, ok := raw.([]any)
		if !ok {
			return cty.NilVal, pathErr(path, "must be an array, not %s", jsonKind(raw))
		}
		vals := make([]cty.Value, len(items))
		for i, it := range items {
			v, err := elem(it, path.Index(cty.NumberIntVal(int64(i))))
			if err != nil {
				return cty.NilVal, err
			}
			vals[i] = v
		}
		switch {
		case n == tfproto.NestingSet && len(vals) == 0:
			return cty.SetValEmpty(ety), nil
		case n == tfproto.NestingSet:
			return cty.SetVal(vals), nil
		case ety.HasDynamicTypes():
			return cty.TupleVal(vals), nil
		case len(vals) == 0:
			return cty.ListValEmpty(ety), nil
		}
		return cty.ListVal(vals), nil
	case tfproto.NestingMap:
		if raw == nil {
			return cty.NullVal(wrapType(n, ety)), nil
		}
		items, ok := raw.(map[string]any)
		if !ok {
			return cty.NilVal, pathErr(path, "must be an object, not %s", jsonKind(raw))
		}
		vals := make(map[string]cty.Value, len(items))
		for k, it := range items {
			v, err := elem(it, path.Index(cty.StringVal(k)))
			if err != nil {
				return cty.NilVal, err
			}
			vals[k] = v
		}
		switch {
		case ety.HasDynamicTypes():
			return cty.ObjectVal(vals), nil
		case len(vals) == 0:
			return cty.MapValEmpty(ety), nil
		}
		return cty.MapVal(vals), nil
	}
	return cty.NilVal, pathErr(path, "has unsupported nesting mode %s", n)
}

func wrapType(n tfproto.Nesting, ety cty.Type) cty.Type {
	switch n {
	case tfproto.NestingList:
		if ety.HasDynamicTypes() {
			return cty.DynamicPseudoType
		}
		return cty.List(ety)
	case tfproto.NestingSet:
		return cty.Set(ety)
	case tfproto.NestingMap:
		if ety.HasDynamicTypes() {
			return cty.DynamicPseudoType
		}
		return cty.Map(ety)
	}
	return ety
}

// FromJSON converts a decoded JSON value (as encoding/json produces, with
// float64 or json.Number numbers) to a value of type ty. Primitive values
// convert the way Terraform converts them (the string "5" is a number);
// objects must not have attributes the type lacks, and attributes they omit
// are null. A dynamic type takes the type the JSON implies.
func FromJSON(raw any, ty cty.Type, path cty.Path) (cty.Value, error) {
	if raw == nil {
		return cty.NullVal(ty), nil
	}
	switch {
	case ty == cty.DynamicPseudoType:
		return dynamicFromJSON(raw, path)
	case ty.IsPrimitiveType():
		v, err := primitive(raw, path)
		if _, isNum := raw.(json.Number); err != nil && isNum {
			return cty.NilVal, err
		}
		if err != nil {
			return cty.NilVal, pathErr(path, "must be %s, not %s", ty.FriendlyName(), jsonKind(raw))
		}
		if ty == cty.String && v.Type() == cty.Number {
			// What convert.Convert does (Text('f', -1)), without its
			// shortest-decimal search at 512 bits for the common
			// integer: a number given where a string belongs (a count
			// index in a map of strings) is most of what a create
			// converts.
			return cty.StringVal(numberText(v.AsBigFloat())), nil
		}
		cv, err := convert.Convert(v, ty)
		if err != nil {
			// Never quote the value: it may be a secret.
			return cty.NilVal, pathErr(path, "must be %s, not %s", ty.FriendlyName(), jsonKind(raw))
		}
		return cv, nil
	case ty.IsListType() || ty.IsSetType():
		items, ok := raw.([]any)
		if !ok {
			return cty.NilVal, pathErr(path, "must be %s, not %s", ty.FriendlyName(), jsonKind(raw))
		}
		ety := ty.ElementType()
		vals := make([]cty.Value, len(items))
		for i, it := range items {
			v, err := FromJSON(it, ety, path.Index(cty.NumberIntVal(int64(i))))
			if err != nil {
				return cty.NilVal, err
			}
			vals[i] = v
		}
		return collectionVal(ty, vals, path)
	case ty.IsMapType():
		items, ok := raw.(map[string]any)
		if !ok {
			return cty.NilVal, pathErr(path, "must be %s, not %s", ty.FriendlyName(), jsonKind(raw))
		}
		if len(items) == 0 {
			return cty.MapValEmpty(ty.ElementType()), nil
		}
		vals := make(map[string]cty.Value, len(items))
		for k, it := range items {
			v, err := FromJSON(it, ty.ElementType(), path.Index(cty.StringVal(k)))
			if err != nil {
				return cty.NilVal, err
			}
			vals[k] = v
		}
		return unifyMap(vals, ty, path)
	case ty.IsObjectType():
		items, ok := raw.(map[string]any)
		if !ok {
			return cty.NilVal, pathErr(path, "must be an object, not %s", jsonKind(raw))
		}
		atys := ty.AttributeTypes()
		known := map[string]bool{}
		vals := make(map[string]cty.Value, len(atys))
		for name, aty := range atys {
			known[name] = true
			v, err := FromJSON(items[name], aty, path.GetAttr(name))
			if err != nil {
				return cty.NilVal, err
			}
			vals[name] = v
		}
		if err := unknownKeys(items, known, path); err != nil {
			return cty.NilVal, err
		}
		return cty.ObjectVal(vals), nil
	case ty.IsTupleType():
		items, ok := raw.([]any)
		if !ok {
			return cty.NilVal, pathErr(path, "must be %s, not %s", ty.FriendlyName(), jsonKind(raw))
		}
		etys := ty.TupleElementTypes()
		if len(items) != len(etys) {
			return cty.NilVal, pathErr(path, "must have %d elements, not %d", len(etys), len(items))
		}
		vals := make([]cty.Value, len(items))
		for i, it := range items {
			v, err := FromJSON(it, etys[i], path.Index(cty.NumberIntVal(int64(i))))
			if err != nil {
				return cty.NilVal, err
			}
			vals[i] = v
		}
		return cty.TupleVal(vals), nil
	}
	return cty.NilVal, pathErr(path, "has unsupported type %s", ty.FriendlyName())
}

// collectionVal builds a list or set. Elements of a dynamic element type
// are unified to one type first, as cty requires.
func collectionVal(ty cty.Type, vals []cty.Value, path cty.Path) (cty.Value, error) {
	ety := ty.ElementType()
	if len(vals) == 0 {
		if ty.IsSetType() {
			return cty.SetValEmpty(ety), nil
		}
		return cty.ListValEmpty(ety), nil
	}
	if ety == cty.DynamicPseudoType {
		var err error
		if vals, err = unify(vals, path); err != nil {
			return cty.NilVal, err
		}
	}
	if ty.IsSetType() {
		return cty.SetVal(vals), nil
	}
	return cty.ListVal(vals), nil
}

func unifyMap(vals map[string]cty.Value, ty cty.Type, path cty.Path) (cty.Value, error) {
	if ty.ElementType() != cty.DynamicPseudoType {
		return cty.MapVal(vals), nil
	}
	keys := slices.Sorted(maps.Keys(vals))
	list := make([]cty.Value, len(keys))
	for i, k := range keys {
		list[i] = vals[k]
	}
	list, err := unify(list, path)
	if err != nil {
		return cty.NilVal, err
	}
	for i, k := range keys {
		vals[k] = list[i]
	}
	return cty.MapVal(vals), nil
}

func unify(vals []cty.Value, path cty.Path) ([]cty.Value, error) {
	tys := make([]cty.Type, len(vals))
	for i, v := range vals {
		tys[i] = v.Type()
	}
	uty, convs := convert.UnifyUnsafe(tys)
	if uty == cty.NilType {
		return nil, pathErr(path, "has elements of different types")
	}
	out := make([]cty.Value, len(vals))
	for i, v := range vals {
		if convs[i] == nil {
			out[i] = v
			continue
		}
		cv, err := convs[i](v)
		if err != nil {
			return nil, pathErr(path, "has elements of different types: %v", err)
		}
		out[i] = cv
	}
	return out, nil
}

// dynamicFromJSON converts JSON whose type the schema leaves open, the way
// Terraform types a literal: objects are objects, arrays are tuples.
func dynamicFromJSON(raw any, path cty.Path) (cty.Value, error) {
	if err := checkNumbers(raw, path); err != nil {
		return cty.NilVal, err
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return cty.NilVal, pathErr(path, "encode: %v", err)
	}
	ty, err := ctyjson.ImpliedType(data)
	if err != nil {
		return cty.NilVal, pathErr(path, "%v", err)
	}
	v, err := ctyjson.Unmarshal(data, ty)
	if err != nil {
		return cty.NilVal, pathErr(path, "%v", err)
	}
	return v, nil
}

func primitive(raw any, path cty.Path) (cty.Value, error) {
	switch x := raw.(type) {
	case string:
		return cty.StringVal(x), nil
	case bool:
		return cty.BoolVal(x), nil
	case float64:
		return cty.NumberFloatVal(x), nil
	case int:
		return cty.NumberIntVal(int64(x)), nil
	case int64:
		return cty.NumberIntVal(x), nil
	case json.Number:
		f, _, err := big.ParseFloat(string(x), 10, 512, big.ToNearestEven)
		if err != nil {
			return cty.NilVal, pathErr(path, "not a number: %v", err)
		}
		if exp := f.MantExp(nil); exp > maxBinaryExponent || exp < -maxBinaryExponent {
			return cty.NilVal, pathErr(path, "number out of range: its magnitude must lie within 1e-4900 and 1e4900")
		}
		return cty.NumberVal(f), nil
	}
	return cty.NilVal, pathErr(path, "must be a primitive value, not %s", jsonKind(raw))
}

// checkNumbers applies the range check of [primitive] to every number in
// a JSON value that is converted without a schema type.
func checkNumbers(raw any, path cty.Path) error {
	switch x := raw.(type) {
	case json.Number:
		_, err := primitive(x, path)
		return err
	case []any:
		for i, e := range x {
			if err := checkNumbers(e, path.Index(cty.NumberIntVal(int64(i)))); err != nil {
				return err
			}
		}
	case map[string]any:
		for k, e := range x {
			if err := checkNumbers(e, path.Index(cty.StringVal(k))); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxBinaryExponent bounds numbers to about 1e±4900 (quadruple precision's
// range). msgpack and string conversion write a number out in full, so a
// value like 1e10000000 would take minutes and megabytes to encode; no
// provider setting needs one.
const maxBinaryExponent = 16384

func jsonKind(raw any) string {
	switch raw.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a bool"
	case float64, int, int64, json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", raw)
}

// ToJSON converts a wholly known value to plain JSON (numbers as
// json.Number, so that they stay exact). Dynamic values lose their cty type
// tag: outputs are for people and for other resources' inputs.
//
// It walks the value directly instead of encoding it with cty's JSON
// encoder and decoding the text again: every operation's outputs pass
// through here, and the text would only be parsed back. The result is what
// that round trip gives (the tests and FuzzConfig hold it to that).
//
// The walk itself refuses an unknown value, instead of a walk of its own
// before (IsWhollyKnown); when it fails, the error is the one that check
// first would have given.
func ToJSON(v cty.Value) (any, error) {
	out, err := toJSON(v, nil)
	if err != nil {
		if !v.IsWhollyKnown() {
			return nil, errNotWhollyKnown
		}
		return nil, err
	}
	return out, nil
}

var errNotWhollyKnown = errors.New("value is not wholly known")

// numberText is f.Text('f', -1), the shortest decimal that reads back as
// f, which cty's JSON encoder writes. That search is costly at cty's
// 512-bit precision, and most numbers are small integers: an integer
// below 2^prec, where every integer is a distinct float, has its exact
// digits as the shortest form. Zero keeps Text's sign.
func numberText(f *big.Float) string {
	if f.Sign() != 0 && f.IsInt() {
		if exp := f.MantExp(nil); exp <= 63 && exp <= int(f.Prec()) {
			if i, acc := f.Int64(); acc == big.Exact {
				return strconv.FormatInt(i, 10)
			}
		}
	}
	return f.Text('f', -1)
}

// stepJSON is toJSON for the member of the value at path that step
// names. A primitive's path is read only by an error (a mark, an
// infinity), so it is built only then: a path step allocates twice, for
// every attribute of every value the bridge returns. The step is a type
// parameter so that it becomes an interface (and allocates) only there.
func stepJSON[S cty.GetAttrStep | cty.IndexStep](v cty.Value, path cty.Path, step S) (any, error) {
	if !v.Type().IsPrimitiveType() {
		return toJSON(v, append(path, cty.PathStep(step)))
	}
	j, err := toJSON(v, nil)
	if err != nil && err != errNotWhollyKnown {
		_, err = toJSON(v, append(path, cty.PathStep(step)))
	}
	return j, err
}

func toJSON(v cty.Value, path cty.Path) (any, error) {
	if v.IsMarked() {
		return nil, path.NewErrorf("value has marks, so it cannot be serialized as JSON")
	}
	if !v.IsKnown() {
		return nil, errNotWhollyKnown
	}
	if v.IsNull() {
		return nil, nil
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		s := v.AsString()
		if !utf8.ValidString(s) {
			// encoding/json replaces each invalid byte; do as it does.
			b, _ := json.Marshal(s)
			_ = json.Unmarshal(b, &s)
		}
		return s, nil
	case ty == cty.Number:
		if v.RawEquals(cty.PositiveInfinity) || v.RawEquals(cty.NegativeInfinity) {
			return nil, path.NewErrorf("cannot serialize infinity as JSON")
		}
		return json.Number(numberText(v.AsBigFloat())), nil
	case ty == cty.Bool:
		return v.True(), nil
	case ty.IsListType(), ty.IsSetType(), ty.IsTupleType():
		out := make([]any, 0, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			j, err := stepJSON(e, path, cty.IndexStep{Key: k})
			if err != nil {
				return nil, err
			}
			out = append(out, j)
		}
		return out, nil
	case ty.IsMapType():
		out := make(map[string]any, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			j, err := stepJSON(e, path, cty.IndexStep{Key: k})
			if err != nil {
				return nil, err
			}
			key, err := toJSON(k, path)
			if err != nil {
				return nil, err
			}
			out[key.(string)] = j
		}
		return out, nil
	case ty.IsObjectType():
		atys := ty.AttributeTypes()
		out := make(map[string]any, len(atys))
		for name := range atys {
			j, err := stepJSON(v.GetAttr(name), path, cty.GetAttrStep{Name: name})
			if err != nil {
				return nil, err
			}
			out[name] = j
		}
		return out, nil
	}
	// Capsules, which no Terraform schema has: as cty's encoder does.
	data, err := ctyjson.Marshal(v, ty)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// StateJSON encodes a state value the way Terraform stores state, for
// UpgradeResourceState: JSON against the implied type, where dynamic values
// carry their type.
func StateJSON(v cty.Value, ty cty.Type) ([]byte, error) {
	return ctyjson.Marshal(v, ty)
}

// Marshal encodes v as msgpack against ty. Against a dynamic type, msgpack
// carries the value's own type alongside it.
func Marshal(v cty.Value, ty cty.Type) ([]byte, error) {
	return ctymsgpack.Marshal(v, ty)
}

// UnmarshalDynamic decodes a DynamicValue that holds msgpack or, from old
// providers, JSON.
func UnmarshalDynamic(msgpack, jsonData []byte, ty cty.Type) (cty.Value, error) {
	if len(msgpack) == 0 && len(jsonData) > 0 {
		return ctyjson.Unmarshal(jsonData, ty)
	}
	return Unmarshal(msgpack, ty)
}
