package hclsource

import (
	"errors"
	"fmt"
	"github.com/pierhq/pier/schema"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/pierhq/pier/host/hcldepth"
	"github.com/pierhq/pier/host/source"
	"github.com/zclconf/go-cty/cty"
)

// Options are the values given on the command line.
type Options struct {
	// Vars are --var NAME=VALUE assignments. They win over VarFiles.
	Vars map[string]string
	// VarFiles are --var-file paths (HCL, or HCL's JSON syntax when the
	// name ends in .json), applied in order.
	VarFiles []string
	// EnvVars are variable values from the environment, by variable name
	// ([EnvVars] reads them from PIER_VAR_NAME and TF_VAR_NAME). They
	// rank below every file; values for undeclared variables are
	// ignored, as Terraform ignores TF_VAR_ for them.
	EnvVars map[string]string
	// UnsetUnknown makes a variable that has no value unknown instead of
	// an error, for commands that need no values, as under Terraform:
	// validate (which checks what it can), output and state list (which
	// read state). Whatever depends on such a variable is unknown too.
	UnsetUnknown bool
	// LockedVersions are the Terraform package versions the lock file
	// records, by source address: a declaration's version constraints
	// choose the locked version while it is installed and meets them, as
	// under Terraform, not a newer one.
	LockedVersions map[string]string
	// Builtins are the adapters pier ships, by name, with what each
	// publishes about itself: a provider's builtin = NAME must be one of
	// them (and not a bridge), and a type that needs a state handler without one is an error
	// at load. Nil accepts any name and checks no types (the engine still
	// refuses an unknown builtin, and the adapter's preview a missing
	// state).
	Builtins schema.Adapters
}

// Deployment is a loaded HCL deployment. It implements [source.Source].
//
// Load decodes every block once; Resolve evaluates and caches. Like every
// [source.Source], a Deployment is used from one goroutine at a time.
type Deployment struct {
	dir       string // as given to Load, for messages
	root      string // absolute, for path.root and relative executables
	files     map[string]*hcl.File
	providers map[string]*source.Provider
	scope     *scope
	resources []*resourceDecl // declaration order
	topo      []*resourceDecl // dependency order
	outputs   []*outputDecl
	builtins  schema.Adapters // see Options.Builtins
	// lockedVersions are Options.LockedVersions.
	lockedVersions map[string]string
	variables      map[string]*variableDecl
	locals         map[string]*localDecl
	baseCtx        *hcl.EvalContext
	imports        []*source.Import  // import blocks, one per for_each element
	removed        []*source.Removed // removed blocks
	checks         []*checkDecl      // check blocks

	// Resolve's cache: blocks to evaluate, blocks whose evaluation failed
	// (evaluated again next time), and blocks whose outputs someone reads.
	pending dirtyQueue
	retry   []*resourceDecl
	watched []*resourceDecl
	readers map[string]map[reader]bool // instance address → who read it
	started bool
	// maxInstances bounds count and for_each (maxCount; tests lower it).
	maxInstances int
	// lastReady and lastBlocked size the next snapshot's lists.
	lastReady, lastBlocked int
	// evaluations counts resource block evaluations, so tests can check
	// that a round costs the size of the change.
	evaluations int
}

var _ source.Source = (*Deployment)(nil)

// File name suffixes of deployment files.
const (
	suffixHCL  = ".pier.hcl"
	suffixJSON = ".pier.json"
)

var rootSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
	{Type: "provider", LabelNames: []string{"name"}},
	{Type: "resource", LabelNames: []string{"name"}},
	{Type: "deployment", LabelNames: []string{"name"}},
	{Type: "variable", LabelNames: []string{"name"}},
	{Type: "output", LabelNames: []string{"name"}},
	{Type: "locals"},
	{Type: "import"},
	{Type: "removed"},
	{Type: "check", LabelNames: []string{"name"}},
}}

var deploymentSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
	{Type: "resource", LabelNames: []string{"name"}},
	{Type: "deployment", LabelNames: []string{"name"}},
}}

// Load reads every *.pier.hcl and *.pier.json file in dir and decodes it.
// Configuration errors are returned as a [*DiagnosticsError].
func Load(dir string, opts Options) (*Deployment, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("load deployment: %w", err)
	}
	var files []sourceFile
	var auto []string
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() && IsAutoVarFile(name) {
			auto = append(auto, filepath.Join(dir, name))
			continue
		}
		if e.IsDir() || !(strings.HasSuffix(name, suffixHCL) || strings.HasSuffix(name, suffixJSON)) {
			continue
		}
		path := filepath.Join(dir, name)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("load deployment %s: %w", dir, err)
		}
		files = append(files, sourceFile{path, src})
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("load deployment %s: %w", dir, ErrNoFiles)
	}
	opts.VarFiles = append(sortAutoVarFiles(auto), opts.VarFiles...)
	return loadFiles(dir, files, opts)
}

// ErrNoFiles is the error of a directory that holds no deployment files.
var ErrNoFiles = errors.New("no " + suffixHCL + " or " + suffixJSON + " files")

// HasFiles reports whether dir holds deployment files: a directory that
// does not, but holds a flake.nix, is a Nix deployment.
func HasFiles(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if name := e.Name(); !e.IsDir() && (strings.HasSuffix(name, suffixHCL) || strings.HasSuffix(name, suffixJSON)) {
			return true
		}
	}
	return false
}

// sourceFile is one deployment file's path and contents.
type sourceFile struct {
	path string
	src  []byte
}

// loadFiles is Load after reading the directory.
func loadFiles(dir string, files []sourceFile, opts Options) (*Deployment, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("load deployment %s: %w", dir, err)
	}
	p := hclparse.NewParser()
	var bodies []hcl.Body
	var diags hcl.Diagnostics
	for _, f := range files {
		file, ds := parseFile(p, f.path, f.src)
		diags = append(diags, ds...)
		if file != nil {
			bodies = append(bodies, file.Body)
		}
	}
	if diags.HasErrors() {
		// A file that does not parse would only add confusing follow-on
		// errors about what is missing from it.
		return nil, &DiagnosticsError{Diagnostics: diags, Files: p.Files()}
	}
	d, ds := decode(dir, abs, bodies, opts)
	diags = append(diags, ds...)
	if diags.HasErrors() {
		return nil, &DiagnosticsError{Diagnostics: RedactDiagnostics(diags, functions()), Files: p.Files()}
	}
	d.files = p.Files()
	return d, nil
}

func parseFile(p *hclparse.Parser, path string, src []byte) (*hcl.File, hcl.Diagnostics) {
	if ds := hcldepth.CheckSyntax(src, path, strings.HasSuffix(path, ".json")); ds.HasErrors() {
		return nil, ds
	}
	if strings.HasSuffix(path, ".json") {
		return p.ParseJSON(src, path)
	}
	return p.ParseHCL(src, path)
}

// decode turns parsed bodies into a Deployment. It runs in phases because
// blocks may refer to blocks declared later or in other files: variables
// first (providers and types use them), then every name, then references.
func decode(dir, abs string, bodies []hcl.Body, opts Options) (*Deployment, hcl.Diagnostics) {
	d := &Deployment{
		dir:       dir,
		root:      abs,
		providers: map[string]*source.Provider{},
		variables: map[string]*variableDecl{},
		locals:    map[string]*localDecl{},
		scope:     newScope("", nil, hcl.Range{}),

		maxInstances:   maxCount,
		readers:        map[string]map[reader]bool{},
		builtins:       opts.Builtins,
		lockedVersions: opts.LockedVersions,
	}
	var diags hcl.Diagnostics
	var blocks hcl.Blocks
	for _, b := range bodies {
		c, ds := b.Content(rootSchema)
		diags = append(diags, ds...)
		blocks = append(blocks, c.Blocks...)
	}
	byType := map[string]hcl.Blocks{}
	for _, b := range blocks {
		if b.Type == "locals" || b.Type == "import" || b.Type == "removed" {
			byType[b.Type] = append(byType[b.Type], b)
			continue
		}
		if !validLabel(b, &diags) {
			continue
		}
		byType[b.Type] = append(byType[b.Type], b)
	}

	for _, b := range byType["variable"] {
		diags = append(diags, d.decodeVariable(b)...)
	}
	vars, ds := d.variableValues(opts)
	diags = append(diags, ds...)
	d.baseCtx = &hcl.EvalContext{
		Variables: map[string]cty.Value{
			"var":  vars,
			"path": cty.ObjectVal(map[string]cty.Value{"root": cty.StringVal(abs)}),
		},
		Functions: functions(),
	}
	if ds.HasErrors() {
		// Everything below evaluates with the variables.
		return d, diags
	}
	if ds := d.validateVariables(d.baseCtx); ds.HasErrors() {
		// As Terraform: a value its validation refuses is not planned with.
		return d, append(diags, ds...)
	}
	for _, b := range byType["provider"] {
		diags = append(diags, d.decodeProvider(b)...)
	}

	// Names first, so that references can point forward and across files.
	var pendingRes []pendingResource
	var walk func(s *scope, bs hcl.Blocks)
	walk = func(s *scope, bs hcl.Blocks) {
		for _, b := range bs {
			switch b.Type {
			case "resource":
				r, ds := d.declareResource(s, b)
				diags = append(diags, ds...)
				if r != nil {
					pendingRes = append(pendingRes, pendingResource{r, b})
				}
			case "deployment":
				c, ds := d.declareDeployment(s, b)
				diags = append(diags, ds...)
				if c == nil {
					continue
				}
				content, ds := b.Body.Content(deploymentSchema)
				diags = append(diags, ds...)
				var inner hcl.Blocks
				for _, ib := range content.Blocks {
					if validLabel(ib, &diags) {
						inner = append(inner, ib)
					}
				}
				walk(c, inner)
			}
		}
	}
	var top hcl.Blocks
	for _, b := range blocks {
		if b.Type == "resource" || b.Type == "deployment" {
			top = append(top, b)
		}
	}
	walk(d.scope, top)
	diags = append(diags, d.decodeLocals(byType["locals"])...)

	contents := make([]*hcl.BodyContent, len(pendingRes))
	for i, p := range pendingRes {
		c, ds := d.decodeResource(p.decl, p.block)
		diags = append(diags, ds...)
		contents[i] = c
	}
	for i, p := range pendingRes {
		diags = append(diags, d.linkResource(p.decl, contents[i])...)
	}
	for _, b := range byType["output"] {
		diags = append(diags, d.decodeOutput(b)...)
	}
	for _, b := range byType["check"] {
		diags = append(diags, d.decodeCheck(b)...)
	}
	diags = append(diags, d.decodeImports(byType["import"])...)
	diags = append(diags, d.decodeRemoved(byType["removed"])...)
	for _, name := range sortedKeys(d.locals) {
		// Locals nobody reads are checked too.
		diags = append(diags, d.analyzeLocal(d.locals[name], d.locals[name].defRange)...)
	}
	if diags.HasErrors() {
		return d, diags
	}
	diags = append(diags, d.order()...)
	return d, diags
}

type pendingResource struct {
	decl  *resourceDecl
	block *hcl.Block
}

func validLabel(b *hcl.Block, diags *hcl.Diagnostics) bool {
	if len(b.Labels) != 1 {
		return false
	}
	if !hclsyntax.ValidIdentifier(b.Labels[0]) {
		*diags = append(*diags, diagErr(b.LabelRanges[0], "Invalid name",
			"%q is not a valid %s name: use letters, digits, underscores and dashes, starting with a letter.", b.Labels[0], b.Type))
		return false
	}
	return true
}

func (d *Deployment) declareDeployment(s *scope, b *hcl.Block) (*scope, hcl.Diagnostics) {
	name := b.Labels[0]
	if ds := duplicateMember(s, name, b); ds != nil {
		return nil, ds
	}
	c := newScope(name, s, b.DefRange)
	s.children[name] = c
	s.members = append(s.members, name)
	return c, nil
}

func duplicateMember(s *scope, name string, b *hcl.Block) hcl.Diagnostics {
	var prev hcl.Range
	if r, ok := s.resources[name]; ok {
		prev = r.defRange
	} else if c, ok := s.children[name]; ok {
		prev = c.rng
	} else {
		return nil
	}
	return hcl.Diagnostics{diagErr(b.DefRange, "Duplicate member",
		"%s %q is already declared in this deployment at %s.", b.Type, name, rangeString(prev))}
}

func rangeString(r hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

func toSourceRange(r hcl.Range) source.Range {
	return source.Range{Filename: r.Filename, Line: r.Start.Line, Column: r.Start.Column}
}

// sortedKeys returns m's keys in order, for deterministic suggestions.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
