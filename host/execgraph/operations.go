package execgraph

import (
	"context"

	"github.com/pierhq/pier/host/source"
)

// Operations carries out a graph's operations: one method per opcode, each
// given its operands as typed values (see [Compile]). O is how the engine
// holds a recorded object, a prior or a deposed one: the graph carries it
// and never looks inside.
//
// The engine's applier implements it. ReadState is called first, for every
// state handler, before anything changes; the others are called once the
// operations they depend on have finished, on worker goroutines, several at
// once, except Expand and DestroyAbsent, which call no provider and run on
// the scheduling goroutine. An implementation keeps nothing between calls
// that a later call needs: what one operation yields to another is its
// return value.
type Operations[O comparable] interface {
	// ReadState starts a state handler and reads its state, refusing one
	// whose content no longer has the hash the plan was made against.
	ReadState(ctx context.Context, op ReadState[O]) error
	// Create creates a resource, or the replacement of one a Destroy
	// removed, and records it; it returns its outputs.
	Create(ctx context.Context, op Create[O]) (map[string]any, error)
	// Update updates a resource in place, or only moves its record, and
	// records it.
	Update(ctx context.Context, op Update[O]) (map[string]any, error)
	// Destroy destroys a recorded object, or the one a replace removes
	// first, and records that it is gone.
	Destroy(ctx context.Context, op Destroy[O]) error
	// CreateDepose creates a create_before_destroy replacement and records
	// it as current with the old object deposed, in one event.
	CreateDepose(ctx context.Context, op CreateDepose[O]) (map[string]any, error)
	// DestroyDeposed destroys a deposed object and records that it is gone.
	DestroyDeposed(ctx context.Context, op DestroyDeposed[O]) error
	// Resolve carries out a resource whose inputs were known only during
	// apply, once they are: op.Desired is then the resource as resolved.
	Resolve(ctx context.Context, op Resolve[O]) (map[string]any, error)
	// Expand ends a composite whose members were known only during apply,
	// once they are (they run as operations of their own).
	Expand(ctx context.Context, op Expand[O]) error
	// DestroyAbsent destroys what an expanded composite held before and no
	// longer holds, each by an operation of its own.
	DestroyAbsent(ctx context.Context, op DestroyAbsent[O]) error
	// Refresh records what a --refresh-only read found; it returns the
	// outputs as read.
	Refresh(ctx context.Context, op Refresh[O]) (map[string]any, error)
	// Forget removes a record and leaves its object alone.
	Forget(ctx context.Context, op Forget[O]) error
	// Import records an object an import block adopts; it returns the
	// object's outputs.
	Import(ctx context.Context, op Import[O]) (map[string]any, error)
	// Move moves a record to a new address, as a moved block says, calling
	// no provider; it returns the record's outputs.
	Move(ctx context.Context, op Move[O]) (map[string]any, error)
}

// Operation is one compiled operation: its opcode and typed operands,
// ready to be carried out by an [Operations].
type Operation[O comparable] interface {
	Opcode() Opcode
	// Run calls the method of ops for the opcode with the operands.
	Run(ctx context.Context, ops Operations[O]) (map[string]any, error)
}

// Controls are what steer the run-time decisions of a graph: the --replace
// and --target of the plan, and whether it destroys everything. A graph
// holds them as a constant named "controls".
type Controls struct {
	Destroy bool `json:"destroy,omitempty"`
	// RefreshOnly marks a --refresh-only plan: outputs not evaluated are
	// kept.
	RefreshOnly bool     `json:"refresh_only,omitempty"`
	Replace     []string `json:"replace,omitempty"`
	Targets     []string `json:"targets,omitempty"`
}

// ContentHash is a read-state's hash operand: the hash of the state the
// plan was made against, computed only when asked (when a graph is saved,
// or applied by an engine that did not plan it).
type ContentHash interface {
	ContentHash() string
}

// SavedHash is a content hash as a saved graph holds it.
type SavedHash string

// ContentHash returns the hash.
func (h SavedHash) ContentHash() string { return string(h) }

// The operands of each opcode. A state operand is the address of the state
// handler whose read-state the operation refers to, or "" for none (a
// stateless resource); a provider operand is nil when the graph has none.

// ReadState is [OpReadState]'s operands. Like every operand type it is
// generic in O only so that it runs through an Operations[O].
type ReadState[O comparable] struct {
	Handler  *source.Resource
	Provider *source.Provider
	Hash     ContentHash
}

// Create is [OpCreate]'s operands. Replaces is the object an earlier
// Destroy removed, when the create is a replace's second step.
type Create[O comparable] struct {
	Desired  *source.Resource
	Provider *source.Provider
	State    string
	Replaces O
}

// Update is [OpUpdate]'s operands: PriorState is the state the prior is
// recorded in, which differs from State when the record moves.
type Update[O comparable] struct {
	Desired    *source.Resource
	Prior      O
	Provider   *source.Provider
	State      string
	PriorState string
}

// Destroy is [OpDestroy]'s operands. Replacing is set when a Create
// replaces the object: the destroy is that replace's first step.
type Destroy[O comparable] struct {
	Prior     O
	Provider  *source.Provider
	State     string
	Replacing bool
}

// CreateDepose is [OpCreateDepose]'s operands.
type CreateDepose[O comparable] struct {
	Desired   *source.Resource
	Prior     O
	Provider  *source.Provider
	State     string
	DeposeKey string
}

// DestroyDeposed is [OpDestroyDeposed]'s operands.
type DestroyDeposed[O comparable] struct {
	Deposed  O
	Key      string
	Provider *source.Provider
	State    string
}

// Resolve is [OpResolve]'s operands: Address is the resource's, whose
// Desired may be nil while the source cannot yet say what it is. WaitsOn
// names the subjects of the operations it waits for.
type Resolve[O comparable] struct {
	Address  string
	Desired  *source.Resource
	Prior    O
	Provider *source.Provider
	State    string
	Controls Controls
	WaitsOn  []string
}

// Expand is [OpExpand]'s operands: Address is the composite's.
type Expand[O comparable] struct {
	Address  string
	Desired  *source.Resource
	Controls Controls
	WaitsOn  []string
}

// DestroyAbsent is [OpDestroyAbsent]'s operands: the composite its expand
// is of, and the objects it may no longer hold.
type DestroyAbsent[O comparable] struct {
	Composite string
	Priors    []O
}

// Refresh is [OpRefresh]'s operands: Now is the object as read, or the
// zero O when it is gone.
type Refresh[O comparable] struct {
	Prior O
	State string
	Now   O
}

// Forget is [OpForget]'s operands.
type Forget[O comparable] struct {
	Prior O
	State string
}

// Move is [OpMove]'s operands: Prior is the record at its old address,
// Desired the resource at the new one, State the state that holds it.
type Move[O comparable] struct {
	Desired *source.Resource
	Prior   O
	State   string
}

// Import is [OpImport]'s operands: Imported is the object as the plan's
// import read it.
type Import[O comparable] struct {
	Desired  *source.Resource
	Imported O
	State    string
	ID       string
}

func (ReadState[O]) Opcode() Opcode      { return OpReadState }
func (Create[O]) Opcode() Opcode         { return OpCreate }
func (Update[O]) Opcode() Opcode         { return OpUpdate }
func (Destroy[O]) Opcode() Opcode        { return OpDestroy }
func (CreateDepose[O]) Opcode() Opcode   { return OpCreateDepose }
func (DestroyDeposed[O]) Opcode() Opcode { return OpDestroyDeposed }
func (Resolve[O]) Opcode() Opcode        { return OpResolve }
func (Expand[O]) Opcode() Opcode         { return OpExpand }
func (DestroyAbsent[O]) Opcode() Opcode  { return OpDestroyAbsent }
func (Refresh[O]) Opcode() Opcode        { return OpRefresh }
func (Forget[O]) Opcode() Opcode         { return OpForget }
func (Import[O]) Opcode() Opcode         { return OpImport }
func (Move[O]) Opcode() Opcode           { return OpMove }

func (r ReadState[O]) Run(ctx context.Context, ops Operations[O]) (map[string]any, error) {
	return nil, ops.ReadState(ctx, r)
}

func (c Create[O]) Run(ctx context.Context, ops Operations[O]) (map[string]any, error) {
	return ops.Create(ctx, c)
}

func (u Update[O]) Run(ctx context.Context, ops Operations[O]) (map[string]any, error) {
	return ops.Update(ctx, u)
}

func (d Destroy[O]) Run(ctx context.Context, ops Operations[O]) (map[string]any, error) {
	return nil, ops.Destroy(ctx, d)
}

func (c CreateDepose[O]) Run(ctx context.Context, ops Operations[O]) (map[string]any, error) {
	return ops.CreateDepose(ctx, c)
}

func (d DestroyDeposed[O]) Run(ctx context.Context, ops Operations[O]) (map[string]any, error) {
	return nil, ops.DestroyDeposed(ctx, d)
}

func (r Resolve[O]) Run(ctx context.Context, ops Operations[O]) (map[string]any, error) {
	return ops.Resolve(ctx, r)
}

func (e Expand[O]) Run(ctx context.Context, ops Operations[O]) (map[string]any, error) {
	return nil, ops.Expand(ctx, e)
}

func (d DestroyAbsent[O]) Run(ctx context.Context, ops Operations[O]) (map[string]any, error) {
	return nil, ops.DestroyAbsent(ctx, d)
}

func (r Refresh[O]) Run(ctx context.Context, ops Operations[O]) (map[string]any, error) {
	return ops.Refresh(ctx, r)
}

func (f Forget[O]) Run(ctx context.Context, ops Operations[O]) (map[string]any, error) {
	return nil, ops.Forget(ctx, f)
}

func (i Import[O]) Run(ctx context.Context, ops Operations[O]) (map[string]any, error) {
	return ops.Import(ctx, i)
}

func (m Move[O]) Run(ctx context.Context, ops Operations[O]) (map[string]any, error) {
	return ops.Move(ctx, m)
}
