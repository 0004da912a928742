package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// Position locates an event in the file.
type Position struct {
	Ordinal int   `json:"ordinal"` // 0 for the initialising event
	Offset  int64 `json:"offset"`  // byte offset of the value's first byte
	Line    int   `json:"line"`    // 1-based line of that byte
}

func (p Position) String() string {
	return fmt.Sprintf("event %d (line %d, byte %d)", p.Ordinal, p.Line, p.Offset)
}

// Record describes one replayed event: where it is, its index and meta,
// and the JSON Pointers its operations touched (path, and from for move
// and copy), in patch order.
type Record struct {
	Position
	Index int64    `json:"index"`
	Meta  Meta     `json:"meta"`
	Paths []string `json:"paths"`
}

// Warning is a recovered problem: the file loads, but is not as pier
// would have written it (e.g. a non-increasing index from NixOps4's
// writer).
type Warning struct {
	Position
	Message string `json:"message"`
	// Count is how many events the warning covers: events with index 0
	// after the first (NixOps4's writer numbers every event 0) make one
	// warning per file, at the first of them.
	Count int `json:"count"`
}

func (w Warning) String() string {
	if w.Count > 1 {
		return fmt.Sprintf("%s and %d later events: %s", w.Position, w.Count-1, w.Message)
	}
	return w.Position.String() + ": " + w.Message
}

// Torn describes a last value cut short mid-JSON, as a crash during an
// append leaves it. It is never applied. Size is its length in bytes, up to
// the end of the file.
type Torn struct {
	Position
	Size int64 `json:"size"`
}

// Replayed is the result of reading a log.
type Replayed struct {
	// State is the resolved document. It belongs to the caller.
	State    map[string]any
	Events   []Record
	Warnings []Warning
	// Torn is set when the file ends in a truncated value.
	Torn *Torn
	// LastIndex is the highest index seen; the writer continues after it.
	LastIndex int64
	// zeroes is the position in Warnings of the summary of index-0 events
	// plus one, or 0 while there is none.
	zeroes int
	// End is the offset just past the last complete event (and the
	// whitespace after it): the length the file has once a torn tail is cut.
	End int64
}

// EventError is an event that cannot be read or applied.
type EventError struct {
	Position
	Err error
}

func (e *EventError) Error() string { return fmt.Sprintf("%s: %v", e.Position, e.Err) }
func (e *EventError) Unwrap() error { return e.Err }

// ErrNoEvents means a file holds no complete event, not even the
// initialising one (it is empty, or its only value is torn).
var ErrNoEvents = errors.New("no complete event (the initialising event is missing)")

// Replay reads a whole log and resolves its state. It only reads: a torn
// tail is reported in [Replayed.Torn], not repaired. The error is an
// [*EventError] naming the event's position when an event is malformed or
// its patch does not apply, [ErrNoEvents] for a file without events, or a
// wrong resolved _type; the Replayed returned with it then holds the
// events, warnings and torn tail read before the problem, and no State.
func Replay(r io.Reader) (*Replayed, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read state log: %w", err)
	}
	rep, _, err := replay(data)
	if err != nil {
		return rep, err
	}
	return rep, nil
}

// wireEvent is an event as read; nil tells a missing field apart. Meta and
// the operations are maps so that the stream decoder's UseNumber applies
// to them in the same pass: every value is parsed once.
type wireEvent struct {
	Index *json.Number      `json:"index"`
	Meta  map[string]any    `json:"meta"`
	Patch *[]map[string]any `json:"patch"`
}

// wireOperations turns decoded operation objects into operations. A
// missing or null string member reads as "", as it would into a
// schema.PatchOperation.
func wireOperations(list []map[string]any) ([]operation, error) {
	ops := make([]operation, len(list))
	for i, m := range list {
		if m == nil {
			return nil, fmt.Errorf("patch operation %d is not an object", i)
		}
		for _, f := range []struct {
			key string
			dst *string
		}{{"op", &ops[i].Op}, {"path", &ops[i].Path}, {"from", &ops[i].From}} {
			switch v := m[f.key].(type) {
			case nil:
			case string:
				*f.dst = v
			default:
				return nil, fmt.Errorf("patch operation %d: %s is not a string", i, f.key)
			}
		}
		ops[i].val, ops[i].hasValue = m["value"]
		ops[i].decoded = true
	}
	return ops, nil
}

// replay resolves data and also returns the live document, for the writer.
// The Replayed it returns is never nil and holds what was read before an
// error, for reports.
func replay(data []byte) (*Replayed, *doc, error) {
	if rep, d, ok := replayLines(data); ok {
		return rep, d, nil
	}
	return replaySeq(data)
}

// replaySeq is replay one value after another, for any file.
func replaySeq(data []byte) (*Replayed, *doc, error) {
	rep := &Replayed{}
	d := &doc{root: map[string]any{}}
	// A crash can also leave zero-filled blocks at the end of a file (the
	// size reached the disk, the data did not). NUL is never part of JSON,
	// so such a tail belongs to the torn tail.
	end := len(bytes.TrimRight(data, "\x00"))
	dec := json.NewDecoder(bytes.NewReader(data[:end]))
	dec.UseNumber()
	line, counted := 1, 0
	for ordinal := 0; ; ordinal++ {
		start := skipSpace(data[:end], int(dec.InputOffset()))
		if start == end {
			rep.End = int64(end)
			if end < len(data) {
				line += bytes.Count(data[counted:start], []byte{'\n'})
				rep.Torn = &Torn{Position: Position{Ordinal: ordinal, Offset: int64(start), Line: line}, Size: int64(len(data) - start)}
				rep.End = int64(start)
			}
			break
		}
		line += bytes.Count(data[counted:start], []byte{'\n'})
		counted = start
		pos := Position{Ordinal: ordinal, Offset: int64(start), Line: line}
		var w wireEvent
		if err := dec.Decode(&w); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				rep.Torn = &Torn{Position: pos, Size: int64(len(data) - start)} // NULs included
				rep.End = int64(start)
				break
			}
			return rep, nil, &EventError{Position: pos, Err: err}
		}
		rec, err := d.replayEvent(rep, pos, &w, data[start:dec.InputOffset()])
		if err != nil {
			return rep, nil, &EventError{Position: pos, Err: err}
		}
		rep.Events = append(rep.Events, rec)
	}
	if len(rep.Events) == 0 {
		return rep, nil, ErrNoEvents
	}
	state, err := checkType(d.root)
	if err != nil {
		return rep, nil, err
	}
	rep.State = state
	return rep, d, nil
}

// replayEvent applies one decoded event, w, whose JSON text is raw.
func (d *doc) replayEvent(rep *Replayed, pos Position, w *wireEvent, raw []byte) (Record, error) {
	if i := invalidUTF8(raw); i >= 0 {
		return Record{}, fmt.Errorf("byte %d: %w", pos.Offset+int64(i), ErrInvalidUTF8)
	}
	switch {
	case w.Index == nil:
		return Record{}, errors.New("missing index")
	case w.Meta == nil:
		return Record{}, errors.New("missing meta (or not an object)")
	case w.Patch == nil:
		return Record{}, errors.New("missing patch")
	}
	idx, err := strconv.ParseInt(w.Index.String(), 10, 64)
	if err != nil || idx < 0 {
		return Record{}, fmt.Errorf("index %s is not a non-negative integer", w.Index)
	}
	patch, err := wireOperations(*w.Patch)
	if err != nil {
		return Record{}, err
	}
	if sum, ok := w.Meta[ChecksumKey]; ok {
		// pier wrote it; an event without one (NixOps4's) is read as it is.
		if err := verifyChecksum(raw, sum); err != nil {
			return Record{}, fmt.Errorf("index %s: %w", w.Index, err)
		}
		delete(w.Meta, ChecksumKey)
	}
	if pos.Ordinal == 0 {
		if !isInit(patch) {
			return Record{}, fmt.Errorf("first event does not initialise the state: its first operation must add {\"_type\":%q,…} at path \"\"", stateType)
		}
		if idx != 0 {
			rep.Warnings = append(rep.Warnings, Warning{Position: pos, Count: 1, Message: fmt.Sprintf("initialising event has index %d, want 0", idx)})
		}
	} else if idx <= rep.LastIndex {
		rep.nonIncreasing(pos, idx)
	}
	if err := d.applyOps(patch); err != nil {
		return Record{}, fmt.Errorf("index %d: %w", idx, err)
	}
	d.commit()
	rep.LastIndex = max(rep.LastIndex, idx)
	return Record{Position: pos, Index: idx, Meta: metaFromMap(w.Meta), Paths: touched(patch)}, nil
}

// ErrInvalidUTF8 is the cause of the [*EventError] for an event that is
// not valid UTF-8. JSON text is UTF-8 (RFC 8259), NixOps4's reader refuses
// anything else, and decoding would silently replace the bad bytes with
// U+FFFD, a state that is not the one written, which a compaction would
// then make permanent.
var ErrInvalidUTF8 = errors.New("invalid UTF-8: a state file is UTF-8 JSON, and pier does not read bytes it would have to replace")

// invalidUTF8 is the offset of the first byte in b that is not valid
// UTF-8, or -1.
func invalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// nonIncreasing records an index that does not increase. Index 0 is how
// NixOps4's writer numbers every event, so those are counted into one
// warning per file; any other index going back (two writers, say) is worth
// a warning of its own.
func (rep *Replayed) nonIncreasing(pos Position, idx int64) {
	if idx != 0 {
		rep.Warnings = append(rep.Warnings, Warning{Position: pos, Count: 1, Message: fmt.Sprintf("index %d does not increase (highest so far %d)", idx, rep.LastIndex)})
		return
	}
	if rep.zeroes == 0 {
		rep.Warnings = append(rep.Warnings, Warning{Position: pos, Count: 1, Message: fmt.Sprintf("index 0 does not increase (highest so far %d)", rep.LastIndex)})
		rep.zeroes = len(rep.Warnings)
		return
	}
	w := &rep.Warnings[rep.zeroes-1]
	w.Count++
	w.Message = zeroesMessage
}

// zeroesMessage is the summary of a file's index-0 events. It holds no
// number, so that counting costs no allocation per event; String adds
// the count.
const zeroesMessage = "index 0 does not increase: NixOps4's writer numbers every event 0; the events apply in file order, and pier numbers its own after the highest index"

// isInit reports whether a patch starts by adding a nixopsState document
// at the root, as the initialising event does.
func isInit(p []operation) bool {
	if len(p) == 0 || p[0].Op != "add" || p[0].Path != "" || !p[0].hasValue {
		return false
	}
	v, err := p[0].value()
	if err != nil {
		return false
	}
	m, ok := v.(map[string]any)
	return ok && m["_type"] == stateType
}

func checkType(root any) (map[string]any, error) {
	m, ok := root.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("resolved state is not a JSON object")
	}
	if m["_type"] != stateType {
		return nil, fmt.Errorf("resolved state has _type %v, want %q", m["_type"], stateType)
	}
	return m, nil
}

func touched(p []operation) []string {
	paths := make([]string, 0, len(p))
	for _, op := range p {
		if op.Op == "move" || op.Op == "copy" {
			paths = append(paths, op.From)
		}
		paths = append(paths, op.Path)
	}
	return paths
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}
