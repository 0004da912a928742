package local

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/statefile"
)

// stateFileType stores a deployment's state in an append-only event log.
// Its own outputs are empty; the state itself travels through
// stateResourceReadRequest and stateResourceEvent.
type stateFileType struct{ p *Provider }

type stateFileInputs struct {
	Name string `json:"name"`
}

func (t stateFileType) name(props schema.Properties) (string, error) {
	// Every event and read asks; inputs that are only a valid UTF-8 name
	// decode to just that, and json.Marshal's round trip for them was
	// most of opening the log.
	if s, ok := props["name"].(string); ok && len(props) == 1 && utf8.ValidString(s) {
		return s, nil
	}
	var in stateFileInputs
	if err := providersdk.DecodeInputs(props, &in); err != nil {
		return "", err
	}
	return in.Name, nil
}

func (t stateFileType) open(props schema.Properties) (*statefile.Log, error) {
	name, err := t.name(props)
	if err != nil {
		return nil, err
	}
	return t.p.openState(name)
}

// state reads the document without writing: a state handler is created
// and read while planning, and planning writes nothing.
func (t stateFileType) state(props schema.Properties) (map[string]any, error) {
	name, err := t.name(props)
	if err != nil {
		return nil, err
	}
	return t.p.readState(name)
}

// create checks the inputs and reads the file, so that a broken one is
// reported when the resource is created. It creates no file: the first
// event does, since planning creates and reads every state handler.
func (t stateFileType) create(_ context.Context, req *schema.CreateResourceRequest) (schema.Properties, error) {
	if err := t.check(req.InputProperties); err != nil {
		return nil, err
	}
	return schema.Properties{}, nil
}

// check reads the file the inputs name, without decoding a document that
// the read took from the file's resolved-state cache: that was made from
// a replay of exactly the same bytes.
func (t stateFileType) check(props schema.Properties) error {
	name, err := t.name(props)
	if err != nil {
		return err
	}
	_, err = t.p.read(name)
	return err
}

// update reads the file the new inputs name. A renamed state_file starts
// from whatever the new path holds (a new log if none): moving the history
// is the user's act, not the provider's.
func (t stateFileType) update(_ context.Context, req *schema.UpdateResourceRequest) (schema.Properties, error) {
	if err := t.check(req.InputProperties); err != nil {
		return nil, err
	}
	return schema.Properties{}, nil
}

// destroy refuses while the log still records resources: destroying the
// store first would orphan them. Otherwise it succeeds and leaves the file
// in place, because the file is the deployment's history, and deleting
// history is for the user to decide.
func (t stateFileType) destroy(_ context.Context, res *schema.ExtantResource) error {
	doc, err := t.state(res.InputProperties)
	if err != nil {
		return err
	}
	if addrs := slices.Sorted(schema.StateResources(doc)); len(addrs) > 0 {
		shown := addrs
		if len(shown) > 5 {
			shown = append(slices.Clone(shown[:5]), "…")
		}
		return fmt.Errorf("the state still records %d resource(s) (%s); destroy them before the state_file that stores them", len(addrs), strings.Join(shown, ", "))
	}
	return nil
}

// read returns the resolved state document.
func (t stateFileType) read(_ context.Context, res *schema.ExtantResource) (*schema.StateResourceReadResponse, error) {
	doc, err := t.state(res.InputProperties)
	if err != nil {
		return nil, err
	}
	return &schema.StateResourceReadResponse{State: doc}, nil
}

// event appends the change; Append has fsynced it when it returns, before
// the response tells the engine it may go on.
func (t stateFileType) event(_ context.Context, req *schema.StateResourceEvent) (*schema.StateResourceEventResponse, error) {
	l, err := t.open(req.Resource.InputProperties)
	if err != nil {
		return nil, err
	}
	meta := statefile.Meta{
		Time:          t.p.opts.Now().UTC().Format(time.RFC3339Nano),
		Event:         req.Event,
		NixopsVersion: req.NixopsVersion,
	}
	if _, err := l.Append(meta, req.Patch); err != nil {
		return nil, fmt.Errorf("record %s event: %w", req.Event, err)
	}
	return &schema.StateResourceEventResponse{}, nil
}
