package filehash

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// DefaultMinAge is how old a file's last change must be before its hash
// is remembered: more than any file system's timestamp granularity
// (ext4 and tmpfs tick with the kernel's coarse clock, a few
// milliseconds; some network and older file systems keep whole
// seconds), so that any later write gets a different ctime.
const DefaultMinAge = 3 * time.Second

// MinSize is the smallest file worth remembering: below it, hashing
// costs less than the cache does.
const MinSize = 64 << 10

// maxEntries bounds the cache file; the oldest entries go first.
const maxEntries = 64

// fileName is the cache file's name in its directory.
const fileName = "file-hashes.json"

// Cache remembers file hashes in a cache file. Its methods are safe for
// concurrent use; several processes may share one cache file (the last
// writer wins, and a lost entry only costs a hash).
type Cache struct {
	file   string        // the cache file; "" remembers nothing
	minAge time.Duration // see DefaultMinAge

	mu      sync.Mutex
	loaded  bool
	entries map[string]entry
	hashed  int // files read, for tests
}

// entry is one remembered file: its identity when hashed, and the hash.
type entry struct {
	Identity
	SHA256 string `json:"sha256"`
	// Stored is when the entry was stored, in Unix nanoseconds, to drop
	// the oldest: seconds would tie for the files one command stores.
	Stored int64 `json:"stored"`
}

// cacheFile is the cache file's content.
type cacheFile struct {
	Version int              `json:"version"`
	Files   map[string]entry `json:"files"`
}

const cacheVersion = 2

// New returns a cache kept in dir (created 0700 when first written). An
// empty dir remembers hashes for this process only. minAge is
// [DefaultMinAge] unless a test needs less.
func New(dir string, minAge time.Duration) *Cache {
	c := &Cache{minAge: minAge}
	if dir != "" {
		c.file = filepath.Join(dir, fileName)
	}
	return c
}

// userCache is the cache of the user running pier, in
// os.UserCacheDir()/pier. There is none when there is no cache directory,
// or when the directory above it does not exist either: a HOME that does
// not exist (HOME=/no-home in test harnesses, a system user) is no place
// to create one, even for root.
var userCache = sync.OnceValue(func() *Cache {
	dir, err := os.UserCacheDir()
	if err != nil {
		return New("", DefaultMinAge)
	}
	if _, err := os.Stat(filepath.Dir(dir)); err != nil {
		return New("", DefaultMinAge)
	}
	return New(filepath.Join(dir, "pier"), DefaultMinAge)
})

// SHA256 is [Cache.SHA256] with the user's cache.
func SHA256(path string) (string, error) { return userCache().SHA256(path) }

// SHA256 returns the lower-case hex SHA-256 of the file at path: the
// remembered one when the file's identity is the one it had when hashed,
// a fresh one otherwise (remembered for next time when the file is at
// least MinSize and has not changed for minAge).
func (c *Cache) SHA256(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	// The entry is the file's, whatever links lead to it: deployments
	// often link one provider binary into their directories (a Nix store
	// path, a shared build). The file itself is still the one stat and
	// read through abs, and an entry is only taken for the identity that
	// stat gives, so a link moved in between costs a hash, never a wrong
	// one.
	key := abs
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		key = real
	}
	if info, err := os.Stat(abs); err == nil {
		if id, ok := identify(info); ok {
			if h, ok := c.lookup(key, id); ok {
				return h, nil
			}
		}
	}
	sum, id, ok, err := c.hash(abs)
	if err != nil {
		return "", err
	}
	if ok && id.Size >= MinSize && c.settled(id) {
		c.store(key, entry{Identity: id, SHA256: sum, Stored: time.Now().UnixNano()})
	}
	return sum, nil
}

// hash reads the file. ok says that id is the identity of what was
// read: the open file's identity did not change while it was read.
func (c *Cache) hash(path string) (sum string, id Identity, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", id, false, err
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return "", id, false, err
	}
	c.mu.Lock()
	c.hashed++
	c.mu.Unlock()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", id, false, fmt.Errorf("read %s: %w", path, err)
	}
	sum = hex.EncodeToString(h.Sum(nil))
	after, err := f.Stat()
	if err != nil {
		return sum, id, false, nil
	}
	id, ok1 := identify(before)
	id2, ok2 := identify(after)
	return sum, id, ok1 && ok2 && id == id2, nil
}

// settled says whether a file's last change is old enough that any
// later write would give it another ctime (see DefaultMinAge).
func (c *Cache) settled(id Identity) bool {
	last := max(id.MtimeNS, id.CtimeNS)
	return time.Now().UnixNano()-last >= c.minAge.Nanoseconds()
}

func (c *Cache) lookup(key string, id Identity) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loaded {
		c.entries = readCache(c.file) // none when c.file is ""
		c.loaded = true
	}
	e, ok := c.entries[key]
	if !ok || e.Identity != id {
		return "", false
	}
	return e.SHA256, true
}

// store adds an entry to the cache, and to the cache file when there is
// one. It reads the file again first, to keep what other processes
// stored since this one loaded it. Errors are dropped: the next command
// just hashes again.
func (c *Cache) store(key string, e entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file == "" {
		if c.entries == nil {
			c.entries = map[string]entry{}
		}
		c.entries[key], c.loaded = e, true
		return
	}
	entries := readCache(c.file)
	entries[key] = e
	if len(entries) > maxEntries {
		keys := make([]string, 0, len(entries))
		for k := range entries {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int {
			return cmp.Or(cmp.Compare(entries[b].Stored, entries[a].Stored), cmp.Compare(a, b))
		})
		for _, k := range keys[maxEntries:] {
			delete(entries, k)
		}
	}
	c.entries, c.loaded = entries, true
	_ = writeCache(c.file, cacheFile{Version: cacheVersion, Files: entries})
}

// readCache returns the entries of a cache file; none when it is missing,
// unreadable, corrupt or of another version.
func readCache(path string) map[string]entry {
	if path == "" {
		return map[string]entry{}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return map[string]entry{}
	}
	var cf cacheFile
	if err := json.Unmarshal(data, &cf); err != nil || cf.Version != cacheVersion || cf.Files == nil {
		return map[string]entry{}
	}
	return cf.Files
}

// writeCache replaces the cache file atomically: a reader sees the old file
// or the new one, never a part.
func writeCache(path string, cf cacheFile) error {
	data, err := json.Marshal(cf)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, fileName+".*") // created 0600
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
