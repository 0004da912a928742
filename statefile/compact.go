package statefile

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"time"

	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
)

// Compact rewrites the existing state file at path as two events: the
// initialising event, and one snapshot event that adds each top-level
// member of the resolved state. The snapshot keeps the highest index, so
// the writer continues the same numbering and a saved plan's state
// position stays comparable. The previous file is kept as
// path.TIME.bak. It takes the lock like [Open] (see [Options.Wait]).
func Compact(path string, opts Options) (err error) {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("compact state file: %w", err)
	}
	l, err := Open(path, opts)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := l.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = l.Compact()
	return err
}

// Compact rewrites the open log as the initialising event plus one
// snapshot event; see the function [Compact]. It returns the path of the
// backup of the previous file. The replacement is atomic: it is written to
// a temporary file, fsynced, checked to replay to the same state, then
// renamed over the log and the directory is fsynced.
func (l *Log) Compact() (backup string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return "", ErrClosed
	}
	backup, err = l.compact()
	if err != nil {
		return "", fmt.Errorf("compact state file %s: %w", l.path, err)
	}
	return backup, nil
}

func (l *Log) compact() (string, error) {
	t := time.Now()
	state, err := checkType(l.doc.root)
	if err != nil {
		return "", err
	}
	snap := Event{
		Index: max(l.last, 1),
		Meta:  Meta{Time: t.UTC().Format(time.RFC3339Nano), Event: "compact", Extra: map[string]any{"compactedEvents": l.events}},
	}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range state {
			if !yield(k) {
				return
			}
		}
	}) {
		v, err := json.Marshal(state[k])
		if err != nil {
			return "", fmt.Errorf("encode %s: %w", schema.Pointer(k), err)
		}
		snap.Patch = append(snap.Patch, schema.PatchOperation{Op: "add", Path: schema.Pointer(k), Value: v})
	}
	first, err := initEvent(snap.Meta.Time).encodeLine()
	if err != nil {
		return "", err
	}
	second, err := snap.encodeLine()
	if err != nil {
		return "", err
	}
	content := append(first, second...)

	check, _, err := replay(content)
	if err != nil || !reflect.DeepEqual(check.State, deepCopy(state)) {
		panic(fmt.Sprintf("compacted log does not replay to the same state (%v): this is a bug in pier", err))
	}

	dir, base := filepath.Split(l.path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, base+".compact-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	_, werr := tmp.Write(content)
	if werr == nil {
		werr = tmp.Sync()
	}
	if err := tmp.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return "", werr
	}
	backup := l.path + "." + stamp(t) + ".bak"
	if err := keepBackup(l.path, backup); err != nil {
		return "", fmt.Errorf("keep backup %s: %w", backup, err)
	}
	if err := os.Rename(tmp.Name(), l.path); err != nil {
		return "", err
	}
	if err := syncDir(dir); err != nil {
		return "", err
	}
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_APPEND, 0)
	if err == nil {
		if err = lockFile(f, l.path, true); err != nil {
			f.Close()
		}
	}
	if err != nil {
		l.broken = fmt.Errorf("reopen after compaction: %w", err)
		return "", l.broken
	}
	l.f.Close()
	l.f = f
	l.log.Info("compacted state file", logkey.Path, l.path, logkey.Events, l.events, logkey.BytesBefore, l.size, logkey.BytesAfter, len(content), logkey.Backup, backup)
	l.size = int64(len(content))
	l.needNL = false
	l.last = snap.Index
	l.events = 2
	l.warnings = nil
	l.cached = false
	return backup, nil
}

// keepBackup makes backup a hard link to path's current content (the
// rename that follows leaves that inode alone), or a copy where hard links
// are not supported.
func keepBackup(path, backup string) error {
	if err := os.Link(path, backup); err == nil {
		return nil
	}
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	data, err := io.ReadAll(src)
	if err != nil {
		return err
	}
	return writeFileSync(backup, data)
}
