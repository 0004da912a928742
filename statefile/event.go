package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"strconv"
	"sync"

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
// becomes Extra. A checksum ([ChecksumKey]) is dropped: it belongs to the
// line the event was read from, and the writer computes a new one for
// every line it writes (a pull from PostgreSQL, whose jsonb reorders an
// event's members, would otherwise carry one that no longer matches).
func metaFromMap(raw map[string]any) Meta {
	delete(raw, ChecksumKey)
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
// newline and its checksum (see [ChecksumKey]): json.Marshal's encoding
// of the event, built by hand (appendJSON) since every append pays for it.
func (e Event) encodeLine() ([]byte, error) { return e.appendLine(make([]byte, 0, 256)) }

// appendLine appends encodeLine's line to b. [Log.Append] gives it the
// log's own buffer, so that an event costs no allocation for its line.
func (e Event) appendLine(b []byte) ([]byte, error) {
	if _, ok := e.Meta.Extra[ChecksumKey]; ok {
		e.Meta.Extra = maps.Clone(e.Meta.Extra)
		delete(e.Meta.Extra, ChecksumKey)
	}
	start := len(b)
	b, at, err := e.appendJSON(b)
	if err != nil {
		return nil, err
	}
	// The member goes first in meta, at at, just after its "{": the
	// bytes from there move up to make room for it.
	crc := crc32.Checksum(b[start:], castagnoli())
	var buf [48]byte
	member := append(buf[:0], `"`+ChecksumKey+`":"`+checksumPrefix...)
	for shift := 28; shift >= 0; shift -= 4 {
		member = append(member, hexDigits[crc>>shift&0xf])
	}
	member = append(member, '"')
	if b[at] != '}' {
		member = append(member, ',')
	}
	end := len(b)
	b = append(b, member...)
	copy(b[at+len(member):], b[at:end])
	copy(b[at:], member)
	return append(b, '\n'), nil
}

// hexDigits are the checksum's digits, as %x writes them.
const hexDigits = "0123456789abcdef"

// appendJSON appends json.Marshal(e) to b, and says where meta's members
// begin.
func (e Event) appendJSON(b []byte) (out []byte, metaAt int, err error) {
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, e.Index, 10)
	b = append(b, `,"meta":`...)
	metaAt = len(b) + 1
	if b, err = e.Meta.appendJSON(b); err != nil {
		return nil, 0, err
	}
	b = append(b, `,"patch":[`...)
	for i, op := range e.Patch {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"op":`...)
		b = append(appendString(b, op.Op), `,"path":`...)
		b = appendString(b, op.Path)
		if op.From != "" {
			b = appendString(append(b, `,"from":`...), op.From)
		}
		if len(op.Value) > 0 {
			b = append(b, `,"value":`...)
			if b, err = appendRaw(b, op.Value); err != nil {
				return nil, 0, err
			}
		}
		b = append(b, '}')
	}
	return append(b, "]}"...), metaAt, nil
}

// appendJSON appends json.Marshal(m) to b.
func (m Meta) appendJSON(b []byte) ([]byte, error) {
	if len(m.Extra) > 0 {
		e, err := m.MarshalJSON()
		if err != nil {
			return nil, err
		}
		return append(b, e...), nil
	}
	b = append(b, '{')
	sep := false
	for _, f := range [...]struct{ key, val string }{{`"event":`, m.Event}, {`"nixopsVersion":`, m.NixopsVersion}, {`"time":`, m.Time}} {
		if f.val == "" {
			continue
		}
		if sep {
			b = append(b, ',')
		}
		b = appendString(append(b, f.key...), f.val)
		sep = true
	}
	return append(b, '}'), nil
}

// ChecksumKey is the meta member in which pier records each event's
// checksum: "crc32c:" and eight hex digits, the CRC-32C (Castagnoli) of
// the event's compact JSON without this member. NixOps4 reads meta's
// members other than time into a map and ignores them, so its reader
// still reads pier's files; its own events carry none, and are read as
// they are. A replay refuses an event whose checksum does not match
// ([ErrChecksum]): CRC-32C catches every change of up to four bytes in a
// row, a flipped bit or byte anywhere included, and any other change
// almost surely. It is a check against damage and mistaken edits, not
// against someone who rewrites the checksum too.
const ChecksumKey = "pierChecksum"

const checksumPrefix = "crc32c:"

// castagnoli is the CRC-32C table, made on first use: building it is
// most of the package's init work, and most processes (a bridge, a
// provider's adapter) never check an event.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// ErrChecksum is the cause of the [*EventError] for an event whose
// checksum does not match its content.
var ErrChecksum = errors.New("checksum mismatch: the event is not as pier wrote it (a damaged disk or an edit); restore the file from a backup (a compaction keeps FILE.TIME.bak), or remove the event's meta." + ChecksumKey + " member to accept the event as it now is")

// verifyChecksum checks raw, one event's JSON text, against the checksum
// its meta holds, sum. raw is compacted first when it is not compact (a
// file pretty-printed after pier wrote it), so only whitespace may
// differ from what pier wrote.
func verifyChecksum(raw []byte, sum any) error {
	s, ok := sum.(string)
	if !ok || len(s) != len(checksumPrefix)+8 || s[:len(checksumPrefix)] != checksumPrefix {
		return fmt.Errorf("meta.%s is %v, not %q and eight hex digits", ChecksumKey, sum, checksumPrefix)
	}
	want, err := strconv.ParseUint(s[len(checksumPrefix):], 16, 32)
	if err != nil {
		return fmt.Errorf("meta.%s is %q, not %q and eight hex digits", ChecksumKey, s, checksumPrefix)
	}
	if c, ok := crcWithout(raw, s); ok && c == uint32(want) {
		return nil
	}
	var c bytes.Buffer
	if json.Compact(&c, raw) == nil && !bytes.Equal(c.Bytes(), raw) {
		if c, ok := crcWithout(c.Bytes(), s); ok && c == uint32(want) {
			return nil
		}
	}
	return ErrChecksum
}

// crcWithout is the CRC-32C of raw without its checksum member (and the
// comma that separates it); ok is false when the member is not there
// exactly once, as pier writes it.
func crcWithout(raw []byte, sum string) (crc uint32, ok bool) {
	member := []byte(`"` + ChecksumKey + `":"` + sum + `"`)
	i := bytes.Index(raw, member)
	if i < 0 || bytes.Contains(raw[i+len(member):], member) {
		return 0, false
	}
	start, end := i, i+len(member)
	switch {
	case end < len(raw) && raw[end] == ',':
		end++
	case start > 0 && raw[start-1] == ',':
		start--
	}
	c := crc32.Update(0, castagnoli(), raw[:start])
	return crc32.Update(c, castagnoli(), raw[end:]), true
}
