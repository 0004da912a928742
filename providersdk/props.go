package providersdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/pierhq/pier/schema"
)

// InputError says which input field is wrong and why. [DecodeInputs]
// returns it, so a handler can branch on the field with errors.As.
type InputError struct {
	// Field is the JSON name of the offending field, "" for the whole
	// object.
	Field string
	// Problem says what is wrong, e.g. "unknown field (known: a, b)".
	Problem string
	// Err is the underlying decoding error, if any.
	Err error
}

func (e *InputError) Error() string {
	if e.Field == "" {
		return "input properties: " + e.Problem
	}
	return fmt.Sprintf("input field %q: %s", e.Field, e.Problem)
}

func (e *InputError) Unwrap() error { return e.Err }

// DecodeInputs decodes input properties into v, which should point to a
// struct whose fields carry json tags. The protocol requires a provider to
// refuse unrecognised input fields, so a field v does not declare is an
// error naming it. A field is required unless its tag says omitempty or
// omitzero or its type is a pointer; a required field that is absent, or
// null where its Go type cannot hold null, is an error too. Any-typed
// fields accept every JSON value, null included. Numbers keep their exact
// text (json.Number) when decoded into an any.
//
// For a v that is not a pointer to a struct, DecodeInputs decodes with
// unknown-field checking only.
func DecodeInputs(props schema.Properties, v any) error {
	data, err := json.Marshal(props)
	if err != nil {
		return &InputError{Problem: "cannot encode: " + err.Error(), Err: err}
	}
	info := structFieldsOf(v)
	if info != nil {
		if err := info.check(props); err != nil {
			return err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &InputError{Field: te.Field, Problem: fmt.Sprintf("cannot use a JSON %s as %s", te.Value, te.Type), Err: err}
		}
		return &InputError{Problem: err.Error(), Err: err}
	}
	return nil
}

// EncodeOutputs encodes v, typically a struct with json tags, as output
// properties. v must encode as a JSON object.
func EncodeOutputs(v any) (schema.Properties, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode outputs: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var props schema.Properties
	if err := dec.Decode(&props); err != nil || props == nil {
		return nil, fmt.Errorf("encode outputs: %T does not encode as a JSON object", v)
	}
	return props, nil
}

// fieldInfo is what DecodeInputs needs to know about one struct type.
type fieldInfo struct {
	names    []string        // sorted JSON names
	required map[string]bool // name → must be present
	nullable map[string]bool // name → null is a valid value
}

var fieldInfos sync.Map // reflect.Type → *fieldInfo

func structFieldsOf(v any) *fieldInfo {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	t = t.Elem()
	if fi, ok := fieldInfos.Load(t); ok {
		return fi.(*fieldInfo)
	}
	fi := &fieldInfo{required: map[string]bool{}, nullable: map[string]bool{}}
	collectFields(t, fi)
	slices.Sort(fi.names)
	fieldInfos.Store(t, fi)
	return fi
}

// collectFields follows encoding/json's naming: the tag name, else the Go
// name; "-" hides a field; untagged embedded structs are flattened.
func collectFields(t reflect.Type, fi *fieldInfo) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				collectFields(ft, fi)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fi.names = append(fi.names, name)
		optional := f.Type.Kind() == reflect.Pointer ||
			slices.Contains(strings.Split(opts, ","), "omitempty") ||
			slices.Contains(strings.Split(opts, ","), "omitzero")
		fi.required[name] = !optional
		switch f.Type.Kind() {
		case reflect.Pointer, reflect.Interface:
			fi.nullable[name] = true
		}
	}
}

func (fi *fieldInfo) check(props schema.Properties) error {
	var unknown []string
	for k := range props {
		if _, ok := fi.required[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return &InputError{Field: unknown[0], Problem: fmt.Sprintf("unknown field (known: %s)", strings.Join(fi.names, ", "))}
	}
	for _, name := range fi.names {
		val, present := props[name]
		switch {
		case !present && fi.required[name]:
			return &InputError{Field: name, Problem: "required field is missing"}
		case present && val == nil && !fi.nullable[name]:
			return &InputError{Field: name, Problem: "must not be null"}
		}
	}
	return nil
}
