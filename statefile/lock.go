package statefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"syscall"
	"time"

	"github.com/pierhq/pier/schema/logkey"
	"golang.org/x/sys/unix"
)

// LockedError reports that another process holds a state file's lock. PID
// and Since come from the holder's record in the lock file; PID is 0 when
// the record could not be read (the holder was just starting or stopping).
type LockedError struct {
	Path  string
	PID   int
	Since time.Time
	// Command, User and Host describe the holding command, when its
	// record says (see [Holder]).
	Command, User, Host string
}

func (e *LockedError) Error() string {
	if e.PID == 0 {
		return fmt.Sprintf("state file %s is locked by another process", e.Path)
	}
	msg := fmt.Sprintf("state file %s is locked by process %d since %s", e.Path, e.PID, e.Since.Format(time.RFC3339))
	if e.Command != "" {
		msg += fmt.Sprintf(" (%s, run by %s on %s)", e.Command, e.User, e.Host)
	}
	return msg
}

// StateLocked marks the error as a lock conflict for the protocol; see
// schema.StateLockedPrefix.
func (e *LockedError) StateLocked() bool { return true }

// Holder is who a lock holder says it is: the command the user started,
// which may be the parent of the process that holds the flock (pier runs
// state handlers as `pier adapter local` children). Command must hold no
// secret: pass it through with values removed.
type Holder struct {
	PID     int
	Command string
	User    string
	Host    string
}

// holder is the record the lock owner writes into FILE.lock.
type holder struct {
	PID     int       `json:"pid"`
	Since   time.Time `json:"since"`
	Command string    `json:"command,omitempty"`
	User    string    `json:"user,omitempty"`
	Host    string    `json:"host,omitempty"`
}

// lockPath is the sidecar that carries the flock. The lock is not on the
// state file itself because compaction replaces that file by rename, and a
// lock on the old inode would protect nothing. The sidecar is never
// removed: removing a lock file lets two processes lock different inodes.
func lockPath(path string) string { return path + ".lock" }

// holderRetries bounds how long a refused locker waits for the holder's
// record: the holder writes it right after taking the lock, so a few
// milliseconds cover the window between flock and write.
const (
	holderRetries = 20
	holderRetry   = 5 * time.Millisecond
)

// acquireLock takes the exclusive flock on path's lock file and records
// this process as the holder. With wait it blocks until the lock is free;
// otherwise it returns a *LockedError.
func acquireLock(path string, wait bool, who *Holder, logger *slog.Logger) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		// Refused before the sidecar is made beside it (/dev/null.lock).
		return nil, fmt.Errorf("lock state file %s: %w", path, &NotRegularError{Path: path, Mode: fi.Mode()})
	}
	// The sidecar is truncated as the holder record is written: a link
	// there is not followed, and anything but a regular file is refused,
	// so that no file pier did not create is cut.
	f, _, err := openRegular(lockPath(path), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock state file %s: %w", path, err)
	}
	fd := int(f.Fd())
	var h holder
	locked := false
	for attempt := 0; attempt < holderRetries && !locked; attempt++ {
		err := flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			locked = true
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock state file %s: %w", path, err)
		}
		if h, err = readHolder(f); err == nil {
			break
		}
		time.Sleep(holderRetry)
	}
	if !locked {
		if !wait {
			f.Close()
			return nil, &LockedError{Path: path, PID: h.PID, Since: h.Since, Command: h.Command, User: h.User, Host: h.Host}
		}
		logger.Info("waiting for state file lock", logkey.Path, path, logkey.Pid, h.PID, logkey.Since, h.Since)
		if err := flock(fd, unix.LOCK_EX); err != nil {
			f.Close()
			return nil, fmt.Errorf("lock state file %s: %w", path, err)
		}
	}
	rec := holder{PID: os.Getpid(), Since: time.Now().UTC()}
	if who != nil && who.PID > 0 {
		rec.PID, rec.Command, rec.User, rec.Host = who.PID, who.Command, who.User, who.Host
	}
	b, _ := json.Marshal(rec) // plain struct always encodes
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, fmt.Errorf("record lock holder of %s: %w", path, err)
	}
	if _, err := f.WriteAt(b, 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("record lock holder of %s: %w", path, err)
	}
	return f, nil
}

// Lock is a state file's exclusive lock held on its own, without the log
// open: a writer that reads the state, plans, and only then writes takes
// it before reading, so that no other writer appends in between, and
// without creating the state file or repairing its tail until it writes.
type Lock struct{ f *os.File }

// AcquireLock takes the lock of the state file at path as [Open] does
// (opts.Wait, opts.Holder), creating only its lock sidecar.
func AcquireLock(path string, opts Options) (*Lock, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	f, err := acquireLock(path, opts.Wait, opts.Holder, logger)
	if err != nil {
		return nil, err
	}
	return &Lock{f: f}, nil
}

// Release gives the lock up, unless [OpenLocked] took it over.
func (k *Lock) Release() error {
	if k == nil || k.f == nil {
		return nil
	}
	f := k.f
	k.f = nil
	return releaseLock(f)
}

// releaseLock clears the holder record, so a stale pid is never reported,
// and closes the file, which releases the flock.
func releaseLock(f *os.File) error {
	terr := f.Truncate(0)
	if err := f.Close(); err != nil {
		return err
	}
	return terr
}

// nixops4Wait bounds how long Open waits for a flock on the state file
// itself. NixOps4's writer takes that lock only while it appends, so a
// holder that keeps it longer is something else, reported as locked.
const (
	nixops4Wait  = 2 * time.Second
	nixops4Retry = 10 * time.Millisecond
)

// lockFile also takes the flock on the state file itself, which is the
// lock NixOps4's writer uses, so pier and NixOps4 never append at once.
// The sidecar stays the lock that pier processes report each other by:
// this one moves with the inode when compaction renames the file.
func lockFile(f *os.File, path string, wait bool) error {
	fd := int(f.Fd())
	deadline := time.Now().Add(nixops4Wait)
	for {
		err := flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return fmt.Errorf("lock %s: %w", path, err)
		}
		if wait {
			return flock(fd, unix.LOCK_EX)
		}
		if time.Now().After(deadline) {
			return &LockedError{Path: path}
		}
		time.Sleep(nixops4Retry)
	}
}

func readHolder(f *os.File) (holder, error) {
	buf := make([]byte, 4096) // a record with a long command line
	n, err := f.ReadAt(buf, 0)
	if n == 0 {
		return holder{}, fmt.Errorf("empty lock record: %w", err)
	}
	var h holder
	if err := json.Unmarshal(buf[:n], &h); err != nil {
		return holder{}, err
	}
	if h.PID <= 0 {
		return holder{}, errors.New("lock record has no pid")
	}
	return h, nil
}

func flock(fd, how int) error {
	for {
		err := unix.Flock(fd, how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// HeldBy reports who holds the lock of the state file at path, without
// taking it: a reader that does not lock (a plan) learns whether the
// pending operations it reads are another command's work in progress. It
// returns nil when no process holds the lock. The probe takes a shared
// flock for an instant and never creates the sidecar.
func HeldBy(path string) (*LockedError, error) {
	f, err := os.OpenFile(lockPath(path), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("probe lock of state file %s: %w", path, err)
	}
	defer f.Close()
	fd := int(f.Fd())
	err = flock(fd, unix.LOCK_SH|unix.LOCK_NB)
	if err == nil {
		_ = flock(fd, unix.LOCK_UN)
		return nil, nil
	}
	if !errors.Is(err, unix.EWOULDBLOCK) {
		return nil, fmt.Errorf("probe lock of state file %s: %w", path, err)
	}
	h, _ := readHolder(f) // a holder just starting has no record yet: PID 0
	return &LockedError{Path: path, PID: h.PID, Since: h.Since, Command: h.Command, User: h.User, Host: h.Host}, nil
}
