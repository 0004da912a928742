package schema

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/schema/internal/gen"
)

// The generated validators (validate_gen.go) against the reference,
// jsonschema/v5 over the same schemas: for every input, at every schema
// location, both accept or both reject, and a rejection names the same
// JSON Pointers.

// corpus gathers the JSON inputs the repository already holds: every JSON
// string literal of this package's tests (the frames and states their
// tables accept and reject), every example frame of the docs, the state
// documents under testdata, and the fuzz corpus found so far.
func corpus(tb testing.TB) map[string][]byte {
	tb.Helper()
	out := map[string][]byte{}
	add := func(name string, data []byte) {
		if _, err := decodeJSON(data); err == nil {
			out[name] = data
		}
	}
	tests, err := filepath.Glob("*_test.go")
	if err != nil {
		tb.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range tests {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			tb.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && strings.ContainsAny(s, "{[") {
					add(fset.Position(lit.Pos()).String(), []byte(s))
				}
			}
			return true
		})
	}
	docs, _ := filepath.Glob("../docs/*.md")
	for _, d := range docs {
		f, err := os.Open(d)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		in := false
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "```json"):
				in = true
			case strings.HasPrefix(line, "```"):
				in = false
			case in:
				add(fmt.Sprintf("%s:%d", d, n), []byte(line))
			}
		}
		f.Close()
	}
	for _, pattern := range []string{"../statefile/testdata/*.json", "../testdata/flakes/interop/*.json", "testdata/fuzz/FuzzGeneratedValidator/*"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			if strings.Contains(f, "/fuzz/") {
				data = fuzzCorpusValue(tb, f, data)
			}
			add(f, data)
		}
	}
	if len(out) < 100 {
		tb.Fatalf("the corpus holds only %d inputs: have the fixtures moved?", len(out))
	}
	return out
}

// fuzzCorpusValue reads the []byte of a go test fuzz corpus file.
func fuzzCorpusValue(tb testing.TB, name string, data []byte) []byte {
	tb.Helper()
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "[]byte(") {
		tb.Fatalf("%s: not a fuzz corpus file of one []byte", name)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return []byte(s)
}

// values returns v and every value inside it, up to limit of them: a
// frame's body, and each part of it, is an input for the schema of that
// part.
func values(v any, limit int) []any {
	out := []any{v}
	for i := 0; i < len(out) && len(out) < limit; i++ {
		switch x := out[i].(type) {
		case map[string]any:
			for _, k := range slices.Sorted(mapKeys(x)) {
				out = append(out, x[k])
			}
		case []any:
			out = append(out, x...)
		}
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// agree checks v at every schema location: the generated validator and
// the reference accept or reject it alike, naming the same pointers.
func agree(t *testing.T, name string, v any) {
	t.Helper()
	for _, url := range generatedURLs {
		want, ok := reference(t, url, v)
		if !ok {
			continue
		}
		var r report
		valid, _ := validateGenerated(url, v, nil, &r)
		var got []string
		if !valid {
			got = pointers(sortProblems("", r.problems))
			if got == nil {
				got = []string{}
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			b, _ := json.Marshal(v)
			t.Errorf("%s: %s at %s: the generated validator and jsonschema/v5 disagree (pointers of the failures; nil is valid) (-reference +generated):\n%s", name, b, url, diff)
		}
	}
}

// reference is jsonschema/v5's answer: nil when v is valid, else the
// failures' pointers. ok is false where jsonschema/v5 itself panics: on a
// number whose exponent is beyond what big.Rat parses, it dereferences
// the nil it gets (the generated validator answers those exactly; see
// TestGeneratedValidatorHugeExponents).
func reference(t *testing.T, url string, v any) (ptrs []string, ok bool) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			ok = false
		}
	}()
	ps, err := referenceProblems("", url, v)
	if err != nil {
		t.Fatalf("reference %s: %v", url, err)
	}
	if ps == nil {
		return nil, true
	}
	return pointers(sortProblems("", ps)), true
}

// pointers lists the failures' pointers, without the segments of members
// named "": jsonschema/v5 leaves those out of its locations (a member ""
// of the root reads "", not "/"), so they are compared without them.
func pointers(ps []Problem) []string {
	out := []string{}
	for _, p := range ps {
		ptr := strings.Join(slices.DeleteFunc(strings.Split(p.Pointer, "/"), func(s string) bool { return s == "" }), "/")
		if ptr != "" {
			ptr = "/" + ptr
		}
		if !slices.Contains(out, ptr) {
			out = append(out, ptr)
		}
	}
	slices.Sort(out)
	return out
}

// TestGeneratedValidatorAgreesWithReference runs every corpus input, and
// every value inside one, through every schema location.
func TestGeneratedValidatorAgreesWithReference(t *testing.T) {
	t.Parallel()
	inputs := corpus(t)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range inputs {
			if !yield(n) {
				return
			}
		}
	}) {
		v, err := decodeJSON(inputs[name])
		if err != nil {
			t.Fatal(err)
		}
		for _, sub := range values(v, 2000) {
			agree(t, name, sub)
		}
	}
}

// FuzzGeneratedValidator holds the generated validators to jsonschema/v5
// on any JSON: bench/fuzz.sh runs it; go test runs its seeds, the corpus.
func FuzzGeneratedValidator(f *testing.F) {
	for _, data := range corpus(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := decodeJSON(data)
		if err != nil {
			return
		}
		for _, sub := range values(v, 64) {
			agree(t, "fuzzed", sub)
		}
	})
}

// TestGeneratedValidatorHugeExponents: a number with an exponent beyond
// big.Rat's reach (where jsonschema/v5 panics) is judged exactly, and a
// frame holding one is refused with a pointer to it, not a crash.
func TestGeneratedValidatorHugeExponents(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		number  string
		integer bool
	}{
		"tiny":          {"1e-99999999", false},
		"huge":          {"1e99999999999", true},
		"huge negative": {"-1E+99999999999999999999", true},
		"zero tiny":     {"0e-99999999999", true},
		"fraction":      {"1.5", false},
		"integral":      {"0.25e2", true},
		"trailing zero": {"2.50e1", true},
		"half":          {"2.55e1", false},
		"minus zero":    {"-0.0", true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := isInteger(json.Number(tc.number)); got != tc.integer {
				t.Errorf("isInteger(%s) = %v, want %v", tc.number, got, tc.integer)
			}
		})
	}
	err := ValidateResponse([]byte(`{"previewResourceResponse":{"replace":false,"unknownOutputs":[["rule",1e-99999999]]}}`), []Operation{OperationPreview})
	if err == nil || !strings.Contains(err.Error(), "at /previewResourceResponse/unknownOutputs/0/1:") {
		t.Errorf("a path step of 1e-99999999: %v, want a failure at /previewResourceResponse/unknownOutputs/0/1", err)
	}
}

// TestGeneratedCodeIsCurrent: validate_gen.go is what the generator
// writes from the embedded schemas today (go generate ./schema).
func TestGeneratedCodeIsCurrent(t *testing.T) {
	t.Parallel()
	want, err := gen.Generate(os.DirFS("schemas"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("validate_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("validate_gen.go is stale: run go generate ./schema")
	}
}

// TestGeneratedValidatorAllocatesNothing: checking a valid frame's body
// costs no allocation (what remains of a frame's cost is decoding it).
// Not parallel: testing.AllocsPerRun counts the whole process's.
func TestGeneratedValidatorAllocatesNothing(t *testing.T) { //nolint:paralleltest // AllocsPerRun
	v, err := decodeJSON([]byte(`{"replace":false,"plannedOutputProperties":{"id":null,"triggers":{"index":"7"}},"unknownOutputs":[["id"],["rule",0,"port"]],"diagnostics":[{"severity":"warning","summary":"Deprecated","attribute":["triggers"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	url := responseDefs["previewResourceResponse"].url
	if n := testing.AllocsPerRun(100, func() {
		var r report
		if valid, _ := validateGenerated(url, v, nil, &r); !valid {
			t.Fatal(r.problems)
		}
	}); n != 0 {
		t.Errorf("validating a preview response allocates %v times, want 0", n)
	}
}
