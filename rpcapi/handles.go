package rpcapi

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// kind is what a handle names. Its String is generated: the names are
// the line comments, as error messages show them.
type kind int

//go:generate go tool stringer -type kind -linecomment

const (
	kindInvalid    kind = iota // invalid
	kindLocks                  // dependency locks
	kindDeployment             // deployment
	kindPlan                   // plan
	kindInspector              // inspector
)

// closer is an object that holds resources (provider processes) until
// closed.
type closer interface{ Close() error }

type entry struct {
	kind kind
	obj  any
	deps []int64 // handles this one depends on
}

// handles is the server's table of open objects. Handles start at 1 and
// are never reused, so a stale handle is an error, never another object.
type handles struct {
	mu    sync.Mutex
	next  int64
	table map[int64]*entry
}

func newHandles() *handles { return &handles{table: map[int64]*entry{}} }

// add registers obj, depending on deps, which must be open.
func (h *handles) add(k kind, obj any, deps ...int64) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.next++
	h.table[h.next] = &entry{kind: k, obj: obj, deps: slices.DeleteFunc(slices.Clone(deps), func(d int64) bool { return d == 0 })}
	return h.next
}

// get returns the object of a handle of kind k, or an RPC error.
func (h *handles) get(k kind, id int64) (any, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.table[id]
	if e == nil || e.kind != k {
		return nil, status.Errorf(codes.InvalidArgument, "no open %s handle %d", k, id)
	}
	return e.obj, nil
}

// dependents lists the open handles that depend on id.
func (h *handles) dependentsLocked(id int64) []string {
	var out []string
	for other, e := range h.table {
		if slices.Contains(e.deps, id) {
			out = append(out, fmt.Sprintf("%s handle %d", e.kind, other))
		}
	}
	slices.Sort(out)
	return out
}

// remove closes a handle of kind k. It fails, naming them, while other
// open handles depend on it.
func (h *handles) remove(k kind, id int64) (any, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.table[id]
	if e == nil || e.kind != k {
		return nil, status.Errorf(codes.InvalidArgument, "no open %s handle %d", k, id)
	}
	if deps := h.dependentsLocked(id); len(deps) > 0 {
		return nil, status.Errorf(codes.FailedPrecondition, "%s handle %d is still used by %s: close %s first",
			k, id, strings.Join(deps, ", "), pronoun(len(deps)))
	}
	delete(h.table, id)
	return e.obj, nil
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// closeAll closes every object, dependents before what they depend on,
// for shutdown. It returns the first error.
func (h *handles) closeAll() error {
	h.mu.Lock()
	ids := make([]int64, 0, len(h.table))
	for id := range h.table {
		ids = append(ids, id)
	}
	// A dependent is always opened after what it depends on, so closing
	// newest first closes dependents first.
	slices.Sort(ids)
	slices.Reverse(ids)
	var objs []any
	for _, id := range ids {
		objs = append(objs, h.table[id].obj)
		delete(h.table, id)
	}
	h.mu.Unlock()
	var first error
	for _, o := range objs {
		if c, ok := o.(closer); ok {
			if err := c.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// open counts open handles by kind, for tests.
func (h *handles) open() map[kind]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[kind]int{}
	for _, e := range h.table {
		out[e.kind]++
	}
	return out
}
