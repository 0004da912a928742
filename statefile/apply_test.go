package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/schema"
)

// referenceApply is the semantics applyPatch must match: the same
// validation, then json-patch applied to the whole document, one operation
// at a time. json-patch is not the reference for the root: for remove,
// move and copy it takes "" to be the member named "", where RFC 6901
// says "" is the whole document, and it accepts only an object or array
// as a new root. Operations whose path or from is "" are therefore
// applied by rootApply, which follows RFC 6902 section 4 word for word.
func referenceApply(docJSON []byte, p schema.Patch) ([]byte, error) {
	for _, op := range p {
		jop := jsonpatch.Operation{"op": rawString(op.Op), "path": rawString(op.Path)}
		if _, err := schema.ParsePointer(op.Path); err != nil {
			return nil, err
		}
		switch op.Op {
		case "add", "replace", "test":
			if op.Value == nil {
				return nil, errors.New("missing value")
			}
		case "move", "copy":
			if _, err := schema.ParsePointer(op.From); err != nil {
				return nil, err
			}
			jop["from"] = rawString(op.From)
		case "remove":
		default:
			return nil, errors.New("unknown operation")
		}
		if op.Value != nil {
			v := json.RawMessage(op.Value)
			jop["value"] = &v
		}
		var err error
		if op.Path == "" || (op.Op == "move" || op.Op == "copy") && op.From == "" {
			docJSON, err = rootApply(docJSON, op)
		} else {
			docJSON, err = jsonpatch.Patch{jop}.ApplyWithOptions(docJSON, patchOptions)
		}
		if err != nil {
			return nil, err
		}
	}
	return docJSON, nil
}

// rootApply applies one operation whose path or from is "", the whole
// document (RFC 6901 section 5), as RFC 6902 section 4 defines it.
func rootApply(docJSON []byte, op schema.PatchOperation) ([]byte, error) {
	var doc any
	if err := json.Unmarshal(docJSON, &doc); err != nil {
		return nil, err
	}
	switch {
	case op.Op == "add" || op.Op == "replace":
		// "The target location" is the document. Compacted, because
		// json-patch tells an array document from an object by its first
		// byte, which in " []" is a space.
		var out bytes.Buffer
		if err := json.Compact(&out, op.Value); err != nil {
			return nil, err
		}
		return out.Bytes(), nil
	case op.Op == "remove":
		return nil, errors.New("the document cannot be removed")
	case op.Op == "test":
		var v any
		if err := json.Unmarshal(op.Value, &v); err != nil {
			return nil, err
		}
		if !cmp.Equal(doc, v) {
			return nil, errors.New("test failed")
		}
		return docJSON, nil
	case op.From == "" && op.Path == "":
		return docJSON, nil // onto itself
	case op.From == "" && op.Op == "move":
		return nil, errors.New(`"from" is a proper prefix of "path"`)
	case op.From == "":
		// copy: add the document, as it was, at path.
		v := json.RawMessage(docJSON)
		add := jsonpatch.Operation{"op": rawString("add"), "path": rawString(op.Path), "value": &v}
		return jsonpatch.Patch{add}.ApplyWithOptions(docJSON, patchOptions)
	}
	// move or copy to the root: the document becomes the value at from.
	segs, _ := schema.ParsePointer(op.From)
	v := doc
	for _, s := range segs {
		switch c := v.(type) {
		case map[string]any:
			next, ok := c[s]
			if !ok {
				return nil, errors.New("from does not exist")
			}
			v = next
		case []any:
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= len(c) || s != strconv.Itoa(i) {
				return nil, errors.New("from does not exist")
			}
			v = c[i]
		default:
			return nil, errors.New("from does not exist")
		}
	}
	return json.Marshal(v)
}

func mustDecode(t testing.TB, s string) any {
	t.Helper()
	v, err := decodeValue([]byte(s))
	if err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

func mustPatch(t testing.TB, s string) schema.Patch {
	t.Helper()
	var p schema.Patch
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		t.Fatalf("decode patch %s: %v", s, err)
	}
	return p
}

// TestApplyPatchDifferential applies each patch with the sub-document
// strategy and to the whole document with json-patch, and checks both
// against the expected outcome. A failed patch must leave the document as
// it was.
func TestApplyPatchDifferential(t *testing.T) {
	t.Parallel()
	const base = `{"_type":"nixopsState","resources":{"a":{"type":"file","inputProperties":{"n":1.50},"outputProperties":{"list":[1,2,3],"o":{"k":"v"}}},"a/b":{"x":1},"c~d":{"y":2}},"deployments":{"web":{"resources":{"db":{"z":[{"q":1}]}},"deployments":{}}},"":{"empty":true}}`
	tests := map[string]struct {
		doc     string
		patch   string
		want    string // expected document; "" when an error is expected
		wantErr bool
		// refDiffers marks RFC 6901 behaviour that json-patch does not
		// have: it resolves an empty token to the container itself.
		refDiffers bool
	}{
		"add resource": {
			patch: `[{"op":"add","path":"/resources/b","value":{"type":"t","inputProperties":{},"outputProperties":{}}}]`,
			want:  `{"_type":"nixopsState","resources":{"a":{"type":"file","inputProperties":{"n":1.50},"outputProperties":{"list":[1,2,3],"o":{"k":"v"}}},"a/b":{"x":1},"c~d":{"y":2},"b":{"type":"t","inputProperties":{},"outputProperties":{}}},"deployments":{"web":{"resources":{"db":{"z":[{"q":1}]}},"deployments":{}}},"":{"empty":true}}`,
		},
		"add replaces existing member": {
			patch: `[{"op":"add","path":"/resources/a","value":7}]`,
			want:  `{"_type":"nixopsState","resources":{"a":7,"a/b":{"x":1},"c~d":{"y":2}},"deployments":{"web":{"resources":{"db":{"z":[{"q":1}]}},"deployments":{}}},"":{"empty":true}}`,
		},
		"escaped slash and tilde": {
			patch: `[{"op":"replace","path":"/resources/a~1b/x","value":10},{"op":"remove","path":"/resources/c~0d"}]`,
			want:  `{"_type":"nixopsState","resources":{"a":{"type":"file","inputProperties":{"n":1.50},"outputProperties":{"list":[1,2,3],"o":{"k":"v"}}},"a/b":{"x":10}},"deployments":{"web":{"resources":{"db":{"z":[{"q":1}]}},"deployments":{}}},"":{"empty":true}}`,
		},
		"nested deployment": {
			patch: `[{"op":"add","path":"/deployments/web/resources/cache","value":{"t":1}},{"op":"remove","path":"/deployments/web/resources/db"}]`,
			want:  `{"_type":"nixopsState","resources":{"a":{"type":"file","inputProperties":{"n":1.50},"outputProperties":{"list":[1,2,3],"o":{"k":"v"}}},"a/b":{"x":1},"c~d":{"y":2}},"deployments":{"web":{"resources":{"cache":{"t":1}},"deployments":{}}},"":{"empty":true}}`,
		},
		"array insert, append and remove": {
			patch: `[{"op":"add","path":"/resources/a/outputProperties/list/1","value":9},{"op":"add","path":"/resources/a/outputProperties/list/-","value":4},{"op":"remove","path":"/resources/a/outputProperties/list/0"}]`,
			want:  `{"_type":"nixopsState","resources":{"a":{"type":"file","inputProperties":{"n":1.50},"outputProperties":{"list":[9,2,3,4],"o":{"k":"v"}}},"a/b":{"x":1},"c~d":{"y":2}},"deployments":{"web":{"resources":{"db":{"z":[{"q":1}]}},"deployments":{}}},"":{"empty":true}}`,
		},
		"member inside array element": {
			patch: `[{"op":"replace","path":"/deployments/web/resources/db/z/0/q","value":"r"}]`,
			want:  `{"_type":"nixopsState","resources":{"a":{"type":"file","inputProperties":{"n":1.50},"outputProperties":{"list":[1,2,3],"o":{"k":"v"}}},"a/b":{"x":1},"c~d":{"y":2}},"deployments":{"web":{"resources":{"db":{"z":[{"q":"r"}]}},"deployments":{}}},"":{"empty":true}}`,
		},
		"move between resources": {
			patch: `[{"op":"move","from":"/resources/a","path":"/deployments/web/resources/a"}]`,
			want:  `{"_type":"nixopsState","resources":{"a/b":{"x":1},"c~d":{"y":2}},"deployments":{"web":{"resources":{"db":{"z":[{"q":1}]},"a":{"type":"file","inputProperties":{"n":1.50},"outputProperties":{"list":[1,2,3],"o":{"k":"v"}}}},"deployments":{}}},"":{"empty":true}}`,
		},
		"move onto itself": {
			patch: `[{"op":"move","from":"/resources/a","path":"/resources/a"}]`,
			want:  base,
		},
		"move into own child": {
			patch:   `[{"op":"move","from":"/resources/a","path":"/resources/a/inputProperties/n"}]`,
			wantErr: true,
		},
		"copy then change copy": {
			patch: `[{"op":"copy","from":"/resources/a/outputProperties/o","path":"/resources/c~0d/o"},{"op":"replace","path":"/resources/c~0d/o/k","value":"w"}]`,
			want:  `{"_type":"nixopsState","resources":{"a":{"type":"file","inputProperties":{"n":1.50},"outputProperties":{"list":[1,2,3],"o":{"k":"v"}}},"a/b":{"x":1},"c~d":{"y":2,"o":{"k":"w"}}},"deployments":{"web":{"resources":{"db":{"z":[{"q":1}]}},"deployments":{}}},"":{"empty":true}}`,
		},
		"copy array element": {
			patch: `[{"op":"copy","from":"/resources/a/outputProperties/list/2","path":"/resources/a/outputProperties/list/0"}]`,
			want:  `{"_type":"nixopsState","resources":{"a":{"type":"file","inputProperties":{"n":1.50},"outputProperties":{"list":[3,1,2,3],"o":{"k":"v"}}},"a/b":{"x":1},"c~d":{"y":2}},"deployments":{"web":{"resources":{"db":{"z":[{"q":1}]}},"deployments":{}}},"":{"empty":true}}`,
		},
		"test passes, numbers exact": {
			patch: `[{"op":"test","path":"/resources/a/inputProperties","value":{"n":1.50}}]`,
			want:  base,
		},
		"test fails": {
			patch:   `[{"op":"test","path":"/resources/a/type","value":"dir"}]`,
			wantErr: true,
		},
		"test root": {
			doc:   `{"_type":"nixopsState"}`,
			patch: `[{"op":"test","path":"","value":{"_type":"nixopsState"}}]`,
			want:  `{"_type":"nixopsState"}`,
		},
		"replace root": {
			patch: `[{"op":"replace","path":"","value":{"_type":"nixopsState","resources":{}}}]`,
			want:  `{"_type":"nixopsState","resources":{}}`,
		},
		// RFC 6901: "" is the whole document, never the member named "".
		"remove root refused":        {patch: `[{"op":"remove","path":""}]`, wantErr: true},
		"remove root then copy root": {patch: `[{"op":"remove","path":""},{"op":"copy","from":"","path":""}]`, wantErr: true},
		"copy root onto root":        {patch: `[{"op":"copy","from":"","path":""}]`, want: base},
		"move root onto root":        {patch: `[{"op":"move","from":"","path":""}]`, want: base},
		"move root into itself":      {patch: `[{"op":"move","from":"","path":"/x"}]`, wantErr: true},
		"copy root into itself": {
			doc:   `{"_type":"nixopsState","":{"e":1}}`,
			patch: `[{"op":"copy","from":"","path":"/copy"}]`,
			want:  `{"_type":"nixopsState","":{"e":1},"copy":{"_type":"nixopsState","":{"e":1}}}`,
		},
		"move member to root": {
			doc:   `{"old":1,"":{"e":1},"new":{"_type":"nixopsState"}}`,
			patch: `[{"op":"move","from":"/new","path":""}]`,
			want:  `{"_type":"nixopsState"}`,
		},
		"copy member to root": {
			doc:   `{"old":1,"":{"e":1},"new":{"_type":"nixopsState"}}`,
			patch: `[{"op":"copy","from":"/new","path":""}]`,
			want:  `{"_type":"nixopsState"}`,
		},
		"copy missing member to root": {patch: `[{"op":"copy","from":"/nope","path":""}]`, wantErr: true},
		"test root fails":             {patch: `[{"op":"test","path":"","value":{}}]`, wantErr: true},
		"replace root by a scalar":    {patch: `[{"op":"replace","path":"","value":5}]`, want: `5`},
		"add root": {
			patch: `[{"op":"add","path":"","value":{"_type":"nixopsState"}}]`,
			want:  `{"_type":"nixopsState"}`,
		},
		"top-level member": {
			patch: `[{"op":"add","path":"/extra","value":[true,null]}]`,
			want:  `{"_type":"nixopsState","resources":{"a":{"type":"file","inputProperties":{"n":1.50},"outputProperties":{"list":[1,2,3],"o":{"k":"v"}}},"a/b":{"x":1},"c~d":{"y":2}},"deployments":{"web":{"resources":{"db":{"z":[{"q":1}]}},"deployments":{}}},"":{"empty":true},"extra":[true,null]}`,
		},
		"empty-named member": {
			refDiffers: true,
			patch:      `[{"op":"add","path":"//seen","value":1}]`,
			want:       `{"_type":"nixopsState","resources":{"a":{"type":"file","inputProperties":{"n":1.50},"outputProperties":{"list":[1,2,3],"o":{"k":"v"}}},"a/b":{"x":1},"c~d":{"y":2}},"deployments":{"web":{"resources":{"db":{"z":[{"q":1}]}},"deployments":{}}},"":{"empty":true,"seen":1}}`,
		},
		"big integer stays exact": {
			patch: `[{"op":"add","path":"/resources/n","value":123456789012345678901234567890}]`,
			want:  `{"_type":"nixopsState","resources":{"a":{"type":"file","inputProperties":{"n":1.50},"outputProperties":{"list":[1,2,3],"o":{"k":"v"}}},"a/b":{"x":1},"c~d":{"y":2},"n":123456789012345678901234567890},"deployments":{"web":{"resources":{"db":{"z":[{"q":1}]}},"deployments":{}}},"":{"empty":true}}`,
		},
		"leading-zero index": {
			patch: `[{"op":"replace","path":"/resources/a/outputProperties/list/01","value":0}]`,
			want:  `{"_type":"nixopsState","resources":{"a":{"type":"file","inputProperties":{"n":1.50},"outputProperties":{"list":[1,0,3],"o":{"k":"v"}}},"a/b":{"x":1},"c~d":{"y":2}},"deployments":{"web":{"resources":{"db":{"z":[{"q":1}]}},"deployments":{}}},"":{"empty":true}}`,
		},
		"negative index refused":     {patch: `[{"op":"remove","path":"/resources/a/outputProperties/list/-1"}]`, wantErr: true},
		"index out of range":         {patch: `[{"op":"add","path":"/resources/a/outputProperties/list/4","value":0}]`, wantErr: true},
		"replace missing member":     {patch: `[{"op":"replace","path":"/resources/zz","value":0}]`, wantErr: true},
		"remove missing member":      {patch: `[{"op":"remove","path":"/resources/zz"}]`, wantErr: true},
		"add below missing parent":   {patch: `[{"op":"add","path":"/resources/zz/inputProperties","value":{}}]`, wantErr: true},
		"add below a scalar":         {patch: `[{"op":"add","path":"/_type/x","value":{}}]`, wantErr: true},
		"move from missing":          {patch: `[{"op":"move","from":"/resources/zz","path":"/resources/yy"}]`, wantErr: true},
		"copy to missing parent":     {patch: `[{"op":"copy","from":"/resources/a","path":"/nope/a"}]`, wantErr: true},
		"invalid pointer":            {patch: `[{"op":"add","path":"resources/b","value":1}]`, wantErr: true},
		"invalid escape":             {patch: `[{"op":"add","path":"/resources/b~2","value":1}]`, wantErr: true},
		"unknown op":                 {patch: `[{"op":"merge","path":"/resources/a","value":1}]`, wantErr: true},
		"missing value":              {patch: `[{"op":"add","path":"/resources/b"}]`, wantErr: true},
		"second op fails, no change": {patch: `[{"op":"add","path":"/resources/b","value":1},{"op":"remove","path":"/resources/a"},{"op":"remove","path":"/resources/zz"}]`, wantErr: true},
		"array op fails after member op": {
			patch:   `[{"op":"replace","path":"/resources/a/outputProperties/list/0","value":5},{"op":"test","path":"/resources/a/outputProperties/list/0","value":6}]`,
			wantErr: true,
		},
		"empty patch": {patch: `[]`, want: base},
		"remove empty-named member": {
			refDiffers: true,
			patch:      `[{"op":"remove","path":"/"}]`,
			want:       `{"_type":"nixopsState","resources":{"a":{"type":"file","inputProperties":{"n":1.50},"outputProperties":{"list":[1,2,3],"o":{"k":"v"}}},"a/b":{"x":1},"c~d":{"y":2}},"deployments":{"web":{"resources":{"db":{"z":[{"q":1}]}},"deployments":{}}}}`,
		},
		"test inside empty-named member": {
			refDiffers: true,
			patch:      `[{"op":"test","path":"//empty","value":true}]`,
			want:       base,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			start := tc.doc
			if start == "" {
				start = base
			}
			p := mustPatch(t, tc.patch)

			refOut, refErr := referenceApply([]byte(start), p)

			d := &doc{root: mustDecode(t, start)}
			err := d.applyPatch(p)
			if (err != nil) != tc.wantErr {
				t.Fatalf("applyPatch error = %v, wantErr %v", err, tc.wantErr)
			}
			if (refErr != nil) != tc.wantErr && !tc.refDiffers {
				t.Fatalf("whole-document json-patch error = %v, wantErr %v", refErr, tc.wantErr)
			}
			if tc.wantErr {
				var opErr *OpError
				if !errors.As(err, &opErr) {
					t.Errorf("error %v is not an *OpError", err)
				}
				if diff := cmp.Diff(mustDecode(t, start), deepCopy(d.root)); diff != "" {
					t.Errorf("failed patch changed the document (-before +after):\n%s", diff)
				}
				return
			}
			d.commit()
			if diff := cmp.Diff(mustDecode(t, tc.want), deepCopy(d.root)); diff != "" {
				t.Errorf("applyPatch (-want +got):\n%s", diff)
			}
			if tc.refDiffers {
				return
			}
			if diff := cmp.Diff(mustDecode(t, tc.want), mustDecode(t, string(refOut))); diff != "" {
				t.Errorf("whole-document json-patch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestApplyPatchCopyIsDeep checks that a copied value shares nothing with
// its source, so a later change to one does not show in the other.
func TestApplyPatchCopyIsDeep(t *testing.T) {
	t.Parallel()
	d := &doc{root: mustDecode(t, `{"a":{"l":[1],"m":{"k":1}},"b":{}}`)}
	if err := d.applyPatch(mustPatch(t, `[{"op":"copy","from":"/a","path":"/b/c"},{"op":"add","path":"/b/c/m/k","value":2},{"op":"add","path":"/b/c/l/-","value":2}]`)); err != nil {
		t.Fatal(err)
	}
	want := mustDecode(t, `{"a":{"l":[1],"m":{"k":1}},"b":{"c":{"l":[1,2],"m":{"k":2}}}}`)
	if diff := cmp.Diff(want, deepCopy(d.root)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// FuzzApplyPatch explores operations and pointers directly (FuzzReplay
// mostly mutates JSON syntax): two operations on a fixed document, compared
// with json-patch on the whole document.
func FuzzApplyPatch(f *testing.F) {
	const base = `{"_type":"nixopsState","resources":{"a":{"l":[1,{"k":2},[3]],"m":{"n":null,"a/b":{},"c~d":[]}}},"deployments":{"w":{"resources":{}}},"":{"e":1}}`
	f.Add(uint8(0), "/resources/b", "", `{"x":1}`, uint8(1), "/resources/a/l/0", "", "")
	f.Add(uint8(3), "/deployments/w/resources/a", "/resources/a", "", uint8(5), "/deployments/w/resources/a/l/1", "", `{"k":2}`)
	f.Add(uint8(4), "/resources/a/m/c~0d/-", "/resources/a/l/1", "", uint8(2), "/resources/a/m/a~1b", "", `[]`)
	f.Add(uint8(4), "/resources/a/l/2/0", "/resources/a/m", "", uint8(1), "/resources/a/l/3", "", ``)
	f.Add(uint8(3), "/resources/a/l/0", "/resources/a/l/2", "", uint8(0), "/resources/a/l/01", "", `0`)
	f.Add(uint8(1), "", "", "", uint8(4), "", "", "")                         // remove "", copy "" to "" (RFC 6901 root)
	f.Add(uint8(4), "/resources/x", "", "", uint8(3), "", "/resources/a", "") // copy root in, move a member to root
	f.Add(uint8(2), "", "", `[1]`, uint8(5), "", "", `[1]`)
	ops := []string{"add", "remove", "replace", "move", "copy", "test"}
	f.Fuzz(func(t *testing.T, k1 uint8, p1, f1, v1 string, k2 uint8, p2, f2, v2 string) {
		var patch schema.Patch
		for _, o := range []struct {
			k       uint8
			p, f, v string
		}{{k1, p1, f1, v1}, {k2, p2, f2, v2}} {
			op := schema.PatchOperation{Op: ops[int(o.k)%len(ops)], Path: o.p, From: o.f}
			if o.v != "" {
				if !json.Valid([]byte(o.v)) {
					return
				}
				op.Value = json.RawMessage(o.v)
			}
			for _, p := range []string{o.p, o.f} {
				if strings.HasSuffix(p, "/") || strings.Contains(p, "//") {
					return // pier follows RFC 6901 here, json-patch does not
				}
			}
			patch = append(patch, op)
		}
		refOut, refErr := referenceApply([]byte(base), patch)
		d := &doc{root: mustDecode(t, base)}
		err := d.applyPatch(patch)
		if (err != nil) != (refErr != nil) {
			t.Fatalf("applyPatch error = %v, whole-document json-patch error = %v", err, refErr)
		}
		if err != nil {
			if diff := cmp.Diff(mustDecode(t, base), deepCopy(d.root)); diff != "" {
				t.Fatalf("failed patch changed the document:\n%s", diff)
			}
			return
		}
		if diff := cmp.Diff(mustDecode(t, string(refOut)), deepCopy(d.root)); diff != "" {
			t.Fatalf("(-json-patch +pier):\n%s", diff)
		}
	})
}
