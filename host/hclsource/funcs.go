package hclsource

import (
	"maps"
	"slices"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// functions are the functions expressions may call: cty's standard
// library under the names Terraform users know.
func functions() map[string]function.Function {
	return map[string]function.Function{
		"abs":             stdlib.AbsoluteFunc,
		"ceil":            stdlib.CeilFunc,
		"chomp":           stdlib.ChompFunc,
		"chunklist":       stdlib.ChunklistFunc,
		"coalesce":        stdlib.CoalesceFunc,
		"coalescelist":    stdlib.CoalesceListFunc,
		"compact":         stdlib.CompactFunc,
		"concat":          stdlib.ConcatFunc,
		"contains":        stdlib.ContainsFunc,
		"csvdecode":       stdlib.CSVDecodeFunc,
		"distinct":        stdlib.DistinctFunc,
		"element":         stdlib.ElementFunc,
		"flatten":         stdlib.FlattenFunc,
		"floor":           stdlib.FloorFunc,
		"format":          stdlib.FormatFunc,
		"formatdate":      stdlib.FormatDateFunc,
		"formatlist":      stdlib.FormatListFunc,
		"indent":          stdlib.IndentFunc,
		"index":           stdlib.IndexFunc,
		"join":            stdlib.JoinFunc,
		"jsondecode":      stdlib.JSONDecodeFunc,
		"jsonencode":      stdlib.JSONEncodeFunc,
		"keys":            stdlib.KeysFunc,
		"length":          stdlib.LengthFunc,
		"log":             stdlib.LogFunc,
		"lookup":          stdlib.LookupFunc,
		"lower":           stdlib.LowerFunc,
		"max":             stdlib.MaxFunc,
		"merge":           stdlib.MergeFunc,
		"min":             stdlib.MinFunc,
		"parseint":        stdlib.ParseIntFunc,
		"pow":             stdlib.PowFunc,
		"range":           stdlib.RangeFunc,
		"regex":           stdlib.RegexFunc,
		"regexall":        stdlib.RegexAllFunc,
		"regex_replace":   stdlib.RegexReplaceFunc,
		"replace":         stdlib.ReplaceFunc,
		"reverse":         stdlib.ReverseListFunc,
		"setintersection": stdlib.SetIntersectionFunc,
		"setproduct":      stdlib.SetProductFunc,
		"setsubtract":     stdlib.SetSubtractFunc,
		"setunion":        stdlib.SetUnionFunc,
		"signum":          stdlib.SignumFunc,
		"slice":           stdlib.SliceFunc,
		"sort":            stdlib.SortFunc,
		"split":           stdlib.SplitFunc,
		"strlen":          stdlib.StrlenFunc,
		"strrev":          stdlib.ReverseFunc,
		"substr":          stdlib.SubstrFunc,
		"timeadd":         stdlib.TimeAddFunc,
		"title":           stdlib.TitleFunc,
		"trim":            stdlib.TrimFunc,
		"trimprefix":      stdlib.TrimPrefixFunc,
		"trimspace":       stdlib.TrimSpaceFunc,
		"trimsuffix":      stdlib.TrimSuffixFunc,
		"upper":           stdlib.UpperFunc,
		"values":          stdlib.ValuesFunc,
		"zipmap":          stdlib.ZipmapFunc,
		"tobool":          makeToFunc(cty.Bool),
		"tolist":          makeToFunc(cty.List(cty.DynamicPseudoType)),
		"tomap":           makeToFunc(cty.Map(cty.DynamicPseudoType)),
		"tonumber":        makeToFunc(cty.Number),
		"toset":           makeToFunc(cty.Set(cty.DynamicPseudoType)),
		"tostring":        makeToFunc(cty.String),
	}
}

// makeToFunc is cty's conversion to ty, taking marked arguments so that
// its error never quotes a sensitive value: cty's own says `cannot
// convert "hunter2" to number`. The wording is Terraform's.
func makeToFunc(ty cty.Type) function.Function {
	inner := stdlib.MakeToFunc(ty)
	return function.New(&function.Spec{
		Description: inner.Description(),
		Params: []function.Parameter{{
			Name: "v", Type: cty.DynamicPseudoType,
			// Unknown values too: cty returns an unknown argument's
			// result itself, without the marks of an argument that
			// takes them, and the marks say what the value waits for.
			AllowNull: true, AllowDynamicType: true, AllowMarked: true, AllowUnknown: true,
		}},
		Type: func(args []cty.Value) (cty.Type, error) {
			u, _ := args[0].UnmarkDeep()
			return inner.ReturnTypeForValues([]cty.Value{u})
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			u, marks := args[0].UnmarkDeep()
			ret, err := inner.Call([]cty.Value{u})
			if err != nil {
				if _, secret := marks[sensitiveMark{}]; secret {
					return cty.NilVal, function.NewArgErrorf(0, "cannot convert this sensitive %s to %s", u.Type().FriendlyName(), ty.FriendlyNameForConstraint())
				}
				return cty.NilVal, err
			}
			return ret.WithMarks(marks), nil
		},
	})
}

// FunctionNames returns the names of the functions expressions may call,
// sorted; docs/language.md is tested against it.
func FunctionNames() []string {
	return slices.Sorted(maps.Keys(functions()))
}
