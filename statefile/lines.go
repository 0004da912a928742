package statefile

import (
	"bytes"
	"encoding/json"
	"runtime"
	"sync"
)

// parallelFrom is the file size from which replay decodes events on
// several cores: below it, starting the goroutines costs more than it
// saves.
const parallelFrom = 256 << 10

// replayLines is replay for a file as pier writes it: one compact event
// per line, no torn tail. Decoding the events is most of a replay's cost,
// and each line decodes on its own, so the lines are decoded on every core
// and then applied in order; a state handler replays its file on every
// command, while the engine waits for it. It reports ok=false, having
// changed nothing, for anything else (a pretty-printed NixOps4 file, a torn
// or broken event, a failing patch), which the sequential replay then
// reads and reports on exactly as before.
func replayLines(data []byte) (rep *Replayed, d *doc, ok bool) {
	if len(data) < parallelFrom || data[len(data)-1] == 0 {
		return nil, nil, false
	}
	type line struct {
		start, num int // offset of the value's first byte; 1-based line
		value      []byte
		ev         wireEvent
	}
	var lines []line
	for i, num := 0, 1; i < len(data); num++ {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			j = len(data) - i
		}
		if s := skipSpace(data[:i+j], i); s < i+j {
			lines = append(lines, line{start: s, num: num, value: data[s : i+j]})
		}
		i += j + 1
	}
	if len(lines) == 0 {
		return nil, nil, false
	}
	workers := min(runtime.GOMAXPROCS(0), len(lines))
	failed := make([]bool, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lo, hi := w*len(lines)/workers, (w+1)*len(lines)/workers
			// One decoder reads the worker's lines as one stream; each
			// value must end on its own line.
			base := lines[lo].start
			chunk := data[base : lines[hi-1].start+len(lines[hi-1].value)]
			dec := json.NewDecoder(bytes.NewReader(chunk))
			dec.UseNumber()
			for k := lo; k < hi; k++ {
				l := &lines[k]
				end := l.start + len(l.value) - base
				if dec.Decode(&l.ev) != nil {
					failed[w] = true
					return
				}
				if off := int(dec.InputOffset()); off > end || skipSpace(chunk[:end], off) != end {
					failed[w] = true
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, f := range failed {
		if f {
			return nil, nil, false
		}
	}
	rep = &Replayed{End: int64(len(data))}
	d = &doc{root: map[string]any{}}
	for ordinal := range lines {
		l := &lines[ordinal]
		pos := Position{Ordinal: ordinal, Offset: int64(l.start), Line: l.num}
		rec, err := d.replayEvent(rep, pos, &l.ev, bytes.TrimRight(l.value, " \t\r"))
		if err != nil {
			return nil, nil, false
		}
		rep.Events = append(rep.Events, rec)
		l.ev = wireEvent{} // applied: let the decoded patch go
	}
	state, err := checkType(d.root)
	if err != nil {
		return nil, nil, false
	}
	rep.State = state
	return rep, d, true
}
