package hclsource

import (
	"errors"
	"fmt"
	"github.com/pierhq/pier/schema"
	"maps"
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
	// FetchModule resolves a module source that is not a local path; nil
	// accepts local paths only.
	FetchModule ModuleFetcher
	// Values are variable values given as values (pier test's
	// variables), winning over every other source.
	Values map[string]cty.Value
	// Asserts, when set, are evaluated as a check block of their own
	// (pier test's run blocks): their results are named Asserts.Name.
	Asserts *Asserts
}

// Asserts are pier test's assert blocks of one run. Unlike a check
// block's, they may read output.NAME too.
type Asserts struct {
	// Name is the results' Check, e.g. run.creates_file.
	Name   string
	Blocks hcl.Blocks
	// Range is the run block, for a run without asserts.
	Range hcl.Range
}

// ModuleFetcher resolves a module source that is not a local path to a
// directory. It reports whether it handles that kind of source at all;
// an error is the reason a source it handles is not available.
type ModuleFetcher func(source string) (dir string, handled bool, err error)

// Deployment is a loaded HCL deployment. It implements [source.Source].
//
// Load decodes every block once; Resolve evaluates and caches. Like every
// [source.Source], a Deployment is used from one goroutine at a time.
type Deployment struct {
	dir       string // as given to Load, for messages
	root      string // absolute, for path.root and relative executables
	files     map[string]*hcl.File
	providers map[string]*source.Provider
	scope     *scope // the root unit's
	// rootUnit is the deployment's own unit, and units every unit,
	// module instances after their callers.
	rootUnit *unit
	units    []*unit
	// parser parsed every file, module files too; moduleFiles are the
	// parsed files of each module directory.
	parser      *hclparse.Parser
	moduleFiles map[string][]hcl.Body
	fetchModule ModuleFetcher
	resources   []*resourceDecl // declaration order
	topo        []*resourceDecl // dependency order
	outputs     []*outputDecl
	builtins    schema.Adapters // see Options.Builtins
	// lockedVersions are Options.LockedVersions.
	lockedVersions map[string]string
	variables      map[string]*variableDecl // the root unit's
	baseCtx        *hcl.EvalContext         // the root unit's
	imports        []*source.Import         // import blocks, one per for_each element
	importedAt     map[string]hcl.Range     // the import block of each address
	removed        []*source.Removed        // removed blocks
	moved          []*source.Moved          // moved blocks
	checks         []*checkDecl             // check blocks

	// Resolve's cache: blocks to evaluate, blocks whose evaluation failed
	// (evaluated again next time), and blocks whose outputs someone reads.
	pending dirtyQueue
	retry   []*resourceDecl
	watched []*resourceDecl
	readers map[string]readerSet // instance address → who read it
	started bool
	// rest is set by ResolveHandlers: the next Resolve evaluates every
	// block it left alone.
	rest bool
	// maxInstances bounds count and for_each (maxCount; tests lower it).
	maxInstances int
	// lastReady and lastBlocked size the next snapshot's lists.
	lastReady, lastBlocked int
	// evaluations counts resource block evaluations, so tests can check
	// that a round costs the size of the change.
	evaluations int
	// handlerReady is told when an instance at one of handlerAddrs
	// becomes ready (see WatchHandlers).
	handlerReady func(*source.Resource)
	handlerAddrs map[string]bool
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
	{Type: "moved"},
	{Type: "check", LabelNames: []string{"name"}},
	{Type: "module", LabelNames: []string{"name"}},
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
	var auto []string
	for _, e := range entries {
		if name := e.Name(); !e.IsDir() && IsAutoVarFile(name) {
			auto = append(auto, filepath.Join(dir, name))
		}
	}
	files, err := readDir(dir)
	if err != nil {
		return nil, fmt.Errorf("load deployment %s: %w", dir, err)
	}
	opts.VarFiles = append(sortAutoVarFiles(auto), opts.VarFiles...)
	return loadFiles(dir, files, opts)
}

// readDir reads the deployment files of a directory, in name order.
func readDir(dir string) ([]sourceFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []sourceFile
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !(strings.HasSuffix(name, suffixHCL) || strings.HasSuffix(name, suffixJSON)) {
			continue
		}
		path := filepath.Join(dir, name)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		files = append(files, sourceFile{path, src})
	}
	if len(files) == 0 {
		return nil, ErrNoFiles
	}
	return files, nil
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
	d, ds := decode(dir, abs, p, bodies, opts)
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

// decode turns parsed bodies into a Deployment. It runs in two passes
// because blocks may refer to blocks declared later, in other files or in
// module instances: declareUnit declares every unit's names (making
// module instances as it goes), then linkUnit resolves references.
func decode(dir, abs string, p *hclparse.Parser, bodies []hcl.Body, opts Options) (*Deployment, hcl.Diagnostics) {
	d := &Deployment{
		dir:         dir,
		root:        abs,
		providers:   map[string]*source.Provider{},
		parser:      p,
		moduleFiles: map[string][]hcl.Body{},
		fetchModule: opts.FetchModule,

		maxInstances:   maxCount,
		readers:        map[string]readerSet{},
		builtins:       opts.Builtins,
		lockedVersions: opts.LockedVersions,
	}
	u := newUnit(abs)
	u.scope = newScope("", nil, hcl.Range{})
	u.scope.unit = u
	d.rootUnit, d.scope, d.variables = u, u.scope, u.variables
	diags := d.declareUnit(u, bodies, func() (cty.Value, hcl.Diagnostics) { return d.variableValues(opts) })
	d.baseCtx = u.ctx
	if diags.HasErrors() {
		return d, diags
	}
	for _, u := range d.units {
		diags = append(diags, d.linkUnit(u)...)
	}
	if a := opts.Asserts; a != nil {
		diags = append(diags, d.decodeAsserts(a)...)
	}
	if diags.HasErrors() {
		return d, diags
	}
	diags = append(diags, d.order()...)
	return d, diags
}

// unitBlocks are the blocks of a unit that linkUnit decodes.
type unitBlocks struct {
	resources []pendingResource
	byType    map[string]hcl.Blocks
}

// declareUnit decodes what unit u's blocks declare: variables (whose
// values come from values), providers, the names of resources and
// deployment blocks, locals, outputs and module instances.
func (d *Deployment) declareUnit(u *unit, bodies []hcl.Body, values func() (cty.Value, hcl.Diagnostics)) hcl.Diagnostics {
	d.units = append(d.units, u)
	var diags hcl.Diagnostics
	var blocks hcl.Blocks
	for _, b := range bodies {
		c, ds := b.Content(rootSchema)
		diags = append(diags, ds...)
		blocks = append(blocks, c.Blocks...)
	}
	byType := map[string]hcl.Blocks{}
	for _, b := range blocks {
		if b.Type == "locals" || b.Type == "import" || b.Type == "removed" || b.Type == "moved" {
			byType[b.Type] = append(byType[b.Type], b)
			continue
		}
		if !validLabel(b, &diags) {
			continue
		}
		byType[b.Type] = append(byType[b.Type], b)
	}
	ub := &unitBlocks{byType: byType}
	u.blocks = ub

	for _, b := range byType["variable"] {
		diags = append(diags, d.decodeVariable(u, b)...)
	}
	vars, ds := values()
	diags = append(diags, ds...)
	path := map[string]cty.Value{"root": cty.StringVal(d.root), "module": cty.StringVal(u.dir)}
	fns := functions()
	if d.rootUnit != u {
		fns = d.rootUnit.ctx.Functions
	}
	u.ctx = &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": vars, "path": cty.ObjectVal(path)},
		Functions: fns,
	}
	if ds.HasErrors() {
		// Everything below evaluates with the variables.
		return diags
	}
	if u.call != nil {
		diags = append(diags, d.moduleProviders(u)...)
	}
	if ds := d.validateVariables(u); ds.HasErrors() {
		// As Terraform: a value its validation refuses is not planned with.
		return append(diags, ds...)
	}
	for _, b := range byType["provider"] {
		diags = append(diags, d.decodeProvider(u, b)...)
	}

	// Names first, so that references can point forward and across files.
	var walk func(s *scope, bs hcl.Blocks)
	walk = func(s *scope, bs hcl.Blocks) {
		for _, b := range bs {
			switch b.Type {
			case "resource":
				r, ds := d.declareResource(s, b)
				diags = append(diags, ds...)
				if r != nil {
					ub.resources = append(ub.resources, pendingResource{r, b})
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
	walk(u.scope, top)
	diags = append(diags, d.decodeLocals(u, byType["locals"])...)
	if u.call != nil {
		for _, b := range byType["output"] {
			diags = append(diags, d.declareModuleOutput(u, b)...)
		}
	}
	for _, b := range byType["module"] {
		diags = append(diags, d.declareModule(u, b)...)
	}
	return diags
}

// linkUnit decodes the blocks of a declared unit and resolves their
// references.
func (d *Deployment) linkUnit(u *unit) hcl.Diagnostics {
	var diags hcl.Diagnostics
	ub := u.blocks
	for _, name := range slices.Sorted(maps.Keys(u.modules)) {
		c := u.modules[name]
		if a, ok := c.attrs["depends_on"]; ok {
			exprs, ds := hcl.ExprList(a.Expr)
			diags = append(diags, ds...)
			for _, e := range exprs {
				refs, ds := d.dependsOnRefs(u.scope, e)
				diags = append(diags, ds...)
				c.dependsOn = append(c.dependsOn, refs...)
			}
		}
		for _, inst := range c.instances {
			inst.dependsOn = append(slices.Clip(u.dependsOn), c.dependsOn...)
		}
	}
	contents := make([]*hcl.BodyContent, len(ub.resources))
	for i, p := range ub.resources {
		c, ds := d.decodeResource(p.decl, p.block)
		diags = append(diags, ds...)
		contents[i] = c
	}
	for i, p := range ub.resources {
		diags = append(diags, d.linkResource(p.decl, contents[i])...)
	}
	if u.call == nil {
		for _, b := range ub.byType["output"] {
			diags = append(diags, d.decodeOutput(b)...)
		}
	}
	if u.call == nil {
		for _, b := range ub.byType["check"] {
			diags = append(diags, d.decodeCheck("check."+b.Labels[0], b.DefRange, b.Body)...)
		}
	}
	diags = append(diags, d.decodeImports(u, ub.byType["import"])...)
	diags = append(diags, d.decodeRemoved(u, ub.byType["removed"])...)
	diags = append(diags, d.decodeMoved(u, ub.byType["moved"])...)
	// Locals, arguments and outputs nobody reads are checked too.
	for _, name := range slices.Sorted(maps.Keys(u.locals)) {
		diags = append(diags, d.analyzeLocal(u.locals[name], u.locals[name].defRange)...)
	}
	for _, name := range slices.Sorted(maps.Keys(u.args)) {
		diags = append(diags, d.analyzeLocal(u.args[name], u.args[name].defRange)...)
	}
	for _, name := range slices.Sorted(maps.Keys(u.outputs)) {
		diags = append(diags, d.analyzeLocal(u.outputs[name], u.outputs[name].defRange)...)
	}
	return diags
}

// declareModuleOutput records an output block of a module instance,
// read by the caller as module.NAME.OUTPUT.
func (d *Deployment) declareModuleOutput(u *unit, b *hcl.Block) hcl.Diagnostics {
	name := b.Labels[0]
	if prev, ok := u.outputs[name]; ok {
		return hcl.Diagnostics{diagErr(b.DefRange, "Duplicate output",
			"output %q is already declared at %s.", name, rangeString(prev.defRange))}
	}
	content, diags := b.Body.Content(outputSchema)
	o := &localDecl{name: name, defRange: b.DefRange, unit: u, kind: kindOutput}
	if a, ok := content.Attributes["sensitive"]; ok {
		v := evalAttr(u.ctx, a, cty.Bool, &diags)
		o.sensitive = v != cty.NilVal && !v.IsNull() && v.True()
	}
	if a, ok := content.Attributes["value"]; ok {
		o.expr = a.Expr
	} else {
		o.expr = hcl.StaticExpr(cty.NullVal(cty.DynamicPseudoType), b.DefRange)
	}
	u.outputs[name] = o
	return diags
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
