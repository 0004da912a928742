package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/pierhq/pier/host/provider"
	"github.com/pierhq/pier/schema"
)

// The names of the checks. They are what `pier provider check` prints and
// what its --json output carries, so they are API.
const (
	CheckCreate        = "create"
	CheckUpdate        = "update"
	CheckStateRead     = "state read"
	CheckStateEvent    = "state event"
	CheckStateReflects = "state read reflects event"
	CheckRead          = "read"
	CheckDestroy       = "destroy"
	CheckSeveral       = "several requests on one process"
	CheckUnknownType   = "error on unknown type"
	CheckUnknownField  = "error on unknown input field"
	CheckRequiresState = "refuses create without state"
	CheckStdout        = "stdout carries only JSON lines"
	CheckCleanExit     = "clean exit when stdin closes"
)

// order is the order in which [Check] reports results: the lifecycle of
// the resource first, then the rules about behaviour.
var order = []string{
	CheckCreate, CheckUpdate, CheckRead, CheckStateRead, CheckStateEvent, CheckStateReflects, CheckDestroy,
	CheckSeveral, CheckUnknownType, CheckUnknownField, CheckRequiresState, CheckStdout, CheckCleanExit,
}

// Names returns the names of all checks, in the order [Check] reports
// them.
func Names() []string { return slices.Clone(order) }

const (
	// DefaultExitTimeout is how long a provider may take to exit after its
	// stdin closes: pier's own grace period, after which pier kills it.
	DefaultExitTimeout = provider.DefaultCloseGrace
	// DefaultCheckTimeout bounds each request of the check. It is shorter
	// than a deployment's because the check's resource is a test one, and a
	// hung provider should fail the check in reasonable time.
	DefaultCheckTimeout = time.Minute
	// DefaultResource is the resource address the check's requests are
	// made for, as logs and errors show it.
	DefaultResource = "check"
)

// What the script sends to provoke errors and to mark its state entry.
// They are odd enough not to collide with a real type, field or resource.
const (
	unknownType  = "pier-check-no-such-type"
	unknownField = "pierCheckUnknownField"
	stateEntry   = "pier-provider-check"
)

// Config says which provider to check and with what resource.
type Config struct {
	// Provider starts the provider. Its Operations are the declared
	// optional operations; Timeout bounds each request (default
	// [DefaultCheckTimeout], shorter than a deployment's because a check
	// should not wait ten minutes on a hung provider).
	Provider provider.Config
	// Resource is the address named in the provider's logs and in errors;
	// empty means [DefaultResource].
	Resource string
	// Type and Inputs describe a resource the provider can create.
	Type   string
	Inputs schema.Properties
	// UpdateInputs, when non-nil, are the inputs the created resource is
	// updated to; nil skips the update check.
	UpdateInputs schema.Properties
	// Stateful is sent as isStateful on create.
	Stateful bool
	// RequiresState says the type needs state, so a create with
	// isStateful=false must be refused. The checker cannot find this out
	// itself: for a type that works either way, accepting is right.
	RequiresState bool
	// StateProvider says the type is a state provider: the check reads the
	// state, records an event and reads again.
	StateProvider bool
	// NixopsVersion is sent as nixopsVersion in state events; empty means
	// "pier-provider-check".
	NixopsVersion string
	// ExitTimeout bounds the wait for the provider to exit after its stdin
	// is closed; 0 means [DefaultExitTimeout]. pier's grace period is of the
	// same order, after which it kills the provider.
	ExitTimeout time.Duration
}

// Result is the verdict of one check.
type Result struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	// Reason says why a check failed; empty when it passed.
	Reason string `json:"reason,omitempty"`
}

// Check runs the provider through the scripted session and returns one
// result per applicable check, the resource's lifecycle first, then the
// rules about behaviour. A
// failing provider is reported in the results, not as an error; the error
// is for a session that could not run at all (the executable cannot be
// started, ctx was cancelled).
func Check(ctx context.Context, cfg Config) ([]Result, error) {
	if cfg.Type == "" {
		return nil, errors.New("check provider: no resource type given")
	}
	if cfg.RequiresState && !cfg.Stateful {
		return nil, fmt.Errorf("check provider: type %q requires state, so its create must say isStateful=true (set Stateful)", cfg.Type)
	}
	if cfg.Inputs == nil {
		cfg.Inputs = schema.Properties{}
	}
	if cfg.Provider.Timeout == 0 {
		cfg.Provider.Timeout = DefaultCheckTimeout
	}
	if cfg.ExitTimeout == 0 {
		cfg.ExitTimeout = DefaultExitTimeout
	}
	if cfg.Resource == "" {
		cfg.Resource = DefaultResource
	}
	if cfg.NixopsVersion == "" {
		cfg.NixopsVersion = "pier-provider-check"
	}
	// Close waits this long after closing stdin before it kills the
	// provider, and reports that (or a non-zero status) as an error.
	cfg.Provider.CloseGrace = cfg.ExitTimeout
	s := &session{cfg: cfg, results: map[string]Result{}}
	defer s.close()
	// A provider that cannot even start is a mistake in the command line
	// more often than in the provider: report it once, as an error.
	p, err := provider.Start(ctx, cfg.Provider)
	if err != nil {
		return nil, fmt.Errorf("check provider: %w", err)
	}
	s.proc = p
	if err := s.run(ctx); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("check provider %s: %w", cfg.Provider.Executable, err)
	}
	var results []Result
	for _, name := range order {
		if r, ok := s.results[name]; ok {
			results = append(results, r)
		}
	}
	return results, nil
}

// session is one run of the script. It restarts the provider when a
// request killed it, so that one fault fails one check and not every
// check after it.
type session struct {
	cfg     Config
	proc    *provider.Process
	results map[string]Result // by check name

	answered int     // requests the current process answered
	several  *Result // decided once a process answers twice, or dies after one answer
	stdout   []string
}

func (s *session) pass(name string) { s.results[name] = Result{Name: name, Passed: true} }

func (s *session) fail(name, format string, args ...any) {
	s.results[name] = Result{Name: name, Reason: fmt.Sprintf(format, args...)}
}

// extant is the created resource, as pier would record it.
type extant struct {
	inputs, outputs schema.Properties
}

func (s *session) run(ctx context.Context) error {
	created, err := s.create(ctx)
	if err != nil {
		return err
	}
	if s.cfg.UpdateInputs != nil {
		if created, err = s.update(ctx, created); err != nil {
			return err
		}
	}
	if slices.Contains(s.cfg.Provider.Operations, schema.OperationRead) {
		if err := s.read(ctx, created); err != nil {
			return err
		}
	}
	if s.cfg.StateProvider {
		if err := s.state(ctx, created); err != nil {
			return err
		}
	}
	if slices.Contains(s.cfg.Provider.Operations, schema.OperationDestroy) {
		if err := s.destroy(ctx, created); err != nil {
			return err
		}
	}
	if err := s.expectError(ctx, CheckUnknownType, "an unknown resource type", &schema.CreateResourceRequest{
		Type: unknownType, InputProperties: s.cfg.Inputs, IsStateful: s.cfg.Stateful,
	}); err != nil {
		return err
	}
	withUnknown := make(schema.Properties, len(s.cfg.Inputs)+1)
	for k, v := range s.cfg.Inputs {
		withUnknown[k] = v
	}
	withUnknown[unknownField] = true
	if err := s.expectError(ctx, CheckUnknownField, fmt.Sprintf("an unknown input field %q", unknownField), &schema.CreateResourceRequest{
		Type: s.cfg.Type, InputProperties: withUnknown, IsStateful: s.cfg.Stateful,
	}); err != nil {
		return err
	}
	if s.cfg.RequiresState {
		if err := s.expectError(ctx, CheckRequiresState, "isStateful=false for a type that requires state", &schema.CreateResourceRequest{
			Type: s.cfg.Type, InputProperties: s.cfg.Inputs, IsStateful: false,
		}); err != nil {
			return err
		}
	}
	// When the script so far gave no process a second request to answer
	// (requests crashed processes, or there were few of them), repeat the
	// unknown-field request: it has no side effects on a provider that
	// follows the guide.
	for i := 0; i < 2 && s.several == nil; i++ {
		_, err := s.call(ctx, &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
			Type: s.cfg.Type, InputProperties: withUnknown, IsStateful: s.cfg.Stateful,
		}})
		if err != nil && ctx.Err() != nil {
			return err
		}
	}
	switch {
	case s.several != nil:
		s.results[CheckSeveral] = *s.several
	default:
		// No process ever lived to answer a second request, nor answered
		// one and then died: every request crashed or hung it.
		s.fail(CheckSeveral, "no process answered more than one request")
	}
	// Closing stdin comes last: it can reveal output nobody asked for.
	if err := s.exit(ctx); err != nil {
		return err
	}
	if len(s.stdout) == 0 {
		s.pass(CheckStdout)
	} else {
		s.fail(CheckStdout, "%s", s.stdout[0])
	}
	return nil
}

func (s *session) create(ctx context.Context) (extant, error) {
	req := &schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
		Type: s.cfg.Type, InputProperties: s.cfg.Inputs, IsStateful: s.cfg.Stateful,
	}}
	resp, err := s.call(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return extant{}, err
		}
		s.fail(CheckCreate, "%s", reason(err))
		return extant{inputs: s.cfg.Inputs}, nil
	}
	s.pass(CheckCreate)
	return extant{inputs: s.cfg.Inputs, outputs: resp.CreateResourceResponse.OutputProperties}, nil
}

// update returns the resource as pier would record it afterwards: the old
// record when the update failed.
func (s *session) update(ctx context.Context, created extant) (extant, error) {
	req := &schema.Request{UpdateResourceRequest: &schema.UpdateResourceRequest{
		Resource:        s.resource(created),
		InputProperties: s.cfg.UpdateInputs,
	}}
	resp, err := s.call(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return created, err
		}
		s.fail(CheckUpdate, "%s", reason(err))
		return created, nil
	}
	s.pass(CheckUpdate)
	return extant{inputs: s.cfg.UpdateInputs, outputs: resp.UpdateResourceResponse.OutputProperties}, nil
}

// read checks that the resource just created (or updated) is reported as
// existing.
func (s *session) read(ctx context.Context, created extant) error {
	req := &schema.Request{ReadResourceRequest: &schema.ReadResourceRequest{Resource: s.resource(created)}}
	resp, err := s.call(ctx, req)
	switch {
	case err != nil && ctx.Err() != nil:
		return err
	case err != nil:
		s.fail(CheckRead, "%s", reason(err))
	case !resp.ReadResourceResponse.Exists:
		s.fail(CheckRead, "provider says the resource it has just created does not exist (exists: false)")
	default:
		s.pass(CheckRead)
	}
	return nil
}

func (s *session) destroy(ctx context.Context, created extant) error {
	req := &schema.Request{DestroyResourceRequest: &schema.DestroyResourceRequest{Resource: s.resource(created)}}
	if _, err := s.call(ctx, req); err != nil {
		if ctx.Err() != nil {
			return err
		}
		s.fail(CheckDestroy, "%s", reason(err))
		return nil
	}
	s.pass(CheckDestroy)
	return nil
}

func (s *session) resource(r extant) schema.ExtantResource {
	return schema.ExtantResource{Type: s.cfg.Type, InputProperties: r.inputs, OutputProperties: r.outputs}
}

// state reads the state, records an event adding one entry, and checks
// that a second read equals the first with the patch applied.
func (s *session) state(ctx context.Context, created extant) error {
	res := s.resource(created)
	first, err := s.readState(ctx, res)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		s.fail(CheckStateRead, "%s", reason(err))
		return nil
	}
	s.pass(CheckStateRead)

	patch, err := checkPatch(first)
	if err != nil {
		return err
	}
	event := &schema.Request{StateResourceEvent: &schema.StateResourceEvent{
		Resource: res, Event: "pier-provider-check", NixopsVersion: s.cfg.NixopsVersion, Patch: patch,
	}}
	if _, err := s.call(ctx, event); err != nil {
		if ctx.Err() != nil {
			return err
		}
		s.fail(CheckStateEvent, "%s", reason(err))
		return nil
	}
	s.pass(CheckStateEvent)

	second, err := s.readState(ctx, res)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		s.fail(CheckStateReflects, "second read: %s", reason(err))
		return nil
	}
	want, err := applyPatch(first, patch)
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(want, second) {
		s.fail(CheckStateReflects, "state after the event is %s, want %s", compact(second), compact(want))
	} else {
		s.pass(CheckStateReflects)
	}

	// Take the entry out again, so that the state holds nothing of the
	// check's (a state provider may rightly refuse to be destroyed while
	// its state records resources).
	undo := &schema.Request{StateResourceEvent: &schema.StateResourceEvent{
		Resource: res, Event: "pier-provider-check", NixopsVersion: s.cfg.NixopsVersion,
		Patch: schema.Patch{{Op: "remove", Path: patch[0].Path}},
	}}
	if _, err := s.call(ctx, undo); err != nil {
		if ctx.Err() != nil {
			return err
		}
		s.fail(CheckStateEvent, "removing the check's entry %s again: %s", patch[0].Path, reason(err))
	}
	return nil
}

func (s *session) readState(ctx context.Context, res schema.ExtantResource) (map[string]any, error) {
	resp, err := s.call(ctx, &schema.Request{StateResourceReadRequest: &schema.StateResourceReadRequest{Resource: res}})
	if err != nil {
		return nil, err
	}
	return normalise(resp.StateResourceReadResponse.State)
}

// checkPatch adds one entry with a fresh value, so that a provider that
// ignores events cannot pass by accident on a state left by an earlier
// run. It goes under /resources when the state has that object, as pier's
// own events do.
func checkPatch(state map[string]any) (schema.Patch, error) {
	nonce := make([]byte, 8)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("make check nonce: %w", err)
	}
	value, err := json.Marshal(map[string]any{
		"type":             "pier-provider-check",
		"inputProperties":  map[string]any{},
		"outputProperties": map[string]any{"nonce": hex.EncodeToString(nonce)},
	})
	if err != nil {
		return nil, err
	}
	path := "/" + stateEntry
	if _, ok := state["resources"].(map[string]any); ok {
		path = "/resources/" + stateEntry
	}
	return schema.Patch{{Op: "add", Path: path, Value: value}}, nil
}

func applyPatch(state map[string]any, patch schema.Patch) (map[string]any, error) {
	doc, err := json.Marshal(state)
	if err != nil {
		return nil, err
	}
	p, err := json.Marshal(patch)
	if err != nil {
		return nil, err
	}
	decoded, err := jsonpatch.DecodePatch(p)
	if err != nil {
		return nil, fmt.Errorf("decode check patch: %w", err)
	}
	out, err := decoded.Apply(doc)
	if err != nil {
		return nil, fmt.Errorf("apply check patch to the state read: %w", err)
	}
	var m map[string]any
	return m, json.Unmarshal(out, &m)
}

// normalise round-trips a value through JSON so that two documents compare
// by their JSON meaning, not by Go types.
func normalise(v map[string]any) (map[string]any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(data, &m)
}

func compact(v any) string {
	data, _ := json.Marshal(v)
	const limit = 300
	if len(data) > limit {
		return string(data[:limit]) + "…"
	}
	return string(data)
}

// expectError sends a request that the guide says must be refused, and
// passes when the provider answered with an errorResponse and lived.
func (s *session) expectError(ctx context.Context, name, what string, req *schema.CreateResourceRequest) error {
	_, err := s.call(ctx, &schema.Request{CreateResourceRequest: req})
	var re *provider.ResponseError
	switch {
	case err == nil:
		s.fail(name, "provider accepted %s instead of answering with an errorResponse", what)
	case errors.As(err, &re):
		s.pass(name)
	case ctx.Err() != nil:
		return err
	default:
		s.fail(name, "%s must get an errorResponse, but: %s", what, reason(err))
	}
	return nil
}

// call sends one request, starting a process if none is running. When a
// process that already answered dies on this request, the request is tried
// once more on a fresh process, as pier's pool would: if that answers, the
// provider exits after each request, which fails [CheckSeveral] but not
// the check of this request.
func (s *session) call(ctx context.Context, req *schema.Request) (*schema.Response, error) {
	resp, exitedBetween, err := s.try(ctx, req)
	if !exitedBetween {
		return resp, err
	}
	first := err
	resp, _, err = s.try(ctx, req)
	var re *provider.ResponseError
	if (err == nil || errors.As(err, &re)) && s.several == nil {
		s.several = &Result{Name: CheckSeveral, Reason: fmt.Sprintf("provider exited after answering a request, before the next one: %s", reason(first))}
	}
	return resp, err
}

// try sends one request on the current process. It keeps the verdicts
// that span requests: whether a process answered a second request, and
// whether stdout ever held something other than a response. exitedBetween
// reports that the process died on this request after answering others.
func (s *session) try(ctx context.Context, req *schema.Request) (resp *schema.Response, exitedBetween bool, err error) {
	if s.proc == nil {
		p, err := provider.Start(ctx, s.cfg.Provider)
		if err != nil {
			return nil, false, fmt.Errorf("check provider: %w", err)
		}
		s.proc, s.answered = p, 0
	}
	resp, err = s.proc.Call(ctx, s.cfg.Resource, req)
	var re *provider.ResponseError
	if err == nil || errors.As(err, &re) {
		s.answered++
		if s.answered == 2 && s.several == nil {
			s.several = &Result{Name: CheckSeveral, Passed: true}
		}
		return resp, false, err
	}
	var pe *provider.Error
	if errors.As(err, &pe) {
		switch pe.Kind {
		case provider.KindBadOutput, provider.KindTooLarge:
			s.stdout = append(s.stdout, reason(err))
		case provider.KindExited:
			exitedBetween = s.answered > 0
		}
	}
	// The runner has killed a process that misbehaved; start afresh for
	// the next request.
	s.closeProc()
	return nil, exitedBetween, err
}

// exit closes stdin of a live process and waits for a clean exit. If the
// last process died, a fresh one is started for this check.
func (s *session) exit(ctx context.Context) error {
	if s.proc == nil {
		p, err := provider.Start(ctx, s.cfg.Provider)
		if err != nil {
			return fmt.Errorf("check provider: %w", err)
		}
		s.proc = p
	}
	p := s.proc
	s.proc = nil
	// Close kills a provider that outlives its grace period without
	// calling it an error (a deployment goes on), so the time Close took
	// is what shows a kill.
	start := time.Now()
	err := p.Close()
	took := time.Since(start)
	var pe *provider.Error
	if errors.As(err, &pe) && pe.Kind == provider.KindBadOutput {
		// Output after the last response breaks the stdout rule; whether
		// the exit was clean is then a matter of time alone.
		s.stdout = append(s.stdout, reason(err))
		err = nil
	}
	switch {
	case err != nil:
		s.fail(CheckCleanExit, "%s", reason(err))
	case took >= s.cfg.ExitTimeout:
		s.fail(CheckCleanExit, "provider %s did not exit within %s after its stdin was closed, so pier killed it; exit when a read from stdin returns end-of-file", s.cfg.Provider.Executable, s.cfg.ExitTimeout)
	default:
		s.pass(CheckCleanExit)
	}
	return nil
}

func (s *session) closeProc() {
	if s.proc != nil {
		_ = s.proc.Close() // already failed; its error was reported by Call
		s.proc = nil
	}
}

func (s *session) close() { s.closeProc() }

// reason is the text of an error as a check's reason.
func reason(err error) string { return err.Error() }
