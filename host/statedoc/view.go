package statedoc

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/schema"
)

// View is the state one state handler holds, decoded for planning.
type View struct {
	// Handler is the address of the state handler resource.
	Handler string
	// Entries by address string.
	Entries map[string]*Recorded
	// Outputs are the deployment outputs recorded in this state.
	Outputs map[string]RecordedOutput
	// Pending are the operations an interrupted run left unfinished, by
	// address string; see pending.go.
	Pending map[string]*PendingOperation
	// HeldBy is the live command that holds the state's lock, when the
	// handler read it without locking and another holds it: Pending are
	// then that command's work in progress.
	HeldBy *LockHolder
	// Document is the state document as read, unredacted.
	Document map[string]any
	hash     string
	// size is the length in bytes of the state as read (its read
	// response line); 0 when the document did not come from a read.
	size int64
	// paths are the JSON Pointers of the objects that exist under
	// deployments, so that a patch can create missing parents.
	paths map[string]bool
	// missing are the pointers of the resources and deployments members
	// that levels of the document lack, for the next write to add.
	missing []string
}

// RecordedOutput is a deployment output as kept in state. Sensitive values
// are not kept: the protocol lets pier keep this secret out of state.
type RecordedOutput struct {
	Value     any  `json:"value,omitempty"`
	Sensitive bool `json:"sensitive,omitempty"`
}

// outputsKey is pier's own top-level key in the state document for
// deployment outputs.
const outputsKey = "pierOutputs"

// Decode reads a state document as returned by stateResourceRead.
// It decodes the entries straight from the document: the read response was
// validated against the protocol schema already, and this runs on every
// plan, so it must cost one pass over the state and no re-encoding.
func Decode(handler string, doc map[string]any) (*View, error) {
	// A structure that is not a state's (/resources replaced by 5, an
	// entry without a type) must fail, never read as "no resources": the
	// plan would create everything again. The check and the walk below
	// only read the document, so they run side by side: on a state of
	// thousands of resources each is a noticeable part of every plan, and
	// the other core is idle while the plan waits for them.
	held := takeLockHolder(doc)
	checked := make(chan error, 1)
	go func() {
		_, err := schema.CheckState(doc)
		checked <- err
	}()
	v, err := walkState(handler, doc)
	if cerr := <-checked; cerr != nil {
		return nil, fmt.Errorf("state held by %s: %w", handler, cerr)
	}
	if v != nil {
		v.HeldBy = held
	}
	return v, err
}

// walkState decodes a document that [schema.CheckState] accepts.
func walkState(handler string, doc map[string]any) (*View, error) {
	// Sized for the top level's resources, most states' all: grown one
	// by one, a map of 100k entries is copied a dozen times.
	top, _ := doc[schema.ResourcesKey].(map[string]any)
	v := &View{
		Handler:  handler,
		Entries:  make(map[string]*Recorded, len(top)),
		Outputs:  map[string]RecordedOutput{},
		Document: doc,
		paths:    map[string]bool{"": true},
	}
	if err := v.walk(doc, nil, ""); err != nil {
		return nil, fmt.Errorf("state held by %s: %w", handler, err)
	}
	if outs, ok := doc[outputsKey].(map[string]any); ok {
		v.paths["/"+outputsKey] = true
		for name, o := range outs {
			m, _ := o.(map[string]any)
			sensitive, _ := m["sensitive"].(bool)
			v.Outputs[name] = RecordedOutput{Value: m["value"], Sensitive: sensitive}
		}
	}
	v.decodePending(doc)
	return v, nil
}

// SetSize records that the state took n bytes as read (its read response
// line): a recorder refuses to grow it past [schema.MaxStateSize] from
// there.
func (v *View) SetSize(n int64) { v.size = n }

// ContentHash identifies the state document's content: a saved plan
// records it and refuses to apply once the state has moved. It is the
// protocol's only notion of position, since a state read returns a
// document, not a log offset. It is computed on demand because only saved
// plans need it.
func (v *View) ContentHash() string {
	if v.hash == "" {
		raw, err := json.Marshal(v.Document)
		if err != nil {
			return "unencodable: " + err.Error()
		}
		sum := sha256.Sum256(raw)
		v.hash = hex.EncodeToString(sum[:])
	}
	return v.hash
}

// walk collects the entries of one level (root or a deployment) and
// recurses into its deployments.
func (v *View) walk(level map[string]any, prefix source.Address, ptr string) error {
	v.paths[ptr] = true
	for _, member := range [...]string{schema.ResourcesKey, schema.DeploymentsKey} {
		if _, ok := level[member]; !ok {
			v.missing = append(v.missing, ptr+"/"+member)
		}
	}
	if res, ok := level[schema.ResourcesKey].(map[string]any); ok {
		v.paths[ptr+"/"+schema.ResourcesKey] = true
		// One allocation for the level's records and one for their
		// addresses, rather than two or three per entry: a state of
		// 100k resources read 300k small objects here on every plan.
		// Each address is capped at its length, so that appending to
		// one copies it rather than writing over the next.
		n := len(prefix) + 1
		recs := make([]Recorded, len(res))
		steps := make([]source.Step, len(res)*n)
		i := 0
		for key, raw := range res {
			step, canonical := parseStep(key)
			e, err := DecodeEntry(raw)
			if err != nil {
				return fmt.Errorf("resource %s: %w", key, err)
			}
			addr := source.Address(steps[i*n : (i+1)*n : (i+1)*n])
			copy(addr, prefix)
			addr[n-1] = step
			name := key
			if len(prefix) > 0 || !canonical {
				name = addr.String()
			}
			r := &recs[i]
			*r = Recorded{Address: addr, Handler: v.Handler, Entry: e}
			v.Entries[name] = r
			i++
		}
	}
	if deps, ok := level[schema.DeploymentsKey].(map[string]any); ok {
		v.paths[ptr+"/"+schema.DeploymentsKey] = true
		for key, raw := range deps {
			sub, ok := raw.(map[string]any)
			if !ok {
				return fmt.Errorf("deployment %s is not an object", key)
			}
			step, _ := parseStep(key)
			addr := append(append(source.Address{}, prefix...), step)
			if err := v.walk(sub, addr, ptr+"/deployments/"+schema.EscapePointerToken(key)); err != nil {
				return err
			}
		}
	}
	return nil
}

// parseStep reads a state key as one address step. canonical says that
// the step's address spelling is the key itself: a plain name, or a
// plain name and a decimal index as pier writes it (a[12]), which is how
// nearly every key reads, so that a state of many resources is read
// without going through [source.ParseAddress] and [source.Address.String]
// for each.
func parseStep(key string) (step source.Step, canonical bool) {
	if name, index, ok := plainIndexed(key); ok {
		if index < 0 {
			return source.Step{Name: name}, true
		}
		return source.Step{Name: name, Key: index}, true
	}
	if strings.HasPrefix(key, `"`) {
		// A name NixOps4 allows that starts with a quote: quoted in an
		// address, and kept whole here.
		return source.Step{Name: key}, false
	}
	a, err := source.ParseAddress(key)
	if err != nil || len(a) != 1 {
		// A name pier would not produce (e.g. containing a dot) is still a
		// valid state key; keep it whole.
		return source.Step{Name: key}, false
	}
	return a[0], false
}

// plainIndexed splits a key of the form NAME or NAME[INDEX], NAME of
// ASCII letters, digits, '_' and '-' not starting "module", INDEX
// decimal digits without a leading zero and short enough to fit an int;
// index is -1 for NAME alone. Such a key is one step that
// [source.ParseAddress] reads the same, and spelt back as the key.
func plainIndexed(key string) (name string, index int, ok bool) {
	i := 0
	for i < len(key) {
		c := key[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			i++
			continue
		}
		break
	}
	name = key[:i]
	if name == "" || strings.HasPrefix(name, "module") {
		return "", 0, false
	}
	if i == len(key) {
		return name, -1, true
	}
	digits, found := strings.CutSuffix(key[i:], "]")
	digits, bracket := strings.CutPrefix(digits, "[")
	if !found || !bracket || digits == "" || len(digits) > 18 || digits[0] == '0' && len(digits) > 1 {
		return "", 0, false
	}
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return "", 0, false
		}
		index = index*10 + int(c-'0')
	}
	return name, index, true
}
