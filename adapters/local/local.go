package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pierhq/pier/internal/lockholder"
	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
	"github.com/pierhq/pier/statefile"
)

// Operations are the optional operations the local provider implements, and
// so what the engine declares for the built-in local provider.
var Operations = []schema.Operation{schema.OperationDestroy, schema.OperationRead, schema.OperationImport, schema.OperationPreview}

// Capabilities is what the local provider publishes to the host that runs
// it as a builtin, so that the host knows nothing of it: its types and
// operations, its state type, memo's need of state, and exec's with
// once = true.
var Capabilities = schema.Capabilities{
	ResourceTypes: []string{"exec", "file", "memo", "state_file"},
	Operations:    Operations,
	StateTypes:    []string{"state_file"},
	StatefulTypes: []string{"memo"},
	StatefulWhen:  map[string]string{"exec": "once"},
	// A secret written to a file is for its owner only, unless the
	// deployment says otherwise.
	SensitiveDefaults: map[string]schema.SensitiveDefault{"file": {When: "contents", Set: map[string]any{"mode": "0600"}}},
	// A program's command line is readable by every user of the machine
	// (/proc/PID/cmdline); its stdin is not.
	NoSensitive: map[string]map[string]string{"exec": {
		"args":       "pass the secret on stdin, which only the program reads",
		"executable": "pass the secret on stdin, which only the program reads",
	}},
}

// Options configures a [Provider]. The zero value serves the process's
// working directory and discards logs.
type Options struct {
	// Dir is the directory that relative file and state_file names resolve
	// against and that exec runs programs in; "" means the process's working
	// directory.
	Dir string
	// Stderr receives the stderr of programs that exec runs, as it is
	// written; nil discards it. Its last lines also go into the error when
	// a program fails.
	Stderr io.Writer
	// Logger receives the provider's logs; nil discards them.
	Logger *slog.Logger
	// WaitForLock makes a state_file wait for another process's lock
	// instead of failing at once with the holder's name.
	WaitForLock bool
	// Now stamps state events; nil means time.Now.
	Now func() time.Time
	// ReadOnly reads state files without taking their locks, for commands
	// that only read (pier plan without -out, state list, output). A
	// writer takes a state file's lock before its first read, so that no
	// other writer appends between the read it plans against and its
	// first event.
	ReadOnly bool
}

// ReadOnlyEnv names the environment variable pier sets for a command that
// only reads state (see host/engine's BuiltinEnv): the adapter then reads
// state files without their locks ([Options.ReadOnly]).
const ReadOnlyEnv = "PIER_STATE_READ_ONLY"

// Provider serves the local resource types. Build it with [New]; the
// serving loop calls it one request at a time. Close it when serving ends:
// it holds the state files it has opened, and their locks, until then.
type Provider struct {
	opts  Options
	log   *slog.Logger
	types map[string]resourceType

	mu   sync.Mutex
	logs map[string]*statefile.Log // state files by absolute path
	// reads are the state files read before they were opened for
	// writing: the writer refuses a file another process appended to
	// since.
	reads map[string]*statefile.Snapshot
	// locks are the state files locked before their first read and not
	// yet opened for writing; openState hands each to its log.
	locks map[string]*statefile.Lock
}

var (
	_ providersdk.Handler       = (*Provider)(nil)
	_ providersdk.Destroyer     = (*Provider)(nil)
	_ providersdk.StateProvider = (*Provider)(nil)

	_ providersdk.EncodedStateReader = (*Provider)(nil)
)

// resourceType is one resource type's implementation. Each method validates
// its inputs first, so an unknown field fails every operation alike.
type resourceType interface {
	create(ctx context.Context, req *schema.CreateResourceRequest) (schema.Properties, error)
	update(ctx context.Context, req *schema.UpdateResourceRequest) (schema.Properties, error)
	destroy(ctx context.Context, res *schema.ExtantResource) error
}

// New returns a local provider.
func New(opts Options) *Provider {
	p := &Provider{opts: opts, log: opts.Logger, logs: map[string]*statefile.Log{}, reads: map[string]*statefile.Snapshot{}, locks: map[string]*statefile.Lock{}}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if p.opts.Now == nil {
		p.opts.Now = time.Now
	}
	if p.opts.Stderr == nil {
		p.opts.Stderr = io.Discard
	}
	p.types = map[string]resourceType{
		"file":       fileType{p},
		"exec":       execType{p},
		"memo":       memoType{},
		"state_file": stateFileType{p},
	}
	return p
}

func (p *Provider) lookup(typ string) (resourceType, error) {
	rt, ok := p.types[typ]
	if !ok {
		return nil, fmt.Errorf("unknown resource type %q (supported: %s)", typ, strings.Join(slices.Sorted(maps.Keys(p.types)), ", "))
	}
	return rt, nil
}

// Create implements [providersdk.Handler].
func (p *Provider) Create(ctx context.Context, req *schema.CreateResourceRequest) (*schema.CreateResourceResponse, error) {
	rt, err := p.lookup(req.Type)
	if err != nil {
		return nil, err
	}
	out, err := rt.create(ctx, req)
	if err != nil {
		return nil, err
	}
	return &schema.CreateResourceResponse{OutputProperties: out}, nil
}

// Update implements [providersdk.Handler].
func (p *Provider) Update(ctx context.Context, req *schema.UpdateResourceRequest) (*schema.UpdateResourceResponse, error) {
	rt, err := p.lookup(req.Resource.Type)
	if err != nil {
		return nil, err
	}
	out, err := rt.update(ctx, req)
	if err != nil {
		return nil, err
	}
	return &schema.UpdateResourceResponse{OutputProperties: out}, nil
}

// Destroy implements [providersdk.Destroyer].
func (p *Provider) Destroy(ctx context.Context, req *schema.DestroyResourceRequest) (*schema.DestroyResourceResponse, error) {
	rt, err := p.lookup(req.Resource.Type)
	if err != nil {
		return nil, err
	}
	if err := rt.destroy(ctx, &req.Resource); err != nil {
		return nil, err
	}
	return &schema.DestroyResourceResponse{}, nil
}

// StateRead implements [providersdk.StateProvider] for state_file.
func (p *Provider) StateRead(ctx context.Context, req *schema.StateResourceReadRequest) (*schema.StateResourceReadResponse, error) {
	sf, err := p.stateFile(req.Resource.Type)
	if err != nil {
		return nil, err
	}
	return sf.read(ctx, &req.Resource)
}

// StateReadEncoded implements [providersdk.EncodedStateReader] for
// state_file: a state file's resolved-state cache holds the document
// encoded, and sending those bytes saves encoding it again.
func (p *Provider) StateReadEncoded(_ context.Context, req *schema.StateResourceReadRequest) ([]byte, bool, error) {
	sf, err := p.stateFile(req.Resource.Type)
	if err != nil {
		return nil, false, err
	}
	name, err := sf.name(req.Resource.InputProperties)
	if err != nil {
		return nil, false, err
	}
	r, err := p.read(name)
	if err != nil {
		return nil, false, err
	}
	if held, err := p.heldBy(name); err != nil || held != nil {
		// StateRead answers, with the holder added to the document.
		return nil, false, err
	}
	encoded := r.encoded()
	return encoded, encoded != nil, nil
}

// StateEvent implements [providersdk.StateProvider] for state_file.
func (p *Provider) StateEvent(ctx context.Context, req *schema.StateResourceEvent) (*schema.StateResourceEventResponse, error) {
	sf, err := p.stateFile(req.Resource.Type)
	if err != nil {
		return nil, err
	}
	return sf.event(ctx, req)
}

func (p *Provider) stateFile(typ string) (stateFileType, error) {
	rt, err := p.lookup(typ)
	if err != nil {
		return stateFileType{}, err
	}
	sf, ok := rt.(stateFileType)
	if !ok {
		return stateFileType{}, fmt.Errorf("resource type %q stores no state (only state_file does)", typ)
	}
	return sf, nil
}

// path resolves a resource's file name against Options.Dir.
func (p *Provider) path(name string) (string, error) {
	if name == "" {
		return "", errors.New("name must not be empty")
	}
	if filepath.IsAbs(name) || p.opts.Dir == "" {
		return name, nil
	}
	return filepath.Join(p.opts.Dir, name), nil
}

// Close releases every state file the provider opened, and their locks.
func (p *Provider) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for path, l := range p.logs {
		if err := l.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close state file %q: %w", path, err))
		}
		delete(p.logs, path)
	}
	for path, k := range p.locks {
		if err := k.Release(); err != nil {
			errs = append(errs, fmt.Errorf("release lock of state file %q: %w", path, err))
		}
		delete(p.locks, path)
	}
	return errors.Join(errs...)
}

// statePath resolves a state_file name to an absolute path.
func (p *Provider) statePath(name string) (string, error) {
	path, err := p.path(name)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("resolve state file %q: %w", name, err)
	}
	return abs, nil
}

// readState returns the state document of the state file at name. Until
// the file is opened for writing it only reads: planning creates no file
// and repairs no torn tail; the first event does that.
func (p *Provider) readState(name string) (map[string]any, error) {
	r, err := p.read(name)
	if err != nil {
		return nil, err
	}
	doc, err := r.state(name)
	if err != nil {
		return nil, err
	}
	held, err := p.heldBy(name)
	if err != nil {
		return nil, err
	}
	return withHolder(doc, held), nil
}

// heldBy is who else holds the lock of the state file at name, when this
// provider reads without locking ([Options.ReadOnly]); nil otherwise.
func (p *Provider) heldBy(name string) (*statefile.LockedError, error) {
	if !p.opts.ReadOnly {
		return nil, nil
	}
	abs, err := p.statePath(name)
	if err != nil {
		return nil, err
	}
	return statefile.HeldBy(abs)
}

// withHolder returns doc with [schema.LockHolderKey] naming held, when doc
// has pending operations; doc itself, which a cache may share, is not
// changed.
func withHolder(doc map[string]any, held *statefile.LockedError) map[string]any {
	if held == nil || doc[schema.PendingOperationsKey] == nil {
		return doc
	}
	out := make(map[string]any, len(doc)+1)
	for k, v := range doc {
		out[k] = v
	}
	h := statefile.Holder{PID: held.PID, Command: held.Command, User: held.User, Host: held.Host}
	out[schema.LockHolderKey] = lockholder.Record(h, held.Since)
	return out
}

// stateRead is a state file as read: its log, once open for writing, or
// what was read before.
type stateRead struct {
	log  *statefile.Log
	snap *statefile.Snapshot
}

func (r stateRead) state(name string) (map[string]any, error) {
	if r.log != nil {
		return r.log.State(), nil
	}
	s, err := r.snap.State()
	if err != nil {
		return nil, fmt.Errorf("read state file %q: %w", name, err)
	}
	return s, nil
}

// encoded is the document's JSON encoding when the read had it at hand
// (from the state file's resolved-state cache), and nil otherwise.
func (r stateRead) encoded() []byte {
	if r.log != nil {
		return nil
	}
	return r.snap.Encoded()
}

// read reads the state file at name, as readState does, without decoding
// what it need not.
func (p *Provider) read(name string) (stateRead, error) {
	abs, err := p.statePath(name)
	if err != nil {
		return stateRead{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if l, ok := p.logs[abs]; ok {
		return stateRead{log: l}, nil
	}
	if snap := p.reads[abs]; snap != nil && snap.Unchanged(abs) {
		// Planning creates a state handler, then reads it: one replay
		// serves both, since the file is as it was.
		return stateRead{snap: snap}, nil
	}
	if _, locked := p.locks[abs]; !locked && !p.opts.ReadOnly {
		k, err := statefile.AcquireLock(abs, p.lockOptions())
		if err != nil {
			return stateRead{}, fmt.Errorf("lock state file %q: %w", name, err)
		}
		p.locks[abs] = k
	}
	snap, err := statefile.Read(abs)
	if err != nil {
		return stateRead{}, fmt.Errorf("read state file %q: %w", name, err)
	}
	if snap.NoEvents && snap.Torn == nil {
		p.log.Warn(statefile.NoEventsWarning, logkey.Path, abs)
	}
	if snap.Torn != nil {
		p.log.Warn("state file ends in a torn event left by an interrupted write; the next apply keeps a copy and cuts it off", logkey.Path, abs, logkey.Line, snap.Torn.Line, logkey.Bytes, snap.Torn.Size)
	}
	if !p.opts.ReadOnly && snap.Encoded() == nil {
		// The read replayed the log, and this process holds its lock:
		// cache the result, so that the next command need not replay,
		// even when this one writes no event. The state read then sends
		// the cached encoding.
		if err := snap.SaveCache(abs); err != nil && !errors.Is(err, statefile.ErrCacheNotNeeded) {
			p.log.Debug("state cache not written", logkey.Path, abs, logkey.Error, err)
		}
	}
	if _, seen := p.reads[abs]; !seen {
		p.reads[abs] = snap
	}
	return stateRead{snap: snap}, nil
}

// openState returns the log of the state file at name for writing,
// opening it and taking its lock on first use. The log stays open, and
// locked, until Close. A file read earlier must hold what was read: the
// engine planned against it, and another process that appended in
// between would otherwise be overwritten.
func (p *Provider) openState(name string) (*statefile.Log, error) {
	abs, err := p.statePath(name)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if l, ok := p.logs[abs]; ok {
		return l, nil
	}
	var l *statefile.Log
	if k := p.locks[abs]; k != nil {
		// Locked before the read, so the file is as read: the log takes
		// the read's document over instead of replaying it again.
		opts := p.lockOptions()
		opts.Snapshot = p.reads[abs]
		delete(p.locks, abs)
		l, err = statefile.OpenLocked(abs, k, opts)
	} else {
		l, err = statefile.Open(abs, p.lockOptions())
	}
	if err != nil {
		return nil, fmt.Errorf("open state file %q: %w", name, err)
	}
	if snap := p.reads[abs]; snap != nil && snap.Moved(l) {
		l.Close()
		return nil, fmt.Errorf("state file %q changed since it was read (another pier applied in between?); nothing was written: plan again", name)
	}
	p.log.Debug("state file opened", logkey.Path, abs)
	p.logs[abs] = l
	return l, nil
}

func (p *Provider) lockOptions() statefile.Options {
	return statefile.Options{Wait: p.opts.WaitForLock, Logger: p.log, Holder: lockHolder()}
}
