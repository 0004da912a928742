package hclsource

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/pierhq/pier/host/source"
	"github.com/zclconf/go-cty/cty"
	"slices"
	"strings"
)

// scope is the root of the deployment or one deployment block: the names
// that resource.X and deployment.X look up first.
type scope struct {
	name      string
	path      source.Address // deployment steps from the root; empty at the root
	unit      *unit          // the root deployment or module instance it is in
	parent    *scope         // nil at a unit's root: lookups stop there
	resources map[string]*resourceDecl
	children  map[string]*scope
	members   []string // resource and deployment names in declaration order
	// instances are the module instances called here, in order, for
	// walking the tree (the calls themselves are the unit's).
	instances []*unit
	rng       hcl.Range
}

func newScope(name string, parent *scope, rng hcl.Range) *scope {
	s := &scope{name: name, parent: parent, resources: map[string]*resourceDecl{}, children: map[string]*scope{}, rng: rng}
	if parent != nil {
		s.path = append(append(source.Address{}, parent.path...), source.Step{Name: name})
		s.unit = parent.unit
	}
	return s
}

// lookupResource finds name in s or, failing that, in the enclosing scopes.
func (s *scope) lookupResource(name string) *resourceDecl {
	for c := s; c != nil; c = c.parent {
		if r, ok := c.resources[name]; ok {
			return r
		}
	}
	return nil
}

// lookupDeployment finds a deployment block named name in s or, failing
// that, in the enclosing scopes.
func (s *scope) lookupDeployment(name string) *scope {
	for c := s; c != nil; c = c.parent {
		if d, ok := c.children[name]; ok {
			return d
		}
	}
	return nil
}

// visibleResources lists the resource names visible from s, for
// suggestions.
func (s *scope) visibleResources() []string {
	var names []string
	for c := s; c != nil; c = c.parent {
		for n := range c.resources {
			names = append(names, n)
		}
	}
	return names
}

// expansion says how a resource block becomes instances.
type expansion uint8

const (
	expandNone expansion = iota
	expandCount
	expandForEach
)

// resourceDecl is one resource block, decoded once by Load, plus the cache
// of its latest evaluation.
type resourceDecl struct {
	name     string
	scope    *scope
	addr     source.Address // without instance key
	provider string
	typ      string
	inputs   hcl.Expression // nil means no inputs
	// hoist is what of inputs the instances share, planned on the first
	// evaluation of many instances (hoisted says it was); see hoist.go.
	hoist    *hoistPlan
	hoisted  bool
	expand   expansion
	expandBy hcl.Expression // the count or for_each expression
	// expandRefs is set when expandBy refers to a resource, directly or
	// through a local.
	expandRefs bool
	state      *source.Address
	stateRef   *ref
	dependsOn  []*ref // explicit depends_on
	lifecycle  *source.Lifecycle
	// conditions are the lifecycle's precondition and postcondition
	// blocks, in order (resource_conditions.go); postconditions is set
	// when one is a postcondition, which reads the instance's outputs.
	conditions     []*condition
	postconditions bool
	refresh        bool // refresh = true: read on every plan
	noRefresh      bool // refresh = false: not read for its provider's refresh = true
	// schemaSensitive are the input paths the provider's schema calls
	// sensitive, for instances whose outputs do not list them (see
	// SetSchemaSensitive).
	schemaSensitive [][]any
	// terraform is set when the resource's provider is a Terraform
	// provider, whose schema says which outputs are sensitive
	// ([source.InputSensitiveOutputs]).
	terraform bool
	refs      []*ref // references in inputs, count and for_each
	tree      *ctxNode
	defRange  hcl.Range
	index     int // position in dependency order

	// valueDependents are evaluated with this resource's value: they must be
	// re-evaluated when it changes. watched is set when some of them read
	// outputs, so Resolve must watch the known outputs of the instances.
	valueDependents  []*resourceDecl
	outputDependents []*outputDecl
	checkDependents  []*checkDecl
	watched          bool
	// queued is set while r is in Deployment.pending; whole asks for a
	// whole evaluation, dirty otherwise lists the instances to evaluate.
	queued bool
	whole  bool
	dirty  map[*instance]bool

	eval resourceEval
}

// resourceEval is the cached result of evaluating a resource block.
type resourceEval struct {
	done        bool
	failed      bool
	structural  *source.Blocked // count/for_each not known yet
	structMarks cty.ValueMarks
	instances   []*instance
	byKey       map[any]*instance
	value       cty.Value // what references to the resource see
	valueValid  bool
	// expandReads are the instances count or for_each read.
	expandReads []string
	// deps are what every instance depends on, and depWaits the waits that
	// depends_on adds.
	deps     depSet
	depWaits []source.Address
}

// depSet is what a resource's instances depend on: static holds what every
// instance follows (references with a written key, the state handler,
// depends_on); dynamic holds, per resource referenced with a computed key
// or as a whole, its instances. An instance depends on those of them it
// read (or that count/for_each read), and on all of them when it read none
// (e.g. length(resource.m), whose value carries no element's mark). Without
// that, every instance of "m[count.index]" would depend on every instance
// of m, and the recorded dependencies would grow with the square of the
// count.
type depSet struct {
	static      []source.Address
	dynamic     []map[string]source.Address
	expandReads []string
}

// of lists one instance's dependencies, given what its inputs read, in
// address order.
func (ds depSet) of(reads []string) []source.Address {
	if len(ds.dynamic) == 0 {
		return ds.static
	}
	seen := make(map[string]bool, len(ds.static))
	for _, a := range ds.static {
		seen[a.String()] = true
	}
	out := slices.Clone(ds.static)
	add := func(s string, a source.Address) {
		if !seen[s] {
			seen[s] = true
			out = append(out, a)
		}
	}
	for _, target := range ds.dynamic {
		found := false
		for _, list := range [][]string{reads, ds.expandReads} {
			for _, s := range list {
				if a, ok := target[s]; ok {
					add(s, a)
					found = true
				}
			}
		}
		if !found {
			for s, a := range target {
				add(s, a)
			}
		}
	}
	sortAddresses(out)
	return out
}

func sortAddresses(as []source.Address) {
	slices.SortFunc(as, func(a, b source.Address) int { return strings.Compare(a.String(), b.String()) })
}

// instance is one instance of a resource block.
type instance struct {
	decl    *resourceDecl
	key     any
	addr    source.Address
	addrStr string
	inputs  cty.Value            // may contain unknowns marked with waitMark
	vars    map[string]cty.Value // count or each, for expanded blocks
	reads   []string             // instances whose values flowed into inputs
	// sensitive are the dotted paths of inputs marked sensitive.
	sensitive []string
	ready     *source.Resource
	blocked   *source.Blocked

	outKnown bool
	outSeen  map[string]any // the map last seen in known, compared by identity
	outVal   cty.Value      // when outKnown; see outputs
	// outRefreshed is set once refreshOutputs has looked for the
	// instance's outputs.
	outRefreshed bool
	// val caches value(); cty.NilVal when inputs or outputs changed.
	val cty.Value
}

// outputDecl is one output block.
type outputDecl struct {
	name      string
	value     hcl.Expression
	sensitive bool
	refs      []*ref
	tree      *ctxNode
	defRange  hcl.Range
	dirty     bool
	result    *source.Output
	// val is the evaluated value, marks and all, for the checks that
	// read output.NAME (pier test's asserts); cty.NilVal until evaluated.
	val cty.Value
	// pending: the value is not wholly known yet (see
	// source.Snapshot.PendingOutputs).
	pending bool
}

// variableDecl is one variable block.
type variableDecl struct {
	name      string
	typ       cty.Type
	defaults  *typeexpr.Defaults
	def       cty.Value // cty.NilVal when there is no default
	sensitive bool
	given     bool // default is set, maybe to an invalid value
	defRange  hcl.Range
	// validations are its validation blocks (conditions.go).
	validations []*condition
	unit        *unit
}

// refKind says which part of a resource a reference reads.
type refKind uint8

const (
	refOutputs refKind = 1 << iota
	refInputs
)

// ref is a static reference to a resource, found by Load in an expression.
type ref struct {
	target *resourceDecl
	// key is the instance key written in the reference (int or string), or
	// nil when there is none or it is computed.
	key   any
	kinds refKind
	// output is the output name when the reference spells one out.
	output      string
	outputRange hcl.Range
	// path is how the reference reaches the resource in the evaluation
	// context, e.g. [resource db] or [deployment web resource db].
	path []string
	rng  hcl.Range
	// via is the local the reference was reached through, if any: the
	// block depends on the target, but its evaluation context holds the
	// local, not the target.
	via *localDecl
}

// ctxNode is the shape of the resource and deployment variables that one
// block's expressions see: only the resources they reference, so building an
// evaluation context costs the number of references, not of resources.
type ctxNode struct {
	children map[string]*ctxNode
	target   *resourceDecl
	// At the root only: the unit whose names the block sees, the locals
	// and the module arguments read (var.NAME known only while
	// resolving), and the module blocks read.
	unit    *unit
	locals  map[string]*localDecl
	vars    map[string]*localDecl
	modules map[string]*moduleRead
}

func buildTree(refs []*ref) *ctxNode {
	root := &ctxNode{children: map[string]*ctxNode{}}
	for _, r := range refs {
		if r.via != nil {
			continue
		}
		n := root
		for _, p := range r.path {
			c, ok := n.children[p]
			if !ok {
				c = &ctxNode{children: map[string]*ctxNode{}}
				n.children[p] = c
			}
			n = c
		}
		n.target = r.target
	}
	return root
}

// waitMark marks an unknown value that stands for outputs of the resource
// at the given address, so that a blocked resource can say what it waits on.
type waitMark string

// readMark marks the value of the resource instance at the given address,
// so that Resolve learns from an evaluated value which instances it read.
type readMark string

// sensitiveMark marks sensitive values; see sensitive.go.
type sensitiveMark struct{}
