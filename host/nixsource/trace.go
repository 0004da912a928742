package nixsource

import (
	"bytes"
	"encoding/json"
	"strings"
)

// tracePrefix starts every line the driver writes with builtins.trace.
// Nix prints a traced string as "trace: " followed by the string.
const tracePrefix = "trace: pier:"

// event is one trace line of the driver. Exactly one of Begin, Need or
// Read is set.
type event struct {
	// Begin names the member whose evaluation starts; the events up to the
	// next Begin belong to it.
	Begin []string `json:"begin"`
	Kind  string   `json:"kind"`
	// Need names a resource whose output Output was needed and not known.
	Need   []string `json:"need"`
	Output string   `json:"output"`
	// Read names a resource whose known output was read.
	Read []string `json:"read"`
}

// memberTrace is what the trace says about one member.
type memberTrace struct {
	needs [][]string
	// outputs are the needed outputs as RESOURCE.OUTPUT, for messages.
	outputs []string
	reads   [][]string
}

// traces is the parsed stderr of one driver run.
type traces struct {
	// byMember maps a member path (as an address) to its events.
	byMember map[string]*memberTrace
	// last is the member whose evaluation began last: an error that aborted
	// the evaluation happened there. nil when no member had begun.
	last []string
	// other holds stderr lines that are not driver events: Nix's warnings and
	// error message, and the flake's own traces.
	other []string
}

// parseTraces splits nix's stderr into driver events and everything else.
func parseTraces(stderr []byte) *traces {
	t := &traces{byMember: map[string]*memberTrace{}}
	var cur *memberTrace
	for line := range strings.SplitSeq(string(bytes.TrimRight(stderr, "\n")), "\n") {
		payload, ok := strings.CutPrefix(line, tracePrefix)
		if !ok {
			t.other = append(t.other, line)
			continue
		}
		var ev event
		if err := json.Unmarshal([]byte(payload), &ev); err != nil {
			// A flake's own trace that happens to start like ours.
			t.other = append(t.other, line)
			continue
		}
		switch {
		case ev.Begin != nil:
			key := addressOf(ev.Begin).String()
			cur = t.byMember[key]
			if cur == nil {
				cur = &memberTrace{}
				t.byMember[key] = cur
			}
			t.last = ev.Begin
		case ev.Need != nil && cur != nil:
			cur.needs = append(cur.needs, ev.Need)
			cur.outputs = append(cur.outputs, addressOf(ev.Need).String()+"."+ev.Output)
		case ev.Read != nil && cur != nil:
			cur.reads = append(cur.reads, ev.Read)
		}
	}
	return t
}

// member returns the events of the member at path, never nil.
func (t *traces) member(path []string) *memberTrace {
	if m := t.byMember[addressOf(path).String()]; m != nil {
		return m
	}
	return &memberTrace{}
}

// driverAbort is how Nix 2.8 reports the driver's abort calls.
const driverAbort = "evaluation aborted with the following error message: 'pier: "

// message is Nix's error message: the stderr lines from the first
// "error:" on (without that word, which pier's own error prefix replaces),
// or every non-event line when there is none.
func (t *traces) message() string {
	for i, l := range t.other {
		if rest, ok := strings.CutPrefix(l, "error:"); ok {
			rest = strings.TrimSpace(rest)
			// The driver's own aborts need no Nix wrapping around them.
			if m, ok := strings.CutPrefix(rest, driverAbort); ok {
				rest = strings.TrimSuffix(m, "'")
			}
			lines := append([]string{rest}, t.other[i+1:]...)
			return strings.TrimSpace(strings.Join(lines, "\n"))
		}
	}
	return strings.TrimSpace(strings.Join(t.other, "\n"))
}
