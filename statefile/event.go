package statefile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/pierhq/pier/schema"
)

// Event is one value of the log as it is written: the index, the meta
// object and the patch.
type Event struct {
	Index int64        `json:"index"`
	Meta  Meta         `json:"meta"`
	Patch schema.Patch `json:"patch"`
}

// Meta is an event's meta object. Time (RFC 3339), Event ("create",
// "update", "destroy", …) and NixopsVersion have their own fields; any
// other key is kept in Extra and written back flattened into the same
// object, so events written by other tools survive a round trip.
type Meta struct {
	Time          string
	Event         string
	NixopsVersion string
	Extra         map[string]any
}

// MarshalJSON writes Extra and the named fields as one flat object. A named
// field that is set wins over an Extra key of the same name.
func (m Meta) MarshalJSON() ([]byte, error) {
	out := make(map[string]any, len(m.Extra)+3)
	maps.Copy(out, m.Extra)
	for k, v := range map[string]string{"time": m.Time, "event": m.Event, "nixopsVersion": m.NixopsVersion} {
		if v != "" {
			out[k] = v
		}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads a flat meta object. A named key whose value is not a
// string stays in Extra, untouched.
func (m *Meta) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	if raw == nil {
		return fmt.Errorf("meta is null, not an object")
	}
	*m = metaFromMap(raw)
	return nil
}

// metaFromMap takes the named keys out of a decoded meta object; raw
// becomes Extra.
func metaFromMap(raw map[string]any) Meta {
	var m Meta
	take := func(k string, dst *string) {
		if s, ok := raw[k].(string); ok {
			*dst = s
			delete(raw, k)
		}
	}
	take("time", &m.Time)
	take("event", &m.Event)
	take("nixopsVersion", &m.NixopsVersion)
	if len(raw) > 0 {
		m.Extra = raw
	}
	return m
}

// initialDocument is the value the initialising event adds at "".
const initialDocument = `{"_type":"nixopsState","resources":{},"deployments":{}}`

// stateType is the _type every resolved document must have.
const stateType = "nixopsState"

func initEvent(time string) Event {
	return Event{
		Index: 0,
		Meta:  Meta{Time: time},
		Patch: schema.Patch{{Op: "add", Path: "", Value: json.RawMessage(initialDocument)}},
	}
}

// encodeLine is the compact one-line form the writer appends, with its
// newline.
func (e Event) encodeLine() ([]byte, error) {
	if e.Patch == nil {
		e.Patch = schema.Patch{}
	}
	b, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
