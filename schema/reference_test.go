package schema

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// This file is the reference validator: santhosh-tekuri/jsonschema/v5
// over the same embedded schemas. pier validates frames with the
// generated validators (validate_gen.go), which the tests and
// FuzzGeneratedValidator hold to this one, input for input. It is a test
// file because nothing else in pier compiles a schema at run time: linked
// into the binary, jsonschema/v5's package init compiles every draft's
// meta-schema (about 1 MB in 8,500 allocations) in every pier process, and
// its code and tables take file pages. A schema that is not fixed, such as
// a provider's own, would bring it back as a non-test dependency.

// ErrRemoteRef is returned when a schema refers to a document that pier
// does not embed. Validation never reaches the network.
var ErrRemoteRef = errors.New("schema reference to a document pier does not embed (pier never fetches schemas)")

// newCompiler returns a compiler that knows the embedded schemas and
// refuses every other URL.
func newCompiler() (*jsonschema.Compiler, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft4
	c.LoadURL = func(url string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("load %s: %w", url, ErrRemoteRef)
	}
	for url, file := range map[string]string{
		ResourceSchemaURL:  resourceSchemaFile,
		JSONPatchSchemaURL: jsonPatchSchemaFile,
		ExtensionSchemaURL: extensionSchemaFile,
		StateSchemaURL:     stateSchemaFile,
	} {
		data, err := schemaFiles.ReadFile(file)
		if err != nil {
			return nil, err
		}
		if err := c.AddResource(url, bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("add embedded schema %s: %w", file, err)
		}
	}
	return c, nil
}

// compiled holds the message body schemas compiled so far. Each is
// compiled on its first use, not all at once: a provider process validates
// a few kinds, and each pier process would otherwise pay for all of them
// at start.
var compiled struct {
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	err      error
	schemas  map[string]*jsonschema.Schema
}

// schemaFor returns the compiled schema at url, under key.
func schemaFor(key, url string) (*jsonschema.Schema, error) {
	compiled.mu.Lock()
	defer compiled.mu.Unlock()
	if s, ok := compiled.schemas[key]; ok {
		return s, nil
	}
	if compiled.compiler == nil && compiled.err == nil {
		compiled.compiler, compiled.err = newCompiler()
		compiled.schemas = map[string]*jsonschema.Schema{}
	}
	if compiled.err != nil {
		return nil, compiled.err
	}
	s, err := compiled.compiler.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compile schema for %s: %w", key, err)
	}
	compiled.schemas[key] = s
	return s, nil
}

// referenceProblems validates v against the schema at schemaURL with
// jsonschema/v5: nil when v is valid, else its failures as
// [validateDecoded] reports them (prefix before each pointer).
func referenceProblems(prefix, schemaURL string, v any) ([]Problem, error) {
	s, err := schemaFor(schemaURL, schemaURL)
	if err != nil {
		return nil, err
	}
	err = s.Validate(v)
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		return problems(prefix, ve), nil
	}
	return nil, err
}

// problems flattens the validator's error tree to its leaves. Within an
// anyOf, an alternative whose discriminating enum did not match is dropped
// entirely, so that "move without from" reads as a missing from rather
// than also as a missing value.
func problems(prefix string, ve *jsonschema.ValidationError) []Problem {
	var leaves []*jsonschema.ValidationError
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, e)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	mismatched := map[string]bool{} // anyOf alternatives that do not apply
	for _, l := range leaves {
		if b := alternative(l.KeywordLocation); b != "" && strings.HasSuffix(l.KeywordLocation, "/enum") {
			mismatched[b] = true
		}
	}
	var out []Problem
	seen := map[Problem]bool{}
	for _, l := range leaves {
		if mismatched[alternative(l.KeywordLocation)] {
			continue
		}
		p := Problem{Pointer: prefix + unescapeLocation(l.InstanceLocation), Expected: l.Message}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	// Deepest first: the most specific place is the most useful.
	sort.SliceStable(out, func(i, j int) bool {
		return strings.Count(out[i].Pointer, "/") > strings.Count(out[j].Pointer, "/")
	})
	return out
}

// alternative returns the keyword location of the innermost anyOf branch
// containing loc ("…/anyOf/2"), or "".
func alternative(loc string) string {
	i := strings.LastIndex(loc, "/anyOf/")
	if i < 0 {
		return ""
	}
	rest := loc[i+len("/anyOf/"):]
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		rest = rest[:j]
	}
	return loc[:i] + "/anyOf/" + rest
}

// unescapeLocation turns jsonschema/v5's instance location, whose
// segments it also percent-encodes (a member "a b" reads "a%20b"), into
// the RFC 6901 pointer.
func unescapeLocation(loc string) string {
	if !strings.Contains(loc, "%") {
		return loc
	}
	segs := strings.Split(loc, "/")
	for i, s := range segs {
		if u, err := url.PathUnescape(s); err == nil {
			segs[i] = u
		}
	}
	return strings.Join(segs, "/")
}
