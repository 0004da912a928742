package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Snapshot is a state file as read without opening it for writing: the
// resolved document and the position of its last complete event, by
// which a writer opened later can tell whether anything was appended in
// between.
type Snapshot struct {
	// State is the resolved document; an absent or empty file reads as
	// the initial document.
	State map[string]any
	// Exists is false when there is no file, or no complete event in it.
	Exists bool
	// Events counts the complete events, the initialising one included.
	Events int
	// LastIndex is the highest index seen.
	LastIndex int64
	// Torn is set when the file ends in a truncated value. Read leaves it
	// in place; the next [Open] keeps a copy and cuts it off.
	Torn *Torn
	// Tightened is the mode the file had when Read found it accessible to
	// group or others and made it private (0 otherwise). That is the one
	// change Read makes: a state holds secrets.
	Tightened fs.FileMode
}

// Read resolves the state file at path without writing anything: no file
// is created, no lock taken and no torn tail repaired; only a mode that
// lets group or others read it is tightened (see [Snapshot.Tightened]). Planning reads
// state this way, so that only an apply writes.
func Read(path string) (*Snapshot, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Snapshot{State: initialState()}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read state file %s: %w", path, err)
	}
	var tightened fs.FileMode
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		if os.Chmod(path, fi.Mode().Perm()&^0o077) == nil {
			tightened = fi.Mode().Perm()
		}
	}
	rep, _, err := replay(data)
	switch {
	case errors.Is(err, ErrNoEvents):
		return &Snapshot{State: initialState(), Torn: rep.Torn, Tightened: tightened}, nil
	case err != nil:
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	return &Snapshot{State: rep.State, Exists: true, Events: len(rep.Events), LastIndex: rep.LastIndex, Torn: rep.Torn, Tightened: tightened}, nil
}

// Moved reports whether a log opened for writing holds other events than
// the snapshot read before it: another writer appended in between. A log
// Open just created (or whose only event was torn) holds the initialising
// event alone and matches a snapshot of no file.
func (s *Snapshot) Moved(l *Log) bool {
	if !s.Exists {
		return l.Events() > 1
	}
	return l.Events() != s.Events || l.LastIndex() != s.LastIndex
}

func initialState() map[string]any {
	d, err := decodeValue([]byte(initialDocument))
	if err != nil {
		panic("initial document does not decode: this is a bug in pier")
	}
	return d.(map[string]any)
}
