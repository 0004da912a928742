package apply

import (
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// Planner is what apply asks of planning: the decisions a plan leaves to
// run time, for the resources whose inputs or membership were known only
// during apply. Apply decides nothing else about a resource; it runs what
// the graph and these answers say. The caller passes it to [Run] and
// [RunGraph]: the planner's rules, as [plan.NewRunTimePlanner] gives
// them.
type Planner interface {
	// Decide is what a resource whose inputs are now known does, against
	// its recorded object (nil when there is none), with replace forcing
	// a replacement: a no-op, a create, an update or a replace. It is
	// called on the scheduling goroutine and on workers, several at once,
	// and keeps nothing between calls.
	Decide(r *source.Resource, prior *statedoc.Recorded, replace bool) *plan.Change
	// Destroy is the destroy of a recorded object that an expanded
	// composite no longer holds. It is called on the scheduling goroutine.
	Destroy(rec *statedoc.Recorded) *plan.Change
}

var _ Planner = plan.RunTimePlanner{}
