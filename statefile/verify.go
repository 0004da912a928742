package statefile

import (
	"fmt"

	"github.com/pierhq/pier/schema"
)

// Report is what [Verify] found in a state file.
type Report struct {
	Path      string    `json:"path"`
	Events    int       `json:"events"`
	LastIndex int64     `json:"lastIndex"`
	Resources int       `json:"resources"` // recorded resources, nested deployments' included
	Warnings  []Warning `json:"warnings"`
	Torn      *Torn     `json:"torn,omitempty"`
	Error     string    `json:"error,omitempty"`
}

// TornError reports a torn tail found by [Verify].
type TornError struct {
	Path string
	Torn Torn
}

func (e *TornError) Error() string {
	return fmt.Sprintf("%s: torn tail at line %d, byte %d (%d bytes): the last event was cut short, probably by a crash; opening the log for writing keeps a copy and cuts it off", e.Path, e.Torn.Line, e.Torn.Offset, e.Torn.Size)
}

// Verify checks a state file without locking or changing it: the format,
// index order and a full replay. Warnings (e.g. non-increasing indexes,
// which NixOps4's writer produces) do not make it fail. It returns an error
// for a malformed event, a patch that does not apply, a document that is
// not a state's structure ([*schema.StateError]), or a
// torn tail ([*TornError]); the report then says what was read before it.
func Verify(path string) (*Report, error) {
	data, _, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("verify state file: %w", err)
	}
	rep, _, err := replay(data)
	r := &Report{Path: path, Events: len(rep.Events), LastIndex: rep.LastIndex, Warnings: rep.Warnings, Torn: rep.Torn}
	if r.Warnings == nil {
		r.Warnings = []Warning{}
	}
	if err == nil {
		// The log replays, but its document must also be a state's: one
		// whose /resources is 5 is corrupt, not empty.
		r.Resources, err = schema.CheckState(rep.State)
	}
	if err == nil && rep.Torn != nil {
		err = &TornError{Path: path, Torn: *rep.Torn}
	}
	if err != nil {
		r.Error = err.Error()
		return r, fmt.Errorf("verify state file %s: %w", path, err)
	}
	return r, nil
}
