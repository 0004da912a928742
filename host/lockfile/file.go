package lockfile

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/pierhq/pier/host/hcldepth"
)

// Name is the lock file's name, next to the deployment.
const Name = ".pier.lock.hcl"

// Versions returns the Terraform package versions the lock records, by
// source address, for choosing among installed versions.
func (f *File) Versions() map[string]string {
	out := map[string]string{}
	for k, e := range f.Entries {
		if e.Kind == KindPackage {
			out[k] = e.Version
		}
	}
	return out
}

// File is a lock file: entries by key, and the commits git module
// sources are pinned to.
type File struct {
	Entries map[string]*Entry
	// Modules maps a git module source, as its module block writes it,
	// to the commit its ref resolved to when it was pinned:
	//
	//	module "git::https://example.com/mods.git//site?ref=main" {
	//	  commit = "3f1c…"
	//	}
	Modules map[string]string
}

// New returns an empty lock file.
func New() *File { return &File{Entries: map[string]*Entry{}, Modules: map[string]string{}} }

// blockJSON is the body of one provider block.
type blockBody struct {
	Version     string   `hcl:"version,optional"`
	Constraints string   `hcl:"constraints,optional"`
	Hashes      []string `hcl:"hashes,optional"`
	Executable  string   `hcl:"executable,optional"`
	Terraform   string   `hcl:"terraform,optional"`
	StorePath   string   `hcl:"store_path,optional"`
}

// Read reads the lock file at path. A missing file is an empty lock and
// ok is false; a malformed one is an error carrying its diagnostics
// (a [*DiagnosticsError]), with file:line:col.
func Read(path string) (f *File, ok bool, err error) {
	src, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return New(), false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read lock file: %w", err)
	}
	f, diags := Parse(src, path)
	if diags.HasErrors() {
		return nil, true, &DiagnosticsError{Diagnostics: diags}
	}
	return f, true, nil
}

// DiagnosticsError is a lock file that does not parse.
type DiagnosticsError struct{ Diagnostics hcl.Diagnostics }

func (e *DiagnosticsError) Error() string {
	var msgs []string
	for _, d := range e.Diagnostics {
		s := d.Summary
		if d.Detail != "" {
			s += ": " + d.Detail
		}
		if d.Subject != nil {
			s = fmt.Sprintf("%s:%d:%d: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, s)
		}
		msgs = append(msgs, s)
	}
	return "lock file: " + strings.Join(msgs, "; ")
}

// Parse decodes lock file source.
func Parse(src []byte, filename string) (*File, hcl.Diagnostics) {
	if diags := hcldepth.CheckSyntax(src, filename, false); diags.HasErrors() {
		return nil, diags // parsing it would exhaust the stack
	}
	hf, diags := hclparse.NewParser().ParseHCL(src, filename)
	if diags.HasErrors() {
		return nil, diags
	}
	// The body is decoded block by block so that a bad block names itself.
	content, ds := hf.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
		{Type: "provider", LabelNames: []string{"key"}},
		{Type: "module", LabelNames: []string{"source"}},
	}})
	diags = append(diags, ds...)
	f := New()
	for _, b := range content.Blocks {
		if b.Type == "module" {
			diags = append(diags, f.parseModule(b)...)
			continue
		}
		var body blockBody
		diags = append(diags, gohcl.DecodeBody(b.Body, nil, &body)...)
		key := b.Labels[0]
		if _, dup := f.Entries[key]; dup {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate provider lock",
				Detail: fmt.Sprintf("provider %q is locked twice.", key), Subject: b.DefRange.Ptr()})
			continue
		}
		e := &Entry{Key: key, Version: body.Version, Constraints: body.Constraints, Hashes: body.Hashes, StorePath: body.StorePath}
		switch {
		case body.StorePath != "":
			e.Kind = KindStorePath
			e.Executable, e.Terraform = firstNonEmpty(body.Executable, body.Terraform), body.Terraform != ""
		case body.Executable != "" || body.Terraform != "":
			e.Kind = KindExecutable
			e.Executable, e.Terraform = firstNonEmpty(body.Executable, body.Terraform), body.Terraform != ""
		case body.Version != "":
			e.Kind = KindPackage
		default:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Incomplete provider lock",
				Detail: fmt.Sprintf("provider %q needs a version (a Terraform package), an executable or a store_path.", key), Subject: b.DefRange.Ptr()})
			continue
		}
		if e.Kind != KindStorePath && len(e.Hashes) == 0 {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Provider lock without hashes",
				Detail: fmt.Sprintf("provider %q has no hashes, so nothing can be checked against it.", key), Subject: b.DefRange.Ptr()})
			continue
		}
		f.Entries[key] = e
	}
	return f, diags
}

// parseModule reads one module pin.
func (f *File) parseModule(b *hcl.Block) hcl.Diagnostics {
	var body struct {
		Commit string `hcl:"commit"`
	}
	diags := gohcl.DecodeBody(b.Body, nil, &body)
	if diags.HasErrors() {
		return diags
	}
	src := b.Labels[0]
	if _, dup := f.Modules[src]; dup {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Duplicate module pin",
			Detail: fmt.Sprintf("module source %q is pinned twice.", src), Subject: b.DefRange.Ptr()}}
	}
	if !isCommit(body.Commit) {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid module pin",
			Detail: fmt.Sprintf("module source %q: commit %q is not a full hexadecimal commit id.", src, body.Commit), Subject: b.DefRange.Ptr()}}
	}
	f.Modules[src] = body.Commit
	return nil
}

// isCommit reports whether s is a full SHA-1 or SHA-256 commit id.
func isCommit(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Bytes renders the lock file, sorted by key, formatted as hclwrite
// formats it (Terraform's own lock file style).
func (f *File) Bytes() []byte {
	out := hclwrite.NewEmptyFile()
	body := out.Body()
	keys := slices.Sorted(maps.Keys(f.Entries))
	for i, k := range keys {
		e := f.Entries[k]
		if i > 0 {
			body.AppendNewline()
		}
		b := body.AppendNewBlock("provider", []string{k}).Body()
		switch e.Kind {
		case KindPackage:
			b.SetAttributeValue("version", cty.StringVal(e.Version))
			if e.Constraints != "" {
				b.SetAttributeValue("constraints", cty.StringVal(e.Constraints))
			}
		case KindExecutable, KindStorePath:
			attr := "executable"
			if e.Terraform {
				attr = "terraform"
			}
			b.SetAttributeValue(attr, cty.StringVal(e.Executable))
			if e.StorePath != "" {
				b.SetAttributeValue("store_path", cty.StringVal(e.StorePath))
			}
		}
		if len(e.Hashes) > 0 {
			b.SetAttributeRaw("hashes", hashTokens(e.Hashes))
		}
	}
	for i, src := range slices.Sorted(maps.Keys(f.Modules)) {
		if i > 0 || len(keys) > 0 {
			body.AppendNewline()
		}
		body.AppendNewBlock("module", []string{src}).Body().SetAttributeValue("commit", cty.StringVal(f.Modules[src]))
	}
	var buf bytes.Buffer
	buf.WriteString("# This file is maintained automatically by \"pier providers lock\".\n# Manual edits may be lost in future updates.\n\n")
	buf.Write(hclwrite.Format(out.Bytes()))
	return buf.Bytes()
}

// hashTokens writes a list one element per line, as Terraform does, so
// that adding a hash is a one-line diff.
func hashTokens(hashes []string) hclwrite.Tokens {
	sorted := slices.Clone(hashes)
	slices.Sort(sorted)
	ts := hclwrite.Tokens{{Type: hclsyntax.TokenOBrack, Bytes: []byte("[")}, {Type: hclsyntax.TokenNewline, Bytes: []byte("\n")}}
	for _, h := range slices.Compact(sorted) {
		ts = append(ts, hclwrite.TokensForValue(cty.StringVal(h))...)
		ts = append(ts, &hclwrite.Token{Type: hclsyntax.TokenComma, Bytes: []byte(",")}, &hclwrite.Token{Type: hclsyntax.TokenNewline, Bytes: []byte("\n")})
	}
	return append(ts, &hclwrite.Token{Type: hclsyntax.TokenCBrack, Bytes: []byte("]")})
}

// Write writes the lock file atomically (a temporary file renamed over
// the old one), so a crash leaves the old lock or the new one.
func (f *File) Write(path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pier.lock.*")
	if err != nil {
		return fmt.Errorf("write lock file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(f.Bytes()); err != nil {
		tmp.Close()
		return fmt.Errorf("write lock file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write lock file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write lock file: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("write lock file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write lock file: %w", err)
	}
	return nil
}
