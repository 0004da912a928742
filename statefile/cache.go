package statefile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// The resolved-state cache is a file beside the log, path + CacheSuffix,
// holding the document the log resolves to, keyed by the SHA-256 of the
// log's bytes. Replaying costs time proportional to the log's whole
// history (a create is recorded as a pending operation, then as the
// resource: about three times the state's own size), while every command
// needs only the state; with the cache a read costs a hash of the log and
// a decode of the state, and a state read can send the cached encoding as
// it is.
//
// The cache is only ever a copy: a log that differs from the one it was
// made from by a single byte (another writer appended, NixOps4 wrote,
// someone edited it, a compaction rewrote it) hashes differently, and is
// replayed as before. The cache's own content is hashed too, so a cache cut
// short or damaged is ignored, never trusted. Only a writer holding the
// lock writes it, at [Log.Close]; [Read] only reads it. It holds the same
// secrets as the state, so it is created 0600.
const CacheSuffix = ".cache"

// cacheVersion is the cache format; a cache of another version is ignored.
// Version 2: replay checks event checksums and refuses invalid UTF-8, so a
// cache made by an older replay, which accepted both, is not trusted.
const cacheVersion = 2

// cacheHeader is the first line of a cache file; the encoded state follows
// on the second. Beside the keys it carries what a replay reports besides
// the state, so that a cache hit answers exactly as the replay would.
type cacheHeader struct {
	Version   int    `json:"pierStateCache"`
	LogSize   int64  `json:"logSize"`
	LogSHA256 string `json:"logSha256"`
	// Events, LastIndex, End and Warnings are the replay's.
	Events      int       `json:"events"`
	LastIndex   int64     `json:"lastIndex"`
	End         int64     `json:"end"`
	Warnings    []Warning `json:"warnings,omitempty"`
	StateSize   int       `json:"stateSize"`
	StateSHA256 string    `json:"stateSha256"`
}

// cached is a cache hit: the encoded state and the replay's report.
type cached struct {
	encoded []byte
	hdr     cacheHeader
}

func sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// readCache returns the cache of the log at path whose content is data,
// or ok=false when there is none that matches it exactly.
func readCache(path string, data []byte) (c cached, ok bool) {
	raw, err := os.ReadFile(path + CacheSuffix)
	if err != nil {
		return cached{}, false
	}
	nl := bytes.IndexByte(raw, '\n')
	if nl < 0 {
		return cached{}, false
	}
	if err := json.Unmarshal(raw[:nl], &c.hdr); err != nil || c.hdr.Version != cacheVersion || c.hdr.LogSize != int64(len(data)) {
		return cached{}, false
	}
	body := bytes.TrimSuffix(raw[nl+1:], []byte{'\n'})
	if len(body) != c.hdr.StateSize || sum(body) != c.hdr.StateSHA256 || sum(data) != c.hdr.LogSHA256 {
		return cached{}, false
	}
	c.encoded = body
	return c, true
}

// decodeShallow returns the cached document for a writer, decoded two
// levels deep (see lazy.go).
func (c cached) decodeShallow() (map[string]any, error) {
	if m, ok := decodeShallow(c.encoded); ok {
		return checkType(m)
	}
	return c.decode()
}

// decode returns the cached document.
func (c cached) decode() (map[string]any, error) {
	v, err := decodeValue(c.encoded)
	if err != nil {
		return nil, err
	}
	return checkType(v)
}

// writeCache replaces the cache of the log at path, whose content is
// logSize bytes hashing to logSum, with state and the replay's report, and
// returns the state's encoding: body when it is not nil (which must be
// json.Marshal(state)), else encoded here. It writes a temporary file and
// renames it over the cache, so that a reader sees the old cache or the
// new one; it does not fsync, since a cache lost in a crash is only
// replayed again.
func writeCache(path string, logSize int64, logSum string, state map[string]any, body []byte, hdr cacheHeader) ([]byte, error) {
	if body == nil {
		var err error
		if body, err = marshal(state); err != nil {
			return nil, fmt.Errorf("encode state: %w", err)
		}
	}
	hdr.Version, hdr.LogSize, hdr.LogSHA256 = cacheVersion, logSize, logSum
	hdr.StateSize, hdr.StateSHA256 = len(body), sum(body)
	head, err := json.Marshal(hdr)
	if err != nil {
		return nil, fmt.Errorf("encode cache header: %w", err)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, base+CacheSuffix+".tmp-*") // 0600
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	// Three writes rather than a copy of the state's encoding into one
	// buffer.
	_, werr := tmp.Write(append(head, '\n'))
	if werr == nil {
		_, werr = tmp.Write(body)
	}
	if werr == nil {
		_, werr = tmp.Write([]byte{'\n'})
	}
	if err := tmp.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return nil, werr
	}
	if err := os.Rename(tmp.Name(), path+CacheSuffix); err != nil {
		return nil, err
	}
	return body, nil
}

// ErrCacheNotNeeded is returned by [Snapshot.SaveCache] for a snapshot
// that has no cache to write: it came from the cache, the file does not
// exist or ends in a torn event, or it changed since it was read.
var ErrCacheNotNeeded = errors.New("no resolved-state cache to write for this read")

// SaveCache writes the resolved-state cache (see [CacheSuffix]) of the
// state file at path, which s is a read of, so that the next read need not
// replay it; from then on [Snapshot.Encoded] returns the cached encoding.
// Only a process that holds the file's lock may call it: no writer can
// then append between the read and the cache. A file that changed since
// it was read gets no cache ([ErrCacheNotNeeded]).
func (s *Snapshot) SaveCache(path string) error {
	if s.encoded != nil || !s.Exists || s.Torn != nil || s.id == (fileID{}) {
		return ErrCacheNotNeeded
	}
	data, fi, err := readFile(path)
	if err != nil {
		return err
	}
	if idOf(fi) != s.id || int64(len(data)) != s.end {
		return ErrCacheNotNeeded
	}
	state, err := s.State()
	if err != nil {
		return err
	}
	body, err := writeCache(path, int64(len(data)), sum(data), state, nil, cacheHeader{Events: s.Events, LastIndex: s.LastIndex, End: s.end, Warnings: s.warnings})
	if err != nil {
		return err
	}
	s.encoded = body
	return nil
}
