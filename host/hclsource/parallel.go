package hclsource

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/hcl/v2"
)

// evalBatch is how many instances of a block are evaluated before they
// are committed: enough to keep every core busy, few enough that their
// evaluated values, waiting to be committed, add little to the heap.
const evalBatch = 1024

// evalChunk is how many instances one goroutine takes at a time: fewer
// would spend more on handing them out than on evaluating them.
const evalChunk = 64

// evalInputsAll evaluates the inputs of insts, instances of r, into
// out[:len(insts)], on up to GOMAXPROCS goroutines. An instance's inputs
// depend only on what r reads, evaluated before, so the instances are
// independent: each result is the one a lone evaluation gives, and its
// place in out is fixed by its instance, whatever the goroutines' order.
// HCL allows concurrent evaluation with distinct EvalContexts, so each
// instance gets its own. inputs is what each instance evaluates: r's
// inputs, or what [resourceDecl.instanceInputs] made of them.
func evalInputsAll(r *resourceDecl, inputs hcl.Expression, insts []*instance, ctx *hcl.EvalContext, out []evaluatedInputs) {
	workers := min(runtime.GOMAXPROCS(0), (len(insts)+evalChunk-1)/evalChunk)
	// Assigned once, so the goroutines below capture its value, not a
	// variable moved to the heap for them.
	indexed := indexedInputs(r, inputs, len(insts))
	if workers <= 1 {
		sc := newEvalScratch(ctx, indexed)
		for i, inst := range insts {
			out[i] = evalInputs(r, inputs, inst, ctx, false, sc)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			sc := newEvalScratch(ctx, indexed)
			for {
				start := int(next.Add(evalChunk)) - evalChunk
				if start >= len(insts) {
					return
				}
				for i := start; i < min(start+evalChunk, len(insts)); i++ {
					out[i] = evalInputs(r, inputs, insts[i], ctx, true, sc)
				}
			}
		})
	}
	wg.Wait()
}

// indexedInputs is inputs rewritten to read count.index from the
// context (see countindex.go), for n instances of r, or nil.
func indexedInputs(r *resourceDecl, inputs hcl.Expression, n int) *countIndexed {
	if r.expand != expandCount || n < 2 {
		return nil
	}
	return indexCount(inputs)
}
