package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// Action is what a plan does to one resource.
type Action int

// The actions. The zero value is invalid.
const (
	ActionInvalid Action = iota
	ActionCreate
	ActionUpdate
	ActionNoOp
	ActionDestroy
	ActionReplace
	// ActionRefresh records what a --refresh-only read found (see
	// refresh_only.go); it changes no object.
	ActionRefresh
	// ActionForget removes a record and leaves its object alone: a
	// removed block with destroy = false (see removed.go).
	ActionForget
	// ActionImport records an object an import block adopts, which the
	// configuration then needs unchanged (see import_blocks.go).
	ActionImport
	// ActionMove is a moved block's move of a record, the graph's move
	// operation (see moved.go); a plan's change carries it as Move.
	ActionMove
)

var actionNames = [...]string{"invalid", "create", "update", "no-op", "destroy", "replace", "refresh", "forget", "import", "move"}

func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// MarshalText renders the action by name.
func (a Action) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText parses an action name.
func (a *Action) UnmarshalText(b []byte) error {
	for i, n := range actionNames {
		if n == string(b) && i > 0 {
			*a = Action(i)
			return nil
		}
	}
	return fmt.Errorf("unknown action %q", b)
}

// Change is the plan for one resource.
type Change struct {
	Address source.Address
	Action  Action
	// Resource is the desired resource: nil for a destroy. For a pending
	// change its unknown inputs are [source.Unknown].
	Resource *source.Resource
	// Prior is the recorded entry, for update, no-op and destroy.
	Prior *statedoc.Recorded
	// Pending means the inputs are known only after WaitsOn are applied.
	Pending bool
	WaitsOn []string
	// StateHandler marks the resources that hold state: they run before
	// planning, to read it, and are not counted as changes.
	StateHandler bool
	// Structural marks a composite whose members are known only after
	// WaitsOn are applied; it is not a resource and is not counted.
	Structural bool
	// Note explains something the user should know (e.g. "stateless, runs
	// every apply", that the provider cannot destroy, or which attributes
	// force a replacement).
	Note string
	// Deposed is set on the destroy of a deposed object: its key. Prior is
	// then the deposed object.
	Deposed string
	// OfReplace marks the destroy of the object a create-before-destroy
	// replacement deposes: the second half of that replace, not counted
	// on its own.
	OfReplace bool
	// CreateBeforeDestroy marks a replace that creates the new object
	// first and deposes the old one under DeposeKey; the change with
	// Deposed == DeposeKey destroys it.
	CreateBeforeDestroy bool
	DeposeKey           string
	// SensitiveInputs are input paths whose values the plan must not show,
	// in the Terraform bridge's dotted form ("metadata.api_key", "*" for
	// any element): from the provider's schema for a Terraform resource
	// that changes (see tfcheck.go). Recorded sensitive paths of the prior
	// object apply too; see [Change.RedactDiffs].
	SensitiveInputs []string
	// Planned are the outputs the provider plans for a create or update,
	// from its preview (see preview.go): [source.Unknown] where known only
	// after apply, nil when it was not asked or could not tell.
	Planned map[string]any
	// Refreshed is, for an [ActionRefresh], what the read found.
	Refreshed *Drift
	// Import is set when an import block adopts the object first: the
	// whole change for an [ActionImport], and before the update or
	// replace otherwise. Prior is then the object as imported.
	Import *ImportSpec
	// Move is set when a moved block moves the record here first: Prior
	// is then the record at its new address.
	Move *MoveSpec
}

// Addr names the change: the address, and for a deposed object its key.
func (c *Change) Addr() string {
	if c.Deposed != "" {
		return c.Address.String() + DeposedSuffix(c.Deposed)
	}
	return c.Address.String()
}

func DeposedSuffix(key string) string { return " (deposed " + key + ")" }

// Provider is the name of the provider that carries out the change.
func (c *Change) Provider() string {
	if c.Resource != nil {
		return c.Resource.Provider
	}
	if c.Prior != nil {
		return c.Prior.Entry.Provider
	}
	return ""
}

// Stateful reports whether the change is recorded in state.
func (c *Change) Stateful() bool {
	if c.Resource != nil {
		return c.Resource.Stateful()
	}
	return c.Prior != nil
}

// Plan is what an apply will do: the changes per resource, the states they
// were planned against, and the deployment's outputs.
type Plan struct {
	Changes []*Change
	// States are the states read while planning, by handler address.
	States map[string]*statedoc.View
	// Snapshot is the source's last answer during planning.
	Snapshot *source.Snapshot
	// Known are the outputs known at plan time: recorded outputs of
	// unchanged resources and the state handlers' outputs.
	Known source.Outputs
	// Destroy means the plan destroys everything in state (pier destroy).
	Destroy bool
	// Warnings are problems found while planning that do not stop it.
	Warnings []string
	// Targets are the --target addresses the plan is limited to; empty
	// means the whole deployment.
	Targets []string
	// Drift is what a refresh found changed or gone; see refresh.go.
	Drift []*Drift
	// RefreshOnly marks a --refresh-only plan: its changes only record
	// Drift; see refresh_only.go.
	RefreshOnly bool

	byAddr map[string]*Change
	// replace are the addresses --replace names, for resources decided
	// during apply too.
	replace map[string]bool
	// handlers are the state handlers as read while planning, by
	// address: apply records through them. They belong to the plan, not
	// the engine, so that a plan runs on any engine.
	handlers map[string]*HandlerRef
	// exec is the execution graph, built once the plan is complete.
	exec *execgraph.Graph
	// madeBy is the engine that planned: its state handlers are running,
	// and applying there reads no state again.
	madeBy *Engine
}

// Summary counts the changes by action. Its JSON keys are snake_case,
// as every other key of pier's --json output.
type Summary struct {
	Create  int `json:"create"`
	Update  int `json:"update"`
	Destroy int `json:"destroy"`
	Replace int `json:"replace"`
	NoOp    int `json:"no_op"`
	// Forget counts the records a removed block lets go of.
	Forget int `json:"forget,omitempty"`
	// Import counts the objects import blocks adopt, whatever else their
	// change does.
	Import int `json:"import,omitempty"`
	// Move counts the records moved blocks move, whatever else their
	// change does.
	Move int `json:"move,omitempty"`
}

// Summary counts the plan's changes; state handlers are not counted.
func (p *Plan) Summary() Summary {
	var s Summary
	for _, c := range p.Changes {
		if c.StateHandler || c.Structural || c.OfReplace {
			continue
		}
		switch c.Action {
		case ActionCreate:
			s.Create++
		case ActionUpdate:
			s.Update++
		case ActionDestroy:
			s.Destroy++
		case ActionReplace:
			s.Replace++
		case ActionNoOp:
			s.NoOp++
		case ActionForget:
			s.Forget++
		}
		if c.Import != nil {
			s.Import++
		}
		if c.Move != nil {
			s.Move++
		}
	}
	return s
}

// HasChanges reports whether applying the plan would do anything beyond
// running state handlers and stateless resources.
func (p *Plan) HasChanges() bool {
	s := p.Summary()
	return s.Create+s.Update+s.Destroy+s.Replace+s.Forget+s.Import+s.Move > 0 || p.RefreshOnly && len(p.Drift) > 0
}

func (p *Plan) add(c *Change) {
	if p.byAddr == nil {
		p.byAddr = map[string]*Change{}
	}
	p.Changes = append(p.Changes, c)
	p.byAddr[c.Addr()] = c
}

// Change returns the change of one address, or nil.
func (p *Plan) Change(addr string) *Change { return p.byAddr[addr] }

func (p *Plan) sort() {
	// Each address spelt once, not at every comparison.
	type keyed struct {
		key string
		c   *Change
	}
	ks := make([]keyed, len(p.Changes))
	for i, c := range p.Changes {
		ks[i] = keyed{c.Addr(), c}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return source.CompareAddresses(a.key, b.key) })
	for i, k := range ks {
		p.Changes[i] = k.c
	}
}

// planner builds a plan; it runs on one goroutine.
type planner struct {
	e    *Engine
	plan *Plan
	// recorded are all entries across the states, by address.
	recorded map[string]*statedoc.Recorded
	// duplicate is the first resource found recorded in two states:
	// planning refuses it, while the state commands must still work, to
	// let pier state forget resolve it.
	duplicate error
	// replace are the addresses --replace names.
	replace map[string]bool
	// imports are the import blocks planned, by address.
	imports map[string]*ImportSpec
	// moves are the moved blocks' moves, by new address.
	moves map[string]*MoveSpec
}

// PlanOptions steer a plan, as Terraform's -replace and -target do.
type PlanOptions struct {
	// Replace are addresses to replace although they are unchanged.
	Replace []string `json:"replace,omitempty"`
	// Targets limit the plan to these addresses (an address also names
	// the instances and members below it) and what they depend on.
	Targets []string `json:"targets,omitempty"`
	// Refresh reads the recorded objects first (all, or those under
	// RefreshTargets) and plans against them; see refresh.go.
	Refresh        bool     `json:"refresh,omitempty"`
	RefreshTargets []string `json:"refreshTargets,omitempty"`
	// RefreshOnly reads as Refresh does (all, or RefreshTargets) and
	// plans nothing but recording what the reads found, as Terraform's
	// -refresh-only; see refresh_only.go.
	RefreshOnly bool `json:"refreshOnly,omitempty"`
	// NoRefresh reads nothing, whatever a block or provider's
	// refresh = true says (--refresh=false, as Terraform's
	// -refresh=false).
	NoRefresh bool `json:"noRefresh,omitempty"`
}

// Plan resolves the deployment against its recorded state. It starts the
// state handlers' providers (to read state) and no other provider.
func (e *Engine) Plan(ctx context.Context) (*Plan, error) {
	return e.PlanWith(ctx, PlanOptions{})
}

// PlanWith plans with options.
func (e *Engine) PlanWith(ctx context.Context, o PlanOptions) (*Plan, error) {
	return e.plan(ctx, false, o)
}

// PlanDestroy plans the destruction of everything the deployment's states
// hold.
func (e *Engine) PlanDestroy(ctx context.Context) (*Plan, error) {
	return e.plan(ctx, true, PlanOptions{})
}

func (e *Engine) plan(ctx context.Context, destroyAll bool, o PlanOptions) (*Plan, error) {
	pl := &planner{e: e, plan: &Plan{States: map[string]*statedoc.View{}, Known: source.Outputs{}, Destroy: destroyAll, Targets: o.Targets, replace: map[string]bool{}, handlers: map[string]*HandlerRef{}, madeBy: e}, recorded: map[string]*statedoc.Recorded{}}
	for _, a := range o.Replace {
		pl.plan.replace[a] = true
	}
	pl.replace = pl.plan.replace
	e.prestartHandlers(ctx)
	snap, err := e.Snapshot(ctx, pl.plan.Known)
	if err != nil {
		return nil, err
	}
	if err := pl.readStates(ctx, snap); err != nil {
		return nil, err
	}
	if pl.duplicate != nil {
		return nil, pl.duplicate
	}
	if !destroyAll {
		if err := pl.moveBlocks(snap); err != nil {
			return nil, err
		}
	}
	pl.adoptProviders(snap)
	// A destroy reads nothing: an object a read found gone would be
	// left recorded instead of destroyed.
	if !destroyAll {
		if err := pl.refresh(ctx, snap, o); err != nil {
			return nil, err
		}
	}
	if o.RefreshOnly && !destroyAll {
		return pl.planRefreshOnly(ctx)
	}
	pl.imports = map[string]*ImportSpec{}
	if !destroyAll {
		if err := pl.importBlocks(ctx, snap); err != nil {
			return nil, err
		}
	}
	if destroyAll {
		pl.plan.Snapshot = snap
		pl.planDestroyAll()
		if err := pl.finish(snap); err != nil {
			return nil, err
		}
		return pl.plan, nil
	}
	snap, err = pl.settle(ctx, snap)
	if err != nil {
		return nil, err
	}
	if snap, err = pl.markSchemaSensitive(ctx, snap); err != nil {
		return nil, err
	}
	pl.plan.Snapshot = snap
	if err := pl.classify(snap); err != nil {
		return nil, err
	}
	pl.markImports()
	pl.markMoves()
	pl.noteDrift()
	// Before any provider is asked about a change: a precondition says
	// what the provider would otherwise fail on less clearly.
	if err := pl.checkConditions(); err != nil {
		return nil, err
	}
	if err := e.checkExecutables(pl.plan); err != nil {
		return nil, err
	}
	if err := e.checkTerraformInputs(ctx, pl.plan); err != nil {
		return nil, err
	}
	// After the input check: an input a provider does not know is better
	// reported with its position than as a failed preview.
	if err := e.previewChanges(ctx, pl.plan); err != nil {
		return nil, err
	}
	if err := pl.finish(snap); err != nil {
		return nil, err
	}
	pl.plan.Warnings = append(pl.plan.Warnings, CheckWarnings(snap)...)
	return pl.plan, nil
}

// stateHandlers returns the addresses of the state handlers in snap: those
// the resources refer to, and resources of the built-in state types. The
// latter matter when nothing refers to a state any more (its last
// resource was removed): its entries must still be read to be destroyed.
func (e *Engine) stateHandlers(snap *source.Snapshot) map[string]bool {
	out := map[string]bool{}
	for _, r := range snap.Ready {
		if r.State != nil {
			out[r.State.String()] = true
		}
		if d := snap.Providers[r.Provider]; d != nil && d.Builtin != "" && e.cfg.Builtins[d.Builtin].IsStateType(r.Type) && !r.Stateful() {
			out[r.Address.String()] = true
		}
	}
	for _, b := range snap.Blocked {
		if b.Resource != nil && b.Resource.State != nil {
			out[b.Resource.State.String()] = true
		}
	}
	return out
}

// readStates runs every state handler (a stateless create, as in NixOps4)
// and reads the state it holds.
func (pl *planner) readStates(ctx context.Context, snap *source.Snapshot) error {
	ready := map[string]*source.Resource{}
	for _, r := range snap.Ready {
		ready[r.Address.String()] = r
	}
	for _, h := range slices.Sorted(maps.Keys(pl.e.stateHandlers(snap))) {
		r := ready[h]
		if r == nil {
			return pl.e.handlerNotReady(h, snap)
		}
		if r.Stateful() {
			return fmt.Errorf("%s (%s): a state handler cannot itself be stateful: its state would have to be read before it could be read", h, r.Range)
		}
		ref, err := pl.e.ReadState(ctx, r)
		if err != nil {
			return err
		}
		view, outputs := ref.View, ref.Outputs
		pl.plan.handlers[h] = ref
		pl.plan.States[h] = view
		pl.plan.Known[h] = outputs
		pl.plan.add(&Change{Address: r.Address, Action: ActionCreate, Resource: r, StateHandler: true, Note: "state handler, read before planning"})
		for addr, rec := range view.Entries {
			if other, dup := pl.recorded[addr]; dup {
				if pl.duplicate == nil {
					pl.duplicate = fmt.Errorf("resource %s is recorded in two states, %s and %s; remove it from one with: pier state forget --state %s %s", addr, other.Handler, h, h, addr)
				}
				continue
			}
			pl.recorded[addr] = rec
		}
	}
	return nil
}

// adoptProviders gives an entry recorded without a provider (NixOps4
// writes none) the provider of the block that declares its address, so
// that a destroy, replace or update goes through it. The entry is written
// with it the next time pier records the resource.
func (pl *planner) adoptProviders(snap *source.Snapshot) {
	for _, r := range snap.Ready {
		if rec := pl.recorded[r.Address.String()]; rec != nil {
			pl.recorded[r.Address.String()] = adopted(r, rec)
		}
	}
	for _, b := range snap.Blocked {
		if rec := pl.recorded[b.Address.String()]; rec != nil && b.Resource != nil {
			pl.recorded[b.Address.String()] = adopted(b.Resource, rec)
		}
	}
}

// adopted is rec, with r's provider if it was recorded without one.
func adopted(r *source.Resource, rec *statedoc.Recorded) *statedoc.Recorded {
	if rec.Entry.Provider != "" {
		return rec
	}
	// A copy: the state view's entries stay as read.
	own := *rec
	own.Entry.Provider = r.Provider
	return &own
}

func (e *Engine) handlerNotReady(h string, snap *source.Snapshot) error {
	// The position of a resource that names h, so that the user can find
	// the reference.
	var user *source.Resource
	for _, r := range snap.Ready {
		if r.State != nil && r.State.String() == h {
			user = r
			break
		}
	}
	for _, b := range snap.Blocked {
		if user == nil && b.Resource != nil && b.Resource.State != nil && b.Resource.State.String() == h {
			user = b.Resource
		}
	}
	for _, b := range snap.Blocked {
		if b.Address.String() == h {
			var waits []string
			for _, w := range b.WaitsOn {
				waits = append(waits, w.String())
			}
			at := ""
			if b.Resource != nil && b.Resource.Range.Filename != "" {
				at = b.Resource.Range.String() + ": "
			}
			return fmt.Errorf("%sstate handler %s depends on outputs of %s: a state handler's inputs must be known before apply, because state is read first", at, h, strings.Join(waits, ", "))
		}
	}
	if user != nil {
		return fmt.Errorf("%s: %s names state handler %s, which is not a resource of the deployment", user.Range, user.Address, h)
	}
	return fmt.Errorf("state handler %s is not a resource of the deployment", h)
}

// ReadState creates a state handler resource and reads its state.
func (e *Engine) ReadState(ctx context.Context, r *source.Resource) (*HandlerRef, error) {
	addr := r.Address.String()
	resp, err := e.providers.callHandler(ctx, r.Provider, addr, &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
		Type: r.Type, InputProperties: r.Inputs, IsStateful: false,
	}})
	if err != nil {
		return nil, fmt.Errorf("state handler %s (provider %s): %w", addr, r.Provider, err)
	}
	outputs := resp.CreateResourceResponse.OutputProperties
	read, size, err := e.providers.callHandlerSized(ctx, r.Provider, addr, &schema.Request{StateResourceReadRequest: &schema.StateResourceReadRequest{
		Resource: schema.ExtantResource{Type: r.Type, InputProperties: r.Inputs, OutputProperties: outputs},
	}})
	if err != nil {
		return nil, fmt.Errorf("read state from %s (provider %s): %w", addr, r.Provider, err)
	}
	view, err := statedoc.Decode(addr, read.StateResourceReadResponse.State)
	if err != nil {
		return nil, fmt.Errorf("%w (read through provider %s)", err, r.Provider)
	}
	view.SetSize(int64(size))
	return &HandlerRef{Resource: r, Outputs: outputs, View: view}, nil
}

// settle feeds the recorded outputs of unchanged resources back into the
// source until no more resources turn out unchanged: a resource whose
// inputs equal its recorded inputs keeps its recorded outputs, which may in
// turn make its dependents' inputs known and equal.
func (pl *planner) settle(ctx context.Context, snap *source.Snapshot) (*source.Snapshot, error) {
	snap, err := pl.speculate(ctx, snap)
	if err != nil {
		return nil, err
	}
	// Keyed by resource, not address: a source returns the same resource
	// for an instance it did not re-evaluate, and spelling every address
	// in every round is what a deep chain costs.
	seen := map[*source.Resource]bool{}
	for {
		added := false
		for _, r := range snap.Ready {
			if seen[r] {
				continue
			}
			seen[r] = true
			addr := r.Address.String()
			if _, known := pl.plan.Known[addr]; !known && pl.unchanged(r, addr) {
				pl.plan.Known[addr] = recordedOutputs(pl.recorded[addr])
				added = true
			}
		}
		// Resolve again even when nothing is blocked: the deployment's
		// outputs may refer to the resources just found unchanged.
		if !added {
			return snap, nil
		}
		next, err := pl.e.Snapshot(ctx, pl.plan.Known)
		if err != nil {
			return nil, err
		}
		snap = next
	}
}

// unchanged reports whether r, at addr, keeps its recorded outputs: it is
// recorded, stateful, of the recorded type (a changed type is replaced,
// with new outputs), not to be replaced, and its inputs are the recorded
// ones.
func (pl *planner) unchanged(r *source.Resource, addr string) bool {
	rec := pl.recorded[addr]
	return rec != nil && r.Stateful() && rec.Entry.Type == r.Type && !pl.replace[addr] && SameInputs(keptInputs(r, rec), rec.Entry.InputProperties)
}

func recordedOutputs(rec *statedoc.Recorded) map[string]any {
	if rec.Entry.OutputProperties == nil {
		return map[string]any{}
	}
	return rec.Entry.OutputProperties
}

// speculate settles a mostly unchanged deployment in a few resolves: it
// gives every recorded resource its recorded outputs at once, then
// withdraws them from each resource that turns out not unchanged and from
// everything that depends on one, and resolves again, until every
// resource that keeps its recorded outputs is unchanged. settle's rounds
// alone make one resolve per level of references, each evaluating the
// whole deployment, so a chain of n unchanged resources cost n². The
// result is the same: references are acyclic, so whether a resource is
// unchanged follows from its dependencies' being so, and what is left
// known here is what settle's rounds would have found; they then add back
// what was withdrawn only for depending on a changed resource. A resolve
// that fails with the recorded outputs (a changed resource's dependent
// reading an output it no longer has) leaves settle's rounds to find what
// is unchanged, and to report the errors that remain.
func (pl *planner) speculate(ctx context.Context, snap *source.Snapshot) (*source.Snapshot, error) {
	guessed := map[string]bool{}
	for addr, rec := range pl.recorded {
		if _, known := pl.plan.Known[addr]; !known {
			pl.plan.Known[addr] = recordedOutputs(rec)
			guessed[addr] = true
		}
	}
	if len(guessed) == 0 {
		return snap, nil
	}
	// A resource the source did not evaluate again keeps its pointer and
	// was found unchanged already.
	right := map[*source.Resource]bool{}
	for {
		next, err := pl.e.Snapshot(ctx, pl.plan.Known)
		if err != nil {
			for addr := range guessed {
				delete(pl.plan.Known, addr)
			}
			return pl.e.Snapshot(ctx, pl.plan.Known)
		}
		wrong := maps.Clone(guessed)
		for _, r := range next.Ready {
			if right[r] {
				delete(wrong, r.Address.String())
				continue
			}
			if addr := r.Address.String(); guessed[addr] && pl.unchanged(r, addr) {
				right[r] = true
				delete(wrong, addr)
			}
		}
		if len(wrong) == 0 {
			return next, nil
		}
		// Withdraw the wrong guesses and those of everything that read
		// them. Resolve again only when one of them is in the deployment:
		// the record of a removed resource is read by nothing.
		present := map[string]bool{}
		readers := map[string][]*source.Resource{}
		for _, r := range next.Ready {
			present[r.Address.String()] = true
			for _, d := range r.DependsOn {
				readers[d.String()] = append(readers[d.String()], r)
			}
		}
		for _, b := range next.Blocked {
			present[b.Address.String()] = true
		}
		again := false
		queue := slices.Collect(maps.Keys(wrong))
		for len(queue) > 0 {
			addr := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			delete(pl.plan.Known, addr)
			delete(guessed, addr)
			again = again || present[addr]
			for _, r := range readers[addr] {
				if a := r.Address.String(); guessed[a] && !wrong[a] {
					wrong[a] = true
					delete(right, r)
					queue = append(queue, a)
				}
			}
		}
		if !again {
			return next, nil
		}
	}
}

// classify decides each resource's action.
func (pl *planner) classify(snap *source.Snapshot) error {
	present := map[string]bool{}
	for _, r := range snap.Ready {
		addr := r.Address.String()
		present[addr] = true
		if pl.plan.Change(addr) != nil { // a state handler, already planned
			continue
		}
		if err := pl.e.checkResource(r, pl.plan.States); err != nil {
			return err
		}
		pl.plan.add(pl.changeFor(r, pl.recorded[addr]))
	}
	for _, b := range snap.Blocked {
		addr := b.Address.String()
		present[addr] = true
		var waits []string
		for _, w := range b.WaitsOn {
			waits = append(waits, w.String())
		}
		c := &Change{Address: b.Address, Action: ActionCreate, Resource: b.Resource, Pending: true, WaitsOn: waits}
		if b.Resource != nil {
			c.SensitiveInputs = b.Resource.SensitiveInputs
		}
		if b.Structural {
			c.Structural = true
			c.Note = "members known after " + strings.Join(waits, ", ") + " is applied"
		}
		if b.Resource != nil {
			if err := pl.e.checkResource(b.Resource, pl.plan.States); err != nil {
				return err
			}
			if rec := pl.recorded[addr]; rec != nil && b.Resource.Stateful() {
				c.Action, c.Prior = ActionUpdate, rec
				if rec.Entry.Type != b.Resource.Type {
					c.Action = ActionReplace
				}
			} else if !b.Resource.Stateful() {
				c.Note = "stateless, runs every apply"
			}
		}
		pl.plan.add(c)
	}
	if !snap.Complete() {
		// Resources recorded under a composite whose members are not known
		// yet are decided during apply, once they are.
		pl.plan.Warnings = append(pl.plan.Warnings, "some members are known only during apply; resources removed from them are destroyed then")
	}
	// Only the recorded resources gone from the deployment are sorted:
	// sorting every recorded address would cost what the state costs.
	var gone []string
	for addr := range pl.recorded {
		if !present[addr] {
			gone = append(gone, addr)
		}
	}
	sort.Strings(gone)
	for _, addr := range gone {
		if UnderStructural(pl.recorded[addr].Address, snap) {
			continue
		}
		pl.plan.add(pl.e.orphanChange(pl.recorded[addr], snap))
	}
	return nil
}

func (pl *planner) planDestroyAll() {
	for _, addr := range slices.Sorted(maps.Keys(pl.recorded)) {
		pl.plan.add(pl.e.orphanChange(pl.recorded[addr], pl.plan.Snapshot))
	}
}

func UnderStructural(a source.Address, snap *source.Snapshot) bool {
	for _, b := range snap.Blocked {
		if b.Structural && a.HasPrefix(b.Address) {
			return true
		}
	}
	return false
}

// changeFor classifies a resource whose inputs are known, with its
// lifecycle's ignore_changes applied and --replace honoured.
func (pl *planner) changeFor(r *source.Resource, rec *statedoc.Recorded) *Change {
	return Decide(r, rec, pl.replace[r.Address.String()])
}

// Decide classifies a resource whose inputs are known, with its
// lifecycle's ignore_changes applied; replace forces a replacement.
func Decide(r *source.Resource, rec *statedoc.Recorded, replace bool) *Change {
	if rec != nil {
		rec = adopted(r, rec)
	}
	if rec != nil && r.Stateful() {
		r = withKeptInputs(r, rec)
	}
	c := changeFor(r, rec)
	if replace && rec != nil && r.Stateful() && (c.Action == ActionNoOp || c.Action == ActionUpdate) {
		c.Action, c.Note = ActionReplace, "replacement requested with --replace"
	}
	return c
}

// changeFor classifies a resource whose inputs are known.
func changeFor(r *source.Resource, rec *statedoc.Recorded) *Change {
	c := &Change{Address: r.Address, Resource: r, SensitiveInputs: r.SensitiveInputs}
	switch {
	case !r.Stateful():
		c.Action, c.Note = ActionCreate, "stateless, runs every apply"
	case rec == nil:
		c.Action = ActionCreate
	case rec.Entry.Type != r.Type:
		// A provider updates an object of one type; another type is
		// another object.
		c.Action, c.Prior = ActionReplace, rec
	case SameInputs(r.Inputs, rec.Entry.InputProperties) && !MovesState(r, rec):
		c.Action, c.Prior = ActionNoOp, rec
	default:
		c.Action, c.Prior = ActionUpdate, rec
	}
	switch {
	case rec != nil && rec.Entry.Type != r.Type:
		c.Note = fmt.Sprintf("type changed from %s to %s: destroyed, then created", rec.Entry.Type, r.Type)
	case rec != nil && MovesState(r, rec):
		c.Note = fmt.Sprintf("moves from state %s to %s", rec.Handler, r.State)
	}
	return c
}

// MovesState reports whether a stateful resource now names another state
// handler than the one that records it: the entry must move.
func MovesState(r *source.Resource, rec *statedoc.Recorded) bool {
	return r.State != nil && r.State.String() != rec.Handler
}

func (e *Engine) DestroyChange(rec *statedoc.Recorded) *Change {
	c := &Change{Address: rec.Address, Action: ActionDestroy, Prior: rec}
	if !e.providers.Declared(rec.Entry.Provider) {
		c.Note = "apply will fail for this resource: " + OrphanAdvice(rec.Entry.Provider, rec.Address)
	} else if !e.providers.Supports(rec.Entry.Provider, schema.OperationDestroy) {
		c.Note = fmt.Sprintf("provider %q does not declare the destroy operation; apply will fail for this resource: remove the real object yourself, then run: pier state forget %s", rec.Entry.Provider, rec.Address)
	}
	return c
}

// checkResource checks what the source could not: the state handler a
// resource names must be a resource that holds state.
func (e *Engine) checkResource(r *source.Resource, states map[string]*statedoc.View) error {
	if r.State == nil {
		return nil
	}
	if _, ok := states[r.State.String()]; !ok {
		return fmt.Errorf("%s (%s): state handler %s was not read", r.Address, r.Range, r.State)
	}
	return nil
}

// SameInputs compares JSON inputs as values, so that 1 and 1.0, or a
// json.Number and a float64 of the same value, are equal, and
// 9007199254740993 and 9007199254740992 are not.
func SameInputs(a, b map[string]any) bool {
	return equalJSON(a, b)
}
