package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/filehash"
	"github.com/pierhq/pier/host/internal/proc"
	"github.com/pierhq/pier/host/source"
)

// ProviderCheck is what a saved plan keeps of a provider it will start,
// to refuse running against another: its declaration's fingerprint, and
// the content hash of its executable (the Terraform plugin for a bridged
// one; none for a built-in, which is pier itself).
type ProviderCheck struct {
	Fingerprint string `json:"fingerprint"`
	Executable  string `json:"executable,omitempty"`
	Hash        string `json:"hash,omitempty"`
}

// ProviderChecks returns the checks of the providers in a graph, by name.
func (e *Engine) ProviderChecks(g *execgraph.Graph) (map[string]ProviderCheck, error) {
	out := map[string]ProviderCheck{}
	for i := range g.Len() {
		el := g.Element(execgraph.Ref(i))
		if el.Kind != execgraph.KindProvider {
			continue
		}
		c, err := e.providerCheck(el.Value.(*source.Provider))
		if err != nil {
			return nil, err
		}
		out[el.Name] = c
	}
	return out, nil
}

// MovedProviders lists, with the reason, the providers of a graph that
// differ from the checks a saved plan made of them.
func (e *Engine) MovedProviders(g *execgraph.Graph, saved map[string]ProviderCheck) ([]string, error) {
	now, err := e.ProviderChecks(g)
	if err != nil {
		return nil, err
	}
	var moved []string
	names := make([]string, 0, len(now))
	for n := range now {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		was, ok := saved[n]
		switch {
		case !ok || was.Fingerprint != now[n].Fingerprint:
			moved = append(moved, fmt.Sprintf("provider %s: its declaration differs from the plan's", n))
		case was.Executable != now[n].Executable:
			moved = append(moved, fmt.Sprintf("provider %s: its executable is now %s, not %s", n, now[n].Executable, was.Executable))
		case was.Hash != now[n].Hash:
			moved = append(moved, fmt.Sprintf("provider %s: its executable %s has changed", n, now[n].Executable))
		}
	}
	return moved, nil
}

func (e *Engine) providerCheck(d *source.Provider) (ProviderCheck, error) {
	c := ProviderCheck{Fingerprint: ProviderFingerprint(d)}
	var exe string
	switch {
	case d.Builtin != "":
		return c, nil
	case d.Terraform != "":
		exe = d.Terraform
	default:
		exe = d.Executable
	}
	path, err := proc.Find(exe, e.cfg.Dir)
	if err != nil {
		// The plan checked it exists; a check that cannot hash it says
		// so, and apply refuses the plan.
		return ProviderCheck{Fingerprint: c.Fingerprint, Executable: exe, Hash: "missing: " + err.Error()}, nil
	}
	c.Executable = path
	// The same hash the lock check took: an executable unchanged since
	// it was hashed is not read again, and a changed one always is.
	if c.Hash, err = filehash.SHA256(path); err != nil {
		return c, fmt.Errorf("provider %s: hash executable: %w", d.Name, err)
	}
	return c, nil
}

// ProviderFingerprint hashes what decides how a provider runs. Its
// position and parallelism are left out: they do not change what the
// plan does.
func ProviderFingerprint(d *source.Provider) string {
	c := *d
	c.Range, c.Parallelism = source.Range{}, 0
	raw, err := json.Marshal(c)
	if err != nil {
		return "unencodable: " + err.Error()
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// intHeap is a min-heap of ints for container/heap.
