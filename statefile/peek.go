package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"time"
)

// Snapshot is a state file as read without opening it for writing: the
// resolved document and the position of its last complete event, by
// which a writer opened later can tell whether anything was appended in
// between.
type Snapshot struct {
	// Exists is false when there is no file, or no complete event in it.
	Exists bool
	// Events counts the complete events, the initialising one included.
	Events int
	// LastIndex is the highest index seen.
	LastIndex int64
	// Torn is set when the file ends in a truncated value. Read leaves it
	// in place; the next [Open] keeps a copy and cuts it off.
	Torn *Torn
	// NoEvents is set when the file exists but holds no complete event,
	// not even the initialising one: it is empty (or blank, or all torn).
	// It reads as the initial document, so every resource plans as new:
	// a file that was emptied by mistake must not pass unremarked.
	NoEvents bool

	// What a writer opened later needs to take the read over instead of
	// replaying the file again (see [Options.Snapshot]): the live
	// document, where the complete events end, and the file as it was
	// read. id is zero when the file changed while it was read.
	doc      *doc
	end      int64
	needNL   bool
	id       fileID
	warnings []Warning
	// encoded is the document as JSON, when it came from the cache; it
	// is decoded into state and doc on first use.
	encoded []byte
	once    sync.Once
	state   map[string]any
	err     error
}

// State returns the resolved document; an absent or empty file reads as
// the initial document. A document read from the resolved-state cache is
// decoded on the first call, so that a command that only sends it on
// ([Snapshot.Encoded]) never decodes it.
func (s *Snapshot) State() (map[string]any, error) {
	s.once.Do(func() {
		if s.state != nil {
			return
		}
		v, err := decodeValue(s.encoded)
		if err == nil {
			s.state, err = checkType(v)
		}
		if err != nil {
			s.err = fmt.Errorf("decode the resolved-state cache (remove it to replay the log instead): %w", err)
			return
		}
		s.doc = &doc{root: s.state}
	})
	return s.state, s.err
}

// writerDoc is the document a writer taking s over starts from, when the
// file it opened (fi) is still the one s read, whole: for a read of the
// resolved-state cache, the cached encoding decoded two levels deep (see
// lazy.go), which s does not share, so that a command changing one
// resource does not decode them all; otherwise s's own document, decoded
// if need be, which the writer's appends then change.
func (s *Snapshot) writerDoc(fi fs.FileInfo) (doc, bool) {
	if s == nil || s.Torn != nil || s.id == (fileID{}) || idOf(fi) != s.id {
		return doc{}, false
	}
	if s.encoded != nil {
		if m, ok := decodeShallow(s.encoded); ok {
			if _, err := checkType(m); err == nil {
				return doc{root: m}, true
			}
		}
	}
	if _, err := s.State(); err != nil || s.doc == nil {
		return doc{}, false
	}
	return *s.doc, true
}

// Encoded returns the document encoded as JSON when Read took it from the
// resolved-state cache (see [CacheSuffix]), so that a state read can send
// it without encoding it again; nil otherwise. Once a [Log] has taken the
// snapshot over, Encoded no longer follows the document.
func (s *Snapshot) Encoded() []byte { return s.encoded }

// fileID tells a file apart from itself at another time: an append
// changes its size and modification time, a rewrite (compact) its inode.
type fileID struct {
	size  int64
	mtime time.Time
	ino   uint64
	dev   uint64
}

func idOf(fi fs.FileInfo) fileID {
	id := fileID{size: fi.Size(), mtime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.ino, id.dev = uint64(st.Ino), uint64(st.Dev)
	}
	return id
}

// Unchanged reports whether the file at path is still the one read: same
// size, modification time and inode. A reader that holds no lock uses it
// to tell whether a second read would see anything new.
func (s *Snapshot) Unchanged(path string) bool {
	if s.id == (fileID{}) {
		return false
	}
	fi, err := os.Stat(path)
	if !s.Exists && !s.NoEvents {
		return errors.Is(err, fs.ErrNotExist)
	}
	return err == nil && idOf(fi) == s.id
}

// Read resolves the state file at path without writing anything: no file
// is created, no lock taken, no torn tail repaired and no mode changed
// (a file NixOps4 wrote 0644 stays so until [Open] writes it). Planning
// reads state this way, so that only an apply writes. A path that is not
// a regular file is refused ([*NotRegularError]). A resolved-state cache
// made from exactly the file's bytes (see [CacheSuffix]) stands in for
// the replay.
func Read(path string) (*Snapshot, error) {
	data, fi, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Snapshot{state: initialState(), id: fileID{size: -1}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read state file %s: %w", path, err)
	}
	if c, ok := readCache(path, data); ok {
		s := &Snapshot{Exists: true, Events: c.hdr.Events, LastIndex: c.hdr.LastIndex,
			end: c.hdr.End, warnings: c.hdr.Warnings, encoded: c.encoded,
			needNL: c.hdr.End > 0 && skipSpace(data[c.hdr.End-1:c.hdr.End], 0) == 0}
		if int64(len(data)) == fi.Size() {
			s.id = idOf(fi)
		}
		return s, nil
	}
	rep, d, err := replay(data)
	switch {
	case errors.Is(err, ErrNoEvents):
		s := &Snapshot{state: initialState(), Torn: rep.Torn, NoEvents: true}
		if int64(len(data)) == fi.Size() {
			s.id = idOf(fi) // a second read of the same file need not repeat this one
		}
		return s, nil
	case err != nil:
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	s := &Snapshot{state: rep.State, Exists: true, Events: len(rep.Events), LastIndex: rep.LastIndex, Torn: rep.Torn,
		doc: d, end: rep.End, warnings: rep.Warnings, needNL: rep.End > 0 && skipSpace(data[rep.End-1:rep.End], 0) == 0}
	if int64(len(data)) == fi.Size() {
		s.id = idOf(fi)
	}
	return s, nil
}

// readFile reads a regular file and stats it after reading, through the
// same descriptor: the size tells whether it grew while it was read.
func readFile(path string) ([]byte, fs.FileInfo, error) {
	f, fi, err := openRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, err := readAll(f, fi.Size())
	if err != nil {
		return nil, nil, err
	}
	if fi, err = f.Stat(); err != nil {
		return nil, nil, err
	}
	return data, fi, nil
}

// readAll reads f to its end into a buffer sized for size bytes (the
// file's size when last seen), so that a log of megabytes is read in one
// go rather than into a buffer that grows, and is copied, step by step.
func readAll(f *os.File, size int64) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(size) + bytes.MinRead)
	_, err := buf.ReadFrom(f)
	return buf.Bytes(), err
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
