package hclsource

import (
	"container/heap"
	"context"
	"fmt"
	"iter"
	"maps"
	"math/big"
	"reflect"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/pierhq/pier/host/source"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// maxCount bounds count so that a typo cannot make millions of instances:
// 100,000 instances take about a second to evaluate.
const maxCount = 100000

// Resolve evaluates the deployment given the outputs known so far.
//
// The first call evaluates every block. Later calls re-evaluate only what
// read something that changed since the previous call: outputs that became
// known, changed or were dropped, and then, instance by instance, what read
// a re-evaluated instance whose value changed (see the package doc). An
// address whose output map in known is the same map (by identity) as in the
// previous call is taken as unchanged without comparing contents, so the
// engine must pass a new map, not mutate the old one, when a resource's
// outputs change. Resolve keeps no reference to known itself.
//
// The returned resources are shared between snapshots and must not be
// modified. Configuration errors found while evaluating (a reference to an
// output the resource does not have, a type error) are returned as a
// [*DiagnosticsError]; the blocks involved are evaluated again on the next
// call.
func (d *Deployment) Resolve(ctx context.Context, known source.Outputs) (*source.Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !d.started {
		d.started = true
		for _, r := range d.topo {
			d.queueBlock(r)
		}
		for _, o := range d.outputs {
			o.dirty = true
		}
		for _, c := range d.checks {
			c.dirty = true
		}
	}
	if d.rest {
		d.rest = false
		for _, r := range d.topo {
			if !r.eval.done {
				d.queueBlock(r)
			}
		}
	}
	for _, r := range d.retry {
		d.queueBlock(r)
	}
	d.retry = nil
	var diags hcl.Diagnostics
	for _, r := range d.watched {
		if !r.eval.done || r.eval.failed || r.eval.structural != nil {
			continue
		}
		for _, inst := range r.eval.instances {
			c, ds := inst.refreshOutputs(known, r)
			diags = append(diags, ds...)
			if c {
				d.instanceChanged(r, inst)
				if r.postconditions {
					// Its postconditions read its outputs.
					d.queueInstance(r, inst)
				}
			}
		}
	}
	for n := 0; d.pending.len() > 0; n++ {
		if n%256 == 255 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		r := d.pending.pop()
		whole, dirty := r.whole, r.dirty
		r.whole, r.dirty = false, nil
		if whole || !r.eval.done || r.eval.failed || r.eval.structural != nil {
			diags = append(diags, d.evalResource(r, known)...)
		} else {
			diags = append(diags, d.evalInstances(r, dirty)...)
		}
	}
	for _, o := range d.outputs {
		if o.dirty {
			diags = append(diags, d.evalOutput(o)...)
		}
	}
	for _, c := range d.checks {
		if c.dirty {
			d.evalCheck(c)
		}
	}
	if diags.HasErrors() {
		return nil, &DiagnosticsError{Diagnostics: RedactDiagnostics(diags, d.baseCtx.Functions), Files: d.files}
	}
	return d.snapshot(), nil
}

func (d *Deployment) snapshot() *source.Snapshot {
	// Size the lists like last time: in the rounds of one apply they
	// change by a few entries.
	s := &source.Snapshot{
		Providers: make(map[string]*source.Provider, len(d.providers)),
		Ready:     make([]*source.Resource, 0, d.lastReady),
		Blocked:   make([]*source.Blocked, 0, d.lastBlocked),
		Imports:   d.imports,
		Removed:   d.removed,
		Moved:     d.moved,
	}
	for k, p := range d.providers {
		s.Providers[k] = p
	}
	for _, r := range d.resources {
		if r.eval.structural != nil {
			s.Blocked = append(s.Blocked, r.eval.structural)
			continue
		}
		for _, inst := range r.eval.instances {
			if inst.ready != nil {
				s.Ready = append(s.Ready, inst.ready)
			} else if inst.blocked != nil {
				s.Blocked = append(s.Blocked, inst.blocked)
			}
		}
	}
	for _, c := range d.checks {
		s.Checks = append(s.Checks, c.results...)
	}
	for _, o := range d.outputs {
		switch {
		case o.result != nil:
			s.Outputs = append(s.Outputs, o.result)
		case o.pending:
			s.PendingOutputs = append(s.PendingOutputs, o.name)
		}
	}
	d.lastReady, d.lastBlocked = len(s.Ready), len(s.Blocked)
	return s
}

// queueBlock queues r for a whole evaluation: count or for_each and every
// instance.
func (d *Deployment) queueBlock(r *resourceDecl) {
	r.whole, r.dirty = true, nil
	d.pending.push(r)
}

// queueInstance queues one instance of r for evaluation.
func (d *Deployment) queueInstance(r *resourceDecl, inst *instance) {
	if !r.whole {
		if r.dirty == nil {
			r.dirty = map[*instance]bool{}
		}
		r.dirty[inst] = true
	}
	d.pending.push(r)
}

// blockChanged queues everything that reads r after r's set of instances
// changed (or r was evaluated for the first time, or failed): readers that
// index, count or list r must be evaluated whole.
func (d *Deployment) blockChanged(r *resourceDecl) {
	r.eval.valueValid = false
	for _, x := range r.valueDependents {
		d.queueBlock(x)
	}
	for _, o := range r.outputDependents {
		o.dirty = true
	}
	for _, c := range r.checkDependents {
		c.dirty = true
	}
}

// instanceChanged queues the readers of what inst's inputs or outputs
// were. Readers are known from the read marks in their evaluated values,
// so only the instances whose values came from inst are evaluated again.
func (d *Deployment) instanceChanged(r *resourceDecl, inst *instance) {
	r.eval.valueValid = false
	for rd := range d.readers[inst.addrStr].all() {
		if rd.inst == nil {
			d.queueBlock(rd.decl)
		} else {
			d.queueInstance(rd.decl, rd.inst)
		}
	}
	for _, o := range r.outputDependents {
		o.dirty = true
	}
	for _, c := range r.checkDependents {
		c.dirty = true
	}
}

// reader is an instance, or with inst nil the count or for_each of a
// block, that read some instance's value.
type reader struct {
	decl *resourceDecl
	inst *instance
}

// setReads records what rd read, replacing what it read before.
func (d *Deployment) setReads(rd reader, old, reads []string) {
	if len(old) == 1 && len(reads) == 1 && old[0] == reads[0] {
		return // read the same instance again, as instances mostly do
	}
	for _, a := range old {
		if s, ok := d.readers[a]; ok {
			s.remove(rd)
			d.readers[a] = s
		}
	}
	for _, a := range reads {
		s := d.readers[a]
		s.add(rd)
		d.readers[a] = s
	}
}

// readerSet is who read an instance. Most instances are read by one
// reader or none, and a map of one entry for each was a part of a large
// deployment's heap: the first reader is kept inline, a map holds them
// when there are more.
type readerSet struct {
	one  reader // the only reader when more is nil; the zero reader is none
	more map[reader]struct{}
}

func (s *readerSet) add(rd reader) {
	if s.more == nil {
		if s.one == (reader{}) || s.one == rd {
			s.one = rd
			return
		}
		s.more = map[reader]struct{}{s.one: {}}
		s.one = reader{}
	}
	s.more[rd] = struct{}{}
}

func (s *readerSet) remove(rd reader) {
	if s.more == nil {
		if s.one == rd {
			s.one = reader{}
		}
		return
	}
	delete(s.more, rd)
}

// all yields the readers in s, in no particular order.
func (s readerSet) all() iter.Seq[reader] {
	return func(yield func(reader) bool) {
		if s.more == nil {
			if s.one != (reader{}) {
				yield(s.one)
			}
			return
		}
		for rd := range s.more {
			if !yield(rd) {
				return
			}
		}
	}
}

// readsFrom lists the instances whose values flowed into a value.
func readsFrom(marks cty.ValueMarks) []string {
	var out []string
	for m := range marks {
		if r, ok := m.(readMark); ok {
			out = append(out, string(r))
		}
	}
	return out
}

// refreshOutputs brings the instance's outputs up to date with known and
// reports whether they changed.
func (inst *instance) refreshOutputs(known source.Outputs, r *resourceDecl) (bool, hcl.Diagnostics) {
	m, ok := known[inst.addrStr]
	if !ok {
		if inst.outKnown || !inst.outRefreshed {
			inst.outKnown, inst.outSeen, inst.outRefreshed = false, nil, true
			inst.outVal, inst.val = cty.NilVal, cty.NilVal
			return true, nil
		}
		return false, nil
	}
	inst.outRefreshed = true
	if inst.outKnown && sameMap(m, inst.outSeen) {
		return false, nil
	}
	v, err := FromJSON(source.Visible(m))
	if err != nil {
		return false, hcl.Diagnostics{diagErr(r.defRange, "Invalid outputs", "known outputs of %s: %s.", inst.addrStr, err)}
	}
	if inst.outKnown && v.RawEquals(inst.outVal) {
		inst.outSeen = m
		return false, nil
	}
	inst.outKnown, inst.outSeen, inst.outVal, inst.val = true, m, v, cty.NilVal
	return true, nil
}

func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// refVariables builds the resource and deployment variables for a block
// from the resources it references.
func (d *Deployment) refVariables(tree *ctxNode) (map[string]cty.Value, hcl.Diagnostics) {
	vars := make(map[string]cty.Value, len(tree.children)+3)
	for name, c := range tree.children {
		vars[name] = d.treeValue(c)
	}
	var diags hcl.Diagnostics
	if len(tree.locals) > 0 {
		locals, ds := d.localValues(tree.locals)
		diags = append(diags, ds...)
		vars["local"] = locals
	}
	if len(tree.vars) > 0 {
		v, ds := d.varValue(tree.unit, tree.vars)
		diags = append(diags, ds...)
		vars["var"] = v
	}
	if len(tree.modules) > 0 {
		mods := make(map[string]cty.Value, len(tree.modules))
		for name, mr := range tree.modules {
			v, ds := d.moduleValue(mr)
			diags = append(diags, ds...)
			mods[name] = v
		}
		vars["module"] = cty.ObjectVal(mods)
	}
	return vars, diags
}

func (d *Deployment) treeValue(n *ctxNode) cty.Value {
	if n.target != nil {
		return d.valueOf(n.target)
	}
	attrs := make(map[string]cty.Value, len(n.children))
	for name, c := range n.children {
		attrs[name] = d.treeValue(c)
	}
	return cty.ObjectVal(attrs)
}

// valueOf is what a reference to r evaluates to: {inputs, outputs} per
// instance, in a tuple for count and an object for for_each.
func (d *Deployment) valueOf(r *resourceDecl) cty.Value {
	if r.eval.valueValid {
		return r.eval.value
	}
	var v cty.Value
	switch {
	case !r.eval.done || r.eval.failed:
		v = cty.DynamicVal
	case r.eval.structural != nil:
		v = cty.DynamicVal.WithMarks(r.eval.structMarks)
	case r.expand == expandNone:
		v = r.eval.instances[0].value()
	case r.expand == expandCount:
		if len(r.eval.instances) == 0 {
			v = cty.EmptyTupleVal
		} else {
			vals := make([]cty.Value, len(r.eval.instances))
			for i, inst := range r.eval.instances {
				vals[i] = inst.value()
			}
			v = cty.TupleVal(vals)
		}
	default:
		if len(r.eval.instances) == 0 {
			v = cty.EmptyObjectVal
		} else {
			vals := make(map[string]cty.Value, len(r.eval.instances))
			for _, inst := range r.eval.instances {
				vals[inst.key.(string)] = inst.value()
			}
			v = cty.ObjectVal(vals)
		}
	}
	r.eval.value, r.eval.valueValid = v, true
	return v
}

// value is what a reference to the instance sees. The read mark follows
// the value through every expression, so a reader's result says which
// instances it depends on.
func (inst *instance) value() cty.Value {
	if inst.val == cty.NilVal {
		inst.val = inst.markedValue().Mark(readMark(inst.addrStr))
	}
	return inst.val
}

// checkOutputs reports references to outputs that a resource with known
// outputs does not have. HCL would say "Unsupported attribute"; this says
// which outputs exist.
func (d *Deployment) checkOutputs(refs []*ref) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, x := range refs {
		if x.output == "" || !x.target.eval.done || x.target.eval.structural != nil {
			continue
		}
		var inst *instance
		if x.key != nil {
			inst = x.target.eval.byKey[x.key]
		} else if x.target.expand == expandNone && len(x.target.eval.instances) == 1 {
			inst = x.target.eval.instances[0]
		}
		if inst == nil || !inst.outKnown || !inst.outVal.Type().IsObjectType() || inst.outVal.Type().HasAttribute(x.output) {
			continue
		}
		names := slices.Sorted(maps.Keys(inst.outVal.Type().AttributeTypes()))
		list := "it has none"
		if len(names) > 0 {
			list = "it has: " + strings.Join(names, ", ")
		}
		diags = append(diags, diagErr(x.outputRange, "Unknown output",
			"resource %s has no output %q; %s.%s", inst.addrStr, x.output, list, suggest(x.output, names)))
	}
	return diags
}

// evalResource evaluates one resource block whole, count or for_each and
// every instance, and queues its readers if what they see changed.
func (d *Deployment) evalResource(r *resourceDecl, known source.Outputs) hcl.Diagnostics {
	d.evaluations++
	old := r.eval
	next := resourceEval{}
	fail := func(diags hcl.Diagnostics) hcl.Diagnostics {
		next.failed, next.done = true, true
		next.instances, next.byKey, next.expandReads = old.instances, old.byKey, old.expandReads
		r.eval = next
		d.retry = append(d.retry, r)
		d.blockChanged(r)
		return diags
	}
	if diags := d.checkOutputs(r.refs); diags.HasErrors() {
		return fail(diags)
	}
	ctx := r.scope.unit.ctx.NewChild()
	vars, diags := d.refVariables(r.tree)
	if diags.HasErrors() {
		return fail(diags)
	}
	ctx.Variables = vars

	keys, perKey, marks, diags := d.expandResource(r, ctx)
	if diags.HasErrors() {
		return fail(diags)
	}
	next.expandReads = readsFrom(marks)
	d.setReads(reader{decl: r}, old.expandReads, next.expandReads)
	var changed []*instance
	if keys == nil {
		next.structural = &source.Blocked{
			Address:    append(source.Address{}, r.addr...),
			WaitsOn:    waitsFrom(marks),
			Structural: true,
		}
		next.structMarks = onlyWaits(marks)
	} else {
		next.deps, next.depWaits = d.dependsOn(r)
		// Sized once: grown one by one, the index of a block of 100k
		// instances is rehashed a dozen times.
		next.byKey = make(map[any]*instance, len(keys))
		next.instances = make([]*instance, 0, len(keys))
		next.deps.expandReads = next.expandReads
		// In batches: the inputs of a batch are evaluated on every core,
		// then committed in order, so the result is the one-by-one one.
		batch := make([]*instance, 0, min(len(keys), evalBatch))
		outChanged := make([]bool, 0, cap(batch))
		outDiags := make([]hcl.Diagnostics, 0, cap(batch))
		evs := make([]evaluatedInputs, cap(batch))
		inputs := r.instanceInputs(ctx, len(keys))
		for start := 0; start < len(keys); start += evalBatch {
			batch, outChanged, outDiags = batch[:0], outChanged[:0], outDiags[:0]
			for i := start; i < min(start+evalBatch, len(keys)); i++ {
				key := keys[i]
				inst := old.byKey[key]
				if inst == nil {
					addr := append(source.Address{}, r.addr...)
					addr[len(addr)-1].Key = key
					inst = &instance{decl: r, key: key, addr: addr, addrStr: addr.String()}
				}
				c, ds := inst.refreshOutputs(known, r)
				if perKey != nil {
					inst.vars = perKey[i]
				}
				batch, outChanged, outDiags = append(batch, inst), append(outChanged, c), append(outDiags, ds)
			}
			evalInputsAll(r, inputs, batch, ctx, evs)
			for i, inst := range batch {
				diags = append(diags, outDiags[i]...)
				inChanged, ds := d.commitInstance(r, inst, ctx, next.deps, next.depWaits, &evs[i])
				evs[i] = evaluatedInputs{}
				diags = append(diags, ds...)
				if inChanged || outChanged[i] {
					changed = append(changed, inst)
				}
				next.instances = append(next.instances, inst)
				next.byKey[inst.key] = inst
			}
		}
		if diags.HasErrors() {
			return fail(diags)
		}
	}
	for _, inst := range old.instances {
		if next.byKey[inst.key] != inst {
			d.setReads(reader{decl: r, inst: inst}, inst.reads, nil)
		}
	}
	next.done = true
	r.eval = next
	if sameInstances(old, next) {
		for _, inst := range changed {
			d.instanceChanged(r, inst)
		}
	} else {
		d.blockChanged(r)
	}
	return nil
}

// sameInstances reports whether two evaluations have the same instance
// keys, in the same order, so readers that index or list the block need
// not be evaluated whole.
func sameInstances(a, b resourceEval) bool {
	if !a.done || a.failed || a.structural != nil || b.structural != nil || len(a.instances) != len(b.instances) {
		return a.done && !a.failed && a.structural != nil && b.structural != nil &&
			slices.Equal(addressStrings(a.structural.WaitsOn), addressStrings(b.structural.WaitsOn))
	}
	for i := range a.instances {
		if a.instances[i] != b.instances[i] {
			return false
		}
	}
	return true
}

func addressStrings(as []source.Address) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.String()
	}
	return out
}

// evalInstances evaluates some instances of a block whose count or
// for_each did not change.
func (d *Deployment) evalInstances(r *resourceDecl, dirty map[*instance]bool) hcl.Diagnostics {
	ctx := r.scope.unit.ctx.NewChild()
	vars, diags := d.refVariables(r.tree)
	if diags.HasErrors() {
		r.eval.failed = true
		d.retry = append(d.retry, r)
		d.blockChanged(r)
		return diags
	}
	ctx.Variables = vars
	var changed []*instance
	var todo []*instance
	for _, inst := range r.eval.instances {
		if dirty[inst] {
			todo = append(todo, inst)
		}
	}
	d.evaluations += len(todo)
	evs := make([]evaluatedInputs, min(len(todo), evalBatch))
	inputs := r.instanceInputs(ctx, len(todo))
	for start := 0; start < len(todo); start += evalBatch {
		batch := todo[start:min(start+evalBatch, len(todo))]
		evalInputsAll(r, inputs, batch, ctx, evs)
		for i, inst := range batch {
			c, ds := d.commitInstance(r, inst, ctx, r.eval.deps, r.eval.depWaits, &evs[i])
			evs[i] = evaluatedInputs{}
			diags = append(diags, ds...)
			if c {
				changed = append(changed, inst)
			}
		}
	}
	if diags.HasErrors() {
		r.eval.failed = true
		d.retry = append(d.retry, r)
		d.blockChanged(r)
		return diags
	}
	for _, inst := range changed {
		d.instanceChanged(r, inst)
	}
	return nil
}

// expandResource evaluates count or for_each. It returns the instance keys
// (nil when they are not known yet), for expanded resources the count or
// each variable of every instance, and the marks of the count or for_each
// value: which instances it read and, when unknown, what it waits for.
func (d *Deployment) expandResource(r *resourceDecl, ctx *hcl.EvalContext) ([]any, []map[string]cty.Value, cty.ValueMarks, hcl.Diagnostics) {
	if r.expand == expandNone {
		return []any{nil}, nil, nil, nil
	}
	v, diags := r.expandBy.Value(ctx)
	if diags.HasErrors() {
		return nil, nil, nil, diags
	}
	return d.expandValue(fmt.Sprintf("resource %q", r.name), r.expand, v, r.expandBy.Range())
}

// expandValue turns the value of a count or for_each into instance keys
// and each instance's count or each object; what names the block in
// messages.
func (d *Deployment) expandValue(what string, exp expansion, v cty.Value, rng hcl.Range) ([]any, []map[string]cty.Value, cty.ValueMarks, hcl.Diagnostics) {
	unmarked, marks := v.UnmarkDeep()
	if !unmarked.IsKnown() || (unmarked.Type().IsSetType() && !unmarked.IsWhollyKnown()) {
		return nil, nil, marks, nil
	}
	if unmarked.IsNull() {
		return nil, nil, nil, hcl.Diagnostics{diagErr(rng, "Invalid "+expansionName(exp),
			"%s of %s is null.", expansionName(exp), what)}
	}
	keys := []any{}
	var perKey []map[string]cty.Value
	if exp == expandCount {
		n, err := convert.Convert(unmarked, cty.Number)
		var count int64
		acc := big.Below
		if err == nil {
			count, acc = n.AsBigFloat().Int64()
		}
		if acc != big.Exact || count < 0 || count > int64(d.maxInstances) {
			return nil, nil, nil, hcl.Diagnostics{diagErr(rng, "Invalid count",
				"count of %s must be a whole number from 0 to %d.", what, d.maxInstances)}
		}
		// No per-key variables: count.index is the key, and [countVars]
		// makes it when an instance is evaluated. Kept for every instance,
		// they were a fifth of a large deployment's heap.
		keys = make([]any, count)
		for i := range keys {
			keys[i] = i
		}
		return keys, nil, marks, nil
	}
	if unmarked.CanIterateElements() && unmarked.LengthInt() > d.maxInstances {
		return nil, nil, nil, hcl.Diagnostics{diagErr(rng, "Invalid for_each",
			"for_each of %s has %d elements, more than %d.", what, unmarked.LengthInt(), d.maxInstances)}
	}
	top, topMarks := v.Unmark()
	if _, ok := topMarks[sensitiveMark{}]; ok {
		return nil, nil, nil, hcl.Diagnostics{sensitiveForEachDiag(rng)}
	}
	ty := unmarked.Type()
	switch {
	case ty.IsMapType() || ty.IsObjectType():
		for it := top.ElementIterator(); it.Next(); {
			k, e := it.Element()
			keys = append(keys, k.AsString())
			perKey = append(perKey, eachVars(k, e.WithMarks(topMarks)))
		}
	case ty.IsSetType() && (ty.ElementType() == cty.String || ty.ElementType() == cty.DynamicPseudoType):
		for it := unmarked.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if e.IsNull() || e.Type() != cty.String {
				return nil, nil, nil, hcl.Diagnostics{diagErr(rng, "Invalid for_each",
					"for_each of %s: a set must hold strings.", what)}
			}
			keys = append(keys, e.AsString())
			perKey = append(perKey, eachVars(e, e))
		}
	default:
		return nil, nil, nil, hcl.Diagnostics{diagErr(rng, "Invalid for_each",
			"for_each of %s must be a map, an object or a set of strings, not %s; convert a list with toset().", what, ty.FriendlyName())}
	}
	return keys, perKey, marks, nil
}

// countVars are the variables of instance i of a block with count.
func countVars(i int) map[string]cty.Value {
	return map[string]cty.Value{"count": countObject(i)}
}

// countObject is count in instance i of a block with count.
func countObject(i int) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{"index": cty.NumberIntVal(int64(i))})
}

func eachVars(k, v cty.Value) map[string]cty.Value {
	return map[string]cty.Value{"each": cty.ObjectVal(map[string]cty.Value{"key": k, "value": v})}
}

// dependsOn lists the instances r must follow. It also returns what r must
// wait for when a depends_on target has no known instances yet.
func (d *Deployment) dependsOn(r *resourceDecl) (depSet, []source.Address) {
	var deps, waits []source.Address
	var dynamic []map[string]source.Address
	seen := map[string]bool{}
	add := func(a source.Address) {
		if s := a.String(); !seen[s] {
			seen[s] = true
			deps = append(deps, a)
		}
	}
	all := func(t *resourceDecl) {
		for _, inst := range t.eval.instances {
			add(inst.addr)
		}
	}
	for _, x := range r.refs {
		if x.key != nil {
			a := append(source.Address{}, x.target.addr...)
			a[len(a)-1].Key = x.key
			add(a)
			continue
		}
		target := make(map[string]source.Address, len(x.target.eval.instances))
		for _, inst := range x.target.eval.instances {
			target[inst.addrStr] = inst.addr
		}
		dynamic = append(dynamic, target)
	}
	if r.state != nil {
		add(*r.state)
	}
	for _, x := range r.dependsOn {
		if s := x.target.eval.structural; s != nil {
			waits = append(waits, s.WaitsOn...)
			continue
		}
		if x.key != nil {
			a := append(source.Address{}, x.target.addr...)
			a[len(a)-1].Key = x.key
			add(a)
		} else {
			all(x.target)
		}
	}
	sortAddresses(deps)
	return depSet{static: deps, dynamic: dynamic}, waits
}

// evalVars are the count or each variables the instance's expressions
// see, nil for a block with neither.
func (inst *instance) evalVars(r *resourceDecl) map[string]cty.Value {
	if i, ok := inst.key.(int); ok && inst.vars == nil && r.expand == expandCount {
		return countVars(i)
	}
	return inst.vars
}

// evalScratch is what one goroutine's evaluations of instances reuse:
// the child of the block's context the instance's variables go in, and
// the map of count. Each instance's evaluation used to allocate both, a
// part of every instance's cost in a large block. Nothing of either
// outlives an evaluation but a diagnostic's context, and evalInputs
// evaluates again, in a context of the instance's own, when there is a
// diagnostic.
//
// indexed, when not nil, is the inputs with count.index read from the
// context (see countindex.go), which instances of a block with count
// evaluate instead, with count.index in count, not count's object.
type evalScratch struct {
	ctx     *hcl.EvalContext
	count   map[string]cty.Value
	indexed *countIndexed
}

func newEvalScratch(ctx *hcl.EvalContext, indexed *countIndexed) *evalScratch {
	return &evalScratch{ctx: ctx.NewChild(), count: make(map[string]cty.Value, 2), indexed: indexed}
}

// context is sc's context holding the instance's variables, those
// [instance.evalVars] gives, and the expression to evaluate in it:
// inputs, or sc.indexed's when the instance's count.index is in the
// context instead of count.
func (sc *evalScratch) context(r *resourceDecl, inputs hcl.Expression, inst *instance) (*hcl.EvalContext, hcl.Expression) {
	if i, ok := inst.key.(int); ok && inst.vars == nil && r.expand == expandCount {
		if sc.indexed != nil {
			sc.indexed.setCountIndex(sc.count, i)
			inputs = sc.indexed.expr
		} else {
			sc.count["count"] = countObject(i)
		}
		sc.ctx.Variables = sc.count
	} else {
		sc.ctx.Variables = inst.vars
	}
	return sc.ctx, inputs
}

// evalInstance evaluates one instance's inputs and reports whether they
// changed, as its readers see them.
func (d *Deployment) evalInstance(r *resourceDecl, inst *instance, ctx *hcl.EvalContext, deps depSet, depWaits []source.Address) (bool, hcl.Diagnostics) {
	ev := evalInputs(r, r.inputs, inst, ctx, false, nil)
	return d.commitInstance(r, inst, ctx, deps, depWaits, &ev)
}

// evaluatedInputs is what evaluating an instance's inputs gives, before
// anything of the deployment or the instance is updated.
type evaluatedInputs struct {
	val       cty.Value // as evaluated, marks and all
	known     bool      // unmarked is wholly known
	marks     cty.ValueMarks
	inputs    map[string]any
	sensitive []string
	diags     hcl.Diagnostics
}

// evalInputs evaluates an instance's inputs expression: inputs, which is
// r's or what [resourceDecl.instanceInputs] made of it. It changes
// nothing, so instances of one block may be evaluated on several
// goroutines; own gives the instance an EvalContext of its own even
// without count or each, as HCL's splat expressions need for that. sc,
// when not nil, is the calling goroutine's scratch, a child of ctx, for
// the instance's variables to go in instead of a context of its own.
func evalInputs(r *resourceDecl, inputs hcl.Expression, inst *instance, ctx *hcl.EvalContext, own bool, sc *evalScratch) evaluatedInputs {
	val := cty.EmptyObjectVal
	if inputs != nil {
		ictx, expr := ctx, inputs
		switch {
		case sc != nil && (own || inst.vars != nil || r.expand == expandCount):
			ictx, expr = sc.context(r, inputs, inst)
		case sc != nil:
			sc = nil // ctx itself, as below
		default:
			if vars := inst.evalVars(r); vars != nil || own {
				ictx = ctx.NewChild()
				ictx.Variables = vars
			}
		}
		var diags hcl.Diagnostics
		val, diags = expr.Value(ictx)
		if sc != nil && len(diags) > 0 {
			// A diagnostic keeps the context it was found in, which
			// the next instance would change: the same evaluation,
			// in a context of the instance's own, of inputs as they
			// are written (not count-indexed).
			return evalInputs(r, inputs, inst, ctx, own, nil)
		}
		if diags.HasErrors() {
			return evaluatedInputs{diags: diags}
		}
	}
	// Most inputs have no marks: then there is nothing to take off, and
	// no sensitive path to list.
	unmarked, marks, sensitive := val, cty.ValueMarks(nil), []string(nil)
	if containsMarked(val) {
		unmarked, marks, sensitive = unmarkInputs(val)
	}
	if unmarked.IsNull() || (unmarked.IsKnown() && !unmarked.Type().IsObjectType() && !unmarked.Type().IsMapType()) {
		return evaluatedInputs{diags: hcl.Diagnostics{diagErr(r.inputs.Range(), "Invalid inputs",
			"inputs of %s must be an object, not %s.", inst.addrStr, friendly(unmarked))}}
	}
	j, known, err := toJSONKnown(unmarked)
	if err != nil {
		return evaluatedInputs{diags: hcl.Diagnostics{diagErr(r.inputs.Range(), "Invalid inputs", "inputs of %s: %s.", inst.addrStr, err)}}
	}
	in, _ := j.(map[string]any)
	return evaluatedInputs{val: val, known: known, marks: marks, inputs: in, sensitive: sensitive}
}

// commitInstance records what evalInputs found for an instance: its
// inputs, what it read, its conditions and its resource. It reports
// whether the inputs changed, as the instance's readers see them.
func (d *Deployment) commitInstance(r *resourceDecl, inst *instance, ctx *hcl.EvalContext, deps depSet, depWaits []source.Address, ev *evaluatedInputs) (bool, hcl.Diagnostics) {
	if ev.diags.HasErrors() {
		return false, ev.diags
	}
	val, marks, inputs, sensitive := ev.val, ev.marks, ev.inputs, ev.sensitive
	changed := inst.inputs == cty.NilVal || !inst.inputs.RawEquals(val)
	if sensitive != nil {
		if diags := d.refuseSensitive(r, inst, sensitive); diags.HasErrors() {
			return false, diags
		}
		d.addSensitiveDefaults(r, inputs, sensitive)
	}
	if changed {
		inst.inputs, inst.sensitive, inst.val = val, sensitive, cty.NilVal
	}
	reads := readsFrom(marks)
	var conds []*source.ConditionResult
	if len(r.conditions) > 0 {
		var creads []string
		conds, creads = d.evalConditions(r, inst, ctx)
		reads = withReads(reads, creads)
	}
	d.setReads(reader{decl: r, inst: inst}, inst.reads, reads)
	inst.reads = reads
	res := &source.Resource{
		Address:         inst.addr,
		Provider:        r.provider,
		Type:            r.typ,
		Inputs:          inputs,
		State:           r.state,
		DependsOn:       deps.of(reads),
		Range:           toSourceRange(r.defRange),
		SensitiveInputs: sensitive,
		Lifecycle:       r.lifecycle,
		Refresh:         r.refresh,
		NoRefresh:       r.noRefresh,
		Conditions:      conds,
	}
	if ev.known && len(depWaits) == 0 {
		inst.ready, inst.blocked = res, nil
		if d.handlerReady != nil && d.handlerAddrs[inst.addrStr] {
			d.handlerReady(res)
		}
		return changed, nil
	}
	waits := waitsFrom(marks)
	for _, w := range depWaits {
		if !slices.ContainsFunc(waits, func(a source.Address) bool { return a.String() == w.String() }) {
			waits = append(waits, w)
		}
	}
	inst.ready, inst.blocked = nil, &source.Blocked{Address: inst.addr, WaitsOn: waits, Resource: res}
	return changed, nil
}

func friendly(v cty.Value) string {
	if v.IsNull() {
		return "null"
	}
	return v.Type().FriendlyName()
}

// waitsFrom lists, in order, the resources whose outputs the marks say a
// value waits for.
func waitsFrom(marks cty.ValueMarks) []source.Address {
	var names []string
	for m := range marks {
		if w, ok := m.(waitMark); ok {
			names = append(names, string(w))
		}
	}
	slices.Sort(names)
	out := make([]source.Address, 0, len(names))
	for _, n := range names {
		a, err := source.ParseAddress(n)
		if err != nil {
			panic("unparsable address " + n + ": this is a bug in pier")
		}
		out = append(out, a)
	}
	return out
}

func onlyWaits(marks cty.ValueMarks) cty.ValueMarks {
	out := cty.ValueMarks{}
	for m := range marks {
		if _, ok := m.(waitMark); ok {
			out[m] = struct{}{}
		}
	}
	return out
}

func (d *Deployment) evalOutput(o *outputDecl) hcl.Diagnostics {
	o.dirty = false
	o.result, o.pending, o.val = nil, false, cty.NilVal
	if diags := d.checkOutputs(o.refs); diags.HasErrors() {
		o.dirty = true
		return diags
	}
	ctx := d.baseCtx.NewChild()
	vars, diags := d.refVariables(o.tree)
	if diags.HasErrors() {
		o.dirty = true
		return diags
	}
	ctx.Variables = vars
	v, diags := o.value.Value(ctx)
	if diags.HasErrors() {
		o.dirty = true
		return diags
	}
	o.val = v
	unmarked, marks := v.UnmarkDeep()
	if _, ok := marks[sensitiveMark{}]; ok && !o.sensitive {
		o.dirty = true
		return hcl.Diagnostics{sensitiveOutputDiag(o)}
	}
	if !unmarked.IsWhollyKnown() {
		o.pending = true
		return nil
	}
	j, err := toJSON(unmarked)
	if err != nil {
		o.dirty = true
		return hcl.Diagnostics{diagErr(o.value.Range(), "Invalid output", "output %q: %s.", o.name, err)}
	}
	o.result = &source.Output{Name: o.name, Value: j, Sensitive: o.sensitive, Range: toSourceRange(o.defRange)}
	return nil
}

// dirtyQueue holds the resource blocks to evaluate, smallest dependency
// position first, so a block is evaluated after everything it reads. A
// block is in it at most once (resourceDecl.queued).
type dirtyQueue struct {
	items declHeap
}

func (q *dirtyQueue) len() int { return len(q.items) }

func (q *dirtyQueue) push(r *resourceDecl) {
	if r.queued {
		return
	}
	r.queued = true
	heap.Push(&q.items, r)
}

func (q *dirtyQueue) pop() *resourceDecl {
	top := heap.Pop(&q.items).(*resourceDecl) //nolint:forcetypeassert // declHeap holds only *resourceDecl
	top.queued = false
	return top
}

// declHeap orders resource blocks by dependency position for
// [container/heap].
type declHeap []*resourceDecl

func (h declHeap) Len() int           { return len(h) }
func (h declHeap) Less(i, j int) bool { return h[i].index < h[j].index }
func (h declHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }

func (h *declHeap) Push(x any) { *h = append(*h, x.(*resourceDecl)) } //nolint:forcetypeassert // only dirtyQueue.push calls it

func (h *declHeap) Pop() any {
	old := *h
	last := old[len(old)-1]
	old[len(old)-1] = nil // the backing array must not keep it alive
	*h = old[:len(old)-1]
	return last
}
