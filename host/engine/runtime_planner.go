package engine

import (
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// RunTimePlanner is the planner's rules for what a plan leaves to run
// time, for apply (it is host/apply's Planner): the same decisions the
// planner makes, for resources known only during apply.
type RunTimePlanner struct{ e *Engine }

// RunTimePlanner returns the rules apply decides by at run time.
func (e *Engine) RunTimePlanner() RunTimePlanner { return RunTimePlanner{e} }

// Decide is [Decide].
func (RunTimePlanner) Decide(r *source.Resource, rec *statedoc.Recorded, replace bool) *Change {
	return Decide(r, rec, replace)
}

// Destroy is [Engine.DestroyChange].
func (p RunTimePlanner) Destroy(rec *statedoc.Recorded) *Change { return p.e.DestroyChange(rec) }
