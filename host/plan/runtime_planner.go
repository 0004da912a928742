package plan

import (
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// RunTimePlanner is the planner's rules for what a plan leaves to run
// time, for apply (it is host/apply's Planner): the same decisions the
// planner makes, for resources known only during apply.
type RunTimePlanner struct{ e *engine.Engine }

// NewRunTimePlanner returns the rules apply decides by at run time.
func NewRunTimePlanner(e *engine.Engine) RunTimePlanner { return RunTimePlanner{e} }

// Decide is [Decide].
func (RunTimePlanner) Decide(r *source.Resource, rec *statedoc.Recorded, replace bool) *Change {
	return Decide(r, rec, replace)
}

// Destroy is [DestroyChange].
func (p RunTimePlanner) Destroy(rec *statedoc.Recorded) *Change { return DestroyChange(p.e, rec) }
