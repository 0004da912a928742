package statefile

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
)

// Options configure [Open] and [Compact].
type Options struct {
	// Wait makes Open block until the lock is free, instead of returning a
	// *LockedError naming the holder.
	Wait bool
	// Logger receives warnings (torn tail repaired, non-increasing indexes,
	// loose permissions) and lifecycle messages. Nil discards them.
	Logger *slog.Logger
	// Holder is recorded as the lock holder, so that a process refused
	// the lock is told which command holds it; nil records this process
	// (its pid only).
	Holder *Holder
	// Snapshot is a [Read] of the same file by this process. Open takes
	// its document over instead of replaying the file again when the file
	// is still the one read, byte for byte (see [Snapshot.Unchanged]) and
	// has no torn tail; otherwise it replays as usual. Once taken over, the
	// snapshot's State may change with every append (it does unless the
	// snapshot came from the resolved-state cache): the caller must use it
	// neither as a record of what was read nor as the state now.
	Snapshot *Snapshot
}

// ErrClosed is returned by methods of a closed [Log].
var ErrClosed = errors.New("state log is closed")

// Log is an open state file: locked for this process, replayed, and ready
// to append. Its methods are safe for concurrent use.
type Log struct {
	mu     sync.Mutex
	path   string
	f      *os.File // O_APPEND; nil once closed
	lock   *os.File
	doc    doc
	last   int64 // highest index in the file
	size   int64 // bytes of complete events; a failed write is cut back to it
	needNL bool  // the file does not end in whitespace
	events int
	broken error // a failed append could not be undone on disk
	log    *slog.Logger
	// warnings are the replay's, kept for the resolved-state cache.
	warnings []Warning
	// cached says the resolved-state cache matches the file as it is:
	// Close rewrites it otherwise.
	cached bool
	// enc is the cache's encoding of the document as it was loaded (nil
	// when it was replayed), and touched what the events since changed:
	// Close splices the new encoding from the two (see splice.go).
	enc     []byte
	touched changedMembers
	// line is the buffer the last event's line was built in: the next one
	// is built there too, once the file has it.
	line []byte
}

// maxKeptLine is the largest line buffer a log keeps for the next event:
// a rare large event (an import) is not held in memory until Close.
const maxKeptLine = 64 << 10

// Open opens the state file at path for writing. It creates the file (mode
// 0600, holding the initialising event) if it does not exist, takes the
// exclusive lock (held until Close), cuts off a torn tail after keeping a
// copy of it in path.torn-TIME, and replays the log.
func Open(path string, opts Options) (*Log, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	lk, err := acquireLock(path, opts.Wait, opts.Holder, logger)
	if err != nil {
		return nil, err
	}
	return open(path, lk, logger, opts)
}

// OpenLocked is [Open] for a state file whose lock the caller already
// holds: the log takes the lock over and releases it at Close.
func OpenLocked(path string, lock *Lock, opts Options) (*Log, error) {
	if lock == nil || lock.f == nil {
		return nil, fmt.Errorf("open state file %s: lock not held", path)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	lk := lock.f
	lock.f = nil
	return open(path, lk, logger, opts)
}

func open(path string, lk *os.File, logger *slog.Logger, opts Options) (*Log, error) {
	l := &Log{path: path, lock: lk, log: logger}
	if err := l.load(opts.Wait, opts.Snapshot); err != nil {
		var le *LockedError
		if errors.As(err, &le) {
			l.Close()
			return nil, err
		}
		l.Close()
		return nil, fmt.Errorf("open state file %s: %w", path, err)
	}
	return l, nil
}

func (l *Log) load(wait bool, snap *Snapshot) error {
	_, statErr := os.Lstat(l.path)
	existed := statErr == nil
	f, fi, err := openRegular(l.path, os.O_RDWR|os.O_APPEND|os.O_CREATE|syncWrites, 0o600)
	if err != nil {
		return err
	}
	l.f = f
	if err := lockFile(f, l.path, wait); err != nil {
		return err
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		// A state holds secrets: take group and other access away, and
		// say so, since the user (or a tool: NixOps4 writes 0644) made it
		// so. Only a writer does this, once, when it opens the file;
		// reading leaves the mode as it is.
		if err := f.Chmod(perm &^ 0o077); err != nil {
			l.log.Warn("state file is accessible to other users and could not be made private; it may hold secrets", logkey.Path, l.path, logkey.Mode, perm.String(), logkey.Error, err)
		} else {
			l.log.Warn("state file was accessible to other users; tightened its mode, as it may hold secrets", logkey.Path, l.path, logkey.Mode, perm.String(), logkey.ModeNow, (perm &^ 0o077).String())
		}
	}
	if fi, err = f.Stat(); err != nil {
		return err
	}
	if d, ok := snap.writerDoc(fi); ok {
		// Replaying again would rebuild the same document: a plan reads
		// the state just before the apply's first event opens it.
		l.doc = d
		l.last = snap.LastIndex
		l.size = snap.end
		l.needNL = snap.needNL
		l.events = snap.Events
		l.warnings = snap.warnings
		l.cached = snap.encoded != nil
		l.enc = snap.encoded
		l.warn(snap.warnings)
		return nil
	}
	data, err := readAll(f, fi.Size())
	if err != nil {
		return err
	}
	if c, ok := readCache(l.path, data); ok {
		if state, err := c.decodeShallow(); err == nil {
			l.doc = doc{root: state}
			l.last = c.hdr.LastIndex
			l.size = c.hdr.End
			l.needNL = c.hdr.End > 0 && skipSpace(data[c.hdr.End-1:c.hdr.End], 0) == 0
			l.events = c.hdr.Events
			l.warnings = c.hdr.Warnings
			l.cached = true
			l.enc = c.encoded
			l.warn(c.hdr.Warnings)
			return nil
		}
	}
	rep, d, err := replay(data)
	switch {
	case errors.Is(err, ErrNoEvents):
		// A new file, or one whose creation was cut short by a crash.
		if rep.Torn != nil {
			if err := l.cutTorn(data, rep.Torn); err != nil {
				return err
			}
		} else if existed && (snap == nil || !snap.NoEvents) {
			// (A reader of the same file has said so already.)
			l.log.Warn(NoEventsWarning, logkey.Path, l.path, logkey.Bytes, len(data))
		}
		return l.initialise()
	case err != nil:
		return err
	}
	l.warn(rep.Warnings)
	l.warnings = rep.Warnings
	if rep.Torn != nil {
		if err := l.cutTorn(data, rep.Torn); err != nil {
			return err
		}
	}
	l.doc = *d
	l.last = rep.LastIndex
	l.size = rep.End
	l.needNL = rep.End > 0 && skipSpace(data[rep.End-1:rep.End], 0) == 0
	l.events = len(rep.Events)
	return nil
}

// NoEventsWarning is what pier says of a state file that exists but holds
// no event (see [Snapshot.NoEvents]): an emptied file reads as a state
// that records nothing.
const NoEventsWarning = "state file exists but holds no events, not even the initialising one: it reads as an empty state, so every resource plans as new; if it held a state, restore it from a backup before applying"

// warn logs the events pier would not write in one line, not one per
// event: replay already sums up a NixOps4-written file's index-0 events in
// one warning. `pier statefile verify` lists every warning.
func (l *Log) warn(ws []Warning) {
	if len(ws) == 0 {
		return
	}
	count := 0
	for _, w := range ws {
		count += w.Count
	}
	l.log.Warn("state file has events pier would not write", logkey.Path, l.path, logkey.Count, count, logkey.First, ws[0].String())
}

// cutTorn keeps a copy of the torn bytes, then truncates them away.
func (l *Log) cutTorn(data []byte, t *Torn) error {
	copyPath := l.path + ".torn-" + stamp(time.Now())
	if err := writeFileSync(copyPath, data[t.Offset:]); err != nil {
		return fmt.Errorf("keep torn tail at %s: %w", t.Position, err)
	}
	if err := syncDir(filepath.Dir(l.path)); err != nil {
		return fmt.Errorf("keep torn tail at %s: %w", t.Position, err)
	}
	if err := l.f.Truncate(t.Offset); err != nil {
		return fmt.Errorf("cut torn tail at %s: %w", t.Position, err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("cut torn tail at %s: %w", t.Position, err)
	}
	l.log.Warn("cut torn tail left by an interrupted write", logkey.Path, l.path, logkey.Line, t.Line, logkey.Offset, t.Offset, logkey.Bytes, t.Size, logkey.Copy, copyPath)
	return nil
}

// initialise makes the file hold just the initialising event.
func (l *Log) initialise() error {
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	line, err := initEvent(now()).encodeLine()
	if err != nil {
		return err
	}
	if _, err := l.f.Write(line); err != nil {
		return err
	}
	if err := l.f.Sync(); err != nil {
		return err
	}
	if err := syncDir(filepath.Dir(l.path)); err != nil {
		return err
	}
	d, err := decodeValue([]byte(initialDocument))
	if err != nil {
		panic("initial document does not decode: this is a bug in pier")
	}
	l.doc = doc{root: d}
	l.size = int64(len(line))
	l.events = 1
	return nil
}

// Events is the number of events in the file, the initialising one
// included.
func (l *Log) Events() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.events
}

// Path is the state file's path.
func (l *Log) Path() string { return l.path }

// LastIndex is the highest event index in the file: the state position a
// saved plan records.
func (l *Log) LastIndex() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}

// State returns a deep copy of the resolved document, which the caller
// may change. It costs time proportional to the state; use [Log.Get] to
// read one resource.
func (l *Log) State() map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	m, _ := deepCopy(l.doc.root).(map[string]any) // the root is checked to be an object on every change
	return m
}

// Get returns a deep copy of the value at the JSON Pointer built from
// segments (see [Pointer]), and whether it exists.
func (l *Log) Get(segments ...string) (any, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.doc.lookup(segments)
	if !ok {
		return nil, false
	}
	return deepCopy(v), true
}

// Append records patch as one event: it assigns the next index (highest +
// 1) and, if meta.Time is empty, the current time; applies the patch to the
// state; writes one line; and fsyncs before returning. A patch that does
// not apply, or that leaves a document whose _type is not nixopsState, is
// rejected and nothing is written. Its cost follows the patch, not the
// state.
func (l *Log) Append(meta Meta, patch schema.Patch) (Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ev := Event{Index: l.last + 1, Meta: meta, Patch: patch}
	if ev.Meta.Time == "" {
		ev.Meta.Time = now()
	}
	if err := l.append(ev); err != nil {
		return Event{}, fmt.Errorf("append event %d to state file %s: %w", ev.Index, l.path, err)
	}
	return ev, nil
}

func (l *Log) append(ev Event) error {
	switch {
	case l.f == nil:
		return ErrClosed
	case l.broken != nil:
		return l.broken
	}
	if err := l.doc.applyPatch(ev.Patch); err != nil {
		return err
	}
	if _, err := checkType(l.doc.root); err != nil {
		l.doc.rollback(0)
		return err
	}
	buf := l.line[:0]
	if l.needNL {
		buf = append(buf, '\n')
	}
	line, err := ev.appendLine(buf)
	if err != nil {
		l.doc.rollback(0)
		return err
	}
	if cap(line) <= maxKeptLine {
		l.line = line[:0]
	}
	n, err := l.f.Write(line)
	if err == nil {
		err = datasync(l.f)
	}
	if err != nil {
		l.doc.rollback(0)
		// Cut what may have reached the file, so the log holds only whole
		// events; if even that fails, refuse further appends.
		if terr := l.f.Truncate(l.size); terr != nil {
			l.broken = fmt.Errorf("an earlier append failed and could not be undone (%w); reopen the log", terr)
		}
		return err
	}
	l.doc.commit()
	l.touched.markPatch(ev.Patch)
	l.size += int64(n)
	l.last = ev.Index
	l.needNL = false
	l.events++
	l.cached = false
	return nil
}

// Close releases the lock. It is safe to call more than once.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	if l.f != nil {
		l.saveCache()
		errs = append(errs, l.f.Close())
		l.f = nil
	}
	if l.lock != nil {
		errs = append(errs, releaseLock(l.lock))
		l.lock = nil
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close state file %s: %w", l.path, err)
	}
	return nil
}

// saveCache writes the resolved-state cache when the file changed since
// it was made, or had none. The lock is still held, so no other writer
// can append in between. A cache that cannot be written is only a cost
// for the next command, never an error of this one. The caller holds mu.
func (l *Log) saveCache() {
	if l.cached || l.broken != nil {
		return
	}
	// The log is hashed as it is read, a buffer at a time, rather than
	// read into memory whole.
	h := sha256.New()
	if n, err := io.Copy(h, io.NewSectionReader(l.f, 0, l.size)); err != nil || n != l.size {
		l.log.Debug("state cache not written", logkey.Path, l.path, logkey.Error, cmp.Or(err, io.ErrUnexpectedEOF))
		return
	}
	root, ok := l.doc.root.(map[string]any)
	if !ok {
		return
	}
	hdr := cacheHeader{Events: l.events, LastIndex: l.last, End: l.size, Warnings: l.warnings}
	enc, _ := spliceEncoding(l.enc, root, &l.touched)
	enc, err := writeCache(l.path, l.size, hex.EncodeToString(h.Sum(nil)), root, enc, hdr)
	if err != nil {
		l.log.Debug("state cache not written", logkey.Path, l.path, logkey.Error, err)
		return
	}
	l.cached = true
	l.enc, l.touched = enc, changedMembers{}
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// stamp is a timestamp for file names: sortable, no colons.
func stamp(t time.Time) string { return t.UTC().Format("20060102T150405.000000000Z") }

// writeFileSync creates path (it must not exist) with mode 0600 and data,
// and fsyncs it.
func writeFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if err := f.Close(); werr == nil {
		werr = err
	}
	return werr
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	serr := d.Sync()
	if err := d.Close(); serr == nil {
		serr = err
	}
	return serr
}
