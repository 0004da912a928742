package nixsource

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
)

// Options configure a [Source].
type Options struct {
	// Logger receives one Info record per evaluation round; nil discards.
	Logger *slog.Logger
	// NixBin is the nix executable; "nix" (from PATH) when empty.
	NixBin string
	// NixStoreBin is the nix-store executable; when empty, the nix-store
	// next to NixBin if NixBin is a path, else "nix-store" from PATH.
	NixStoreBin string
	// Dir is the working directory of nix; the process's when empty.
	Dir string
	// Warn shows the user a warning about the deployment (an old export
	// shape, say) once; nil sends it to Logger at Warn level.
	Warn func(msg string)
	// ExtraArgs are passed to nix eval before the installable, e.g.
	// "--override-input", "pier", "path:/opt/pier".
	ExtraArgs []string
}

// Source is a deployment described by a Nix flake. It is not safe for
// concurrent use; the engine calls Resolve from one goroutine at a time.
type Source struct {
	installable string
	// file is set when the deployment is a Nix file (--file), not a flake:
	// installable is then the file's absolute path.
	file bool
	// label names what is evaluated in messages: "flake REF#ATTR" or
	// "file PATH".
	label string
	// defaultAttr is set when the reference named no attribute, so that a
	// flake without nixops4 may be read as nixops4Deployments instead;
	// triedLegacy once that was tried, warnedLegacy once pier warned.
	defaultAttr, triedLegacy, warnedLegacy bool
	// declared is the component's pier.providers as of the last round.
	declared []declaredOperations
	// localDir is the flake's directory when it is local, for [Source.localise].
	localDir string
	// localised caches store file paths and their local counterparts.
	localised map[string]string
	opts      Options
	log       *slog.Logger
	round     int
	// realised records store paths known to exist, so that a path is
	// realised once per Source, not once per round.
	realised map[string]bool
	// reads maps each resource that was ready in the last round to the
	// resources whose outputs it read, and knownSums holds a digest of each
	// resource's known outputs in that round. A resource whose reads have
	// the same outputs again evaluates the same way, so the driver need not
	// trace its reads again (see driver.nix, cached).
	reads     map[string][]source.Address
	knownSums map[string][sha256.Size]byte
	// last is the driver's answer in the last round. A round that knows
	// nothing the last round's evaluation could use decodes it again
	// instead of running nix (see [Source.unchanged]): the engine asks
	// again after each apply, and such a round should cost nothing.
	last *driverAnswer
}

// driverAnswer is what one run of the driver printed.
type driverAnswer struct {
	stdout []byte
	traces *traces
	// needed holds every resource whose output some member waited on.
	needed map[string]bool
}

var _ source.Source = (*Source)(nil)

// New returns the source for a flake reference such as ".", "./dir#attr",
// "path:/abs/dir" or "git+file:///repo#attr". The attribute defaults to
// [DefaultAttr]. A relative path resolves against the working directory
// at the time of the call.
func New(ref string, opts Options) (*Source, error) {
	if path, ok := strings.CutPrefix(ref, FileRefPrefix); ok {
		return NewFile(path, opts)
	}
	inst, dir, err := parseRef(ref)
	if err != nil {
		return nil, err
	}
	if opts.NixBin == "" {
		opts.NixBin = "nix"
	}
	if opts.NixStoreBin == "" {
		opts.NixStoreBin = "nix-store"
		if strings.ContainsRune(opts.NixBin, filepath.Separator) {
			opts.NixStoreBin = filepath.Join(filepath.Dir(opts.NixBin), "nix-store")
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	_, attr, _ := strings.Cut(ref, "#")
	return &Source{installable: inst, label: "flake " + inst, defaultAttr: attr == "", localDir: dir, localised: map[string]string{}, opts: opts, log: log, realised: map[string]bool{}}, nil
}

// FileRefPrefix marks a reference that [New] reads as a plain Nix file
// ([NewFile]) rather than a flake, so that a file deployment travels
// wherever a flake reference does (saved plans, sessions). It is pier's
// own; nix has no such scheme.
const FileRefPrefix = "nix-file:"

// NewFile returns a source for a deployment in a plain Nix file, as
// NixOps4's --file (and its nixops4.nix) reads one: the file evaluates to
// the component itself, a flake's nixops4 output without the flake. Its
// relative paths are the file's directory's.
func NewFile(path string, opts Options) (*Source, error) {
	if path == "" {
		return nil, fmt.Errorf("open Nix file: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open Nix file %s: %w", path, err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("open Nix file: %w", err)
	} else if fi.IsDir() {
		return nil, fmt.Errorf("open Nix file %s: is a directory (give the file, e.g. %s)", path, filepath.Join(path, "nixops4.nix"))
	}
	s, err := New("path:"+abs, opts)
	if err != nil {
		return nil, err
	}
	s.installable, s.file, s.label, s.localDir = abs, true, "file "+abs, filepath.Dir(abs)
	return s, nil
}

// Dir is the directory of a local flake, the one holding its flake.nix,
// or "" for a flake that is not on this machine's file system (github:…).
// Relative paths in the deployment (a state_file's name, say) resolve
// against it, as they resolve against --dir for HCL.
func (s *Source) Dir() string { return s.localDir }

func (s *Source) warn(msg string) {
	if s.opts.Warn != nil {
		s.opts.Warn(msg)
		return
	}
	s.log.Warn(msg)
}

// Installable is the flake reference and attribute that nix evaluates.
func (s *Source) Installable() string { return s.installable }

// Resolve evaluates the flake once with the known outputs and returns the
// ready and blocked members. Store paths that ready resources need are
// realised before Resolve returns. When the known outputs differ from the
// last call's only by outputs no member waited on, Resolve answers from
// that evaluation without running nix, and the snapshot's Evaluation is
// nil. A Nix error is an [*EvalError] naming
// the member; members that wait on each other are a [*CycleError].
func (s *Source) Resolve(ctx context.Context, known source.Outputs) (*source.Snapshot, error) {
	start := time.Now()
	sums, err := digestOutputs(known)
	if err != nil {
		return nil, fmt.Errorf("evaluate %s: %w", s.label, err)
	}
	var stdout []byte
	var tr *traces
	var cached map[string]bool
	reuse := s.unchanged(sums)
	if reuse {
		// Every resource ready last round keeps the reads it had.
		cached = make(map[string]bool, len(s.reads))
		for a := range s.reads {
			cached[a] = true
		}
		stdout, tr = s.last.stdout, s.last.traces
	} else {
		s.round++
		cached = s.cachedReads(sums)
		stdout, tr, err = s.runDriver(ctx, known, cached, nil)
		if err != nil {
			return nil, err
		}
	}
	var out evalOutput
	if err := json.Unmarshal(stdout, &out); err != nil {
		return nil, fmt.Errorf("evaluate %s: decode driver result: %w", s.label, err)
	}
	if out.Legacy != nil && !s.warnedLegacy {
		s.warnedLegacy = true
		what := s.label
		if *out.Legacy != "" {
			what += "." + *out.Legacy
		}
		s.warn(what + " is in NixOps4's export shape from before 2026-01-25 (nixops4Deployments.NAME, _type \"nixops4Deployment\", deploymentFunction), which pier still reads but NixOps4 no longer does: export one root component instead, nixops4 = { _type = \"nixops4Component\"; rootFunction = …; } (nixops4.lib.mkRoot)")
	}
	if err := checkDeclared(out.Declared); err != nil {
		return nil, &EvalError{Flake: s.label, Message: err.Error()}
	}
	s.declared = out.Declared
	snap := &source.Snapshot{Providers: map[string]*source.Provider{}}
	positions := map[string]*position{}
	outputs := map[string][]string{}
	contexts := map[*source.Resource]map[string]contextEntry{}
	for _, m := range out.Members {
		addr := addressOf(m.Path)
		if addr == nil {
			return nil, s.rootError(ctx, known, tr)
		}
		mt := tr.member(m.Path)
		positions[addr.String()] = m.Pos
		outputs[addr.String()] = slices.Compact(slices.Sorted(slices.Values(mt.outputs)))
		switch m.Status {
		case "structural":
			b := &source.Blocked{Address: addr, Structural: true, WaitsOn: addresses(mt.needs, nil)}
			snap.Blocked = append(snap.Blocked, b)
		case "blocked":
			b := &source.Blocked{Address: addr, WaitsOn: addresses(mt.needs, nil)}
			if m.Head != "" {
				r, err := s.resource(addr, m, mt, snap.Providers)
				if err != nil {
					return nil, err
				}
				b.Resource = r
			}
			snap.Blocked = append(snap.Blocked, b)
		case "ready":
			r, err := s.resource(addr, m, mt, snap.Providers)
			if err != nil {
				return nil, err
			}
			if cached[addr.String()] {
				r.DependsOn = mergeAddresses(r.DependsOn, s.reads[addr.String()])
			}
			snap.Ready = append(snap.Ready, r)
			contexts[r] = m.Context
		default:
			return nil, fmt.Errorf("evaluate %s: member %s: unknown status %q: this is a bug in pier", s.label, addr, m.Status)
		}
	}
	// A member that is blocked but needed no output threw an error of its
	// own (throw, assert). Evaluate it strictly to let Nix say what it was.
	for _, b := range snap.Blocked {
		if len(b.WaitsOn) == 0 {
			return nil, s.strictError(ctx, known, b.Address, positions[b.Address.String()])
		}
	}
	if c := findCycle(snap.Blocked); c != nil {
		ce := &CycleError{Flake: s.label, Cycle: c}
		for _, a := range c {
			ce.Needs = append(ce.Needs, outputs[a.String()])
		}
		return nil, ce
	}
	for _, r := range snap.Ready {
		if err := s.realise(ctx, r, snap.Providers[r.Provider].Executable, contexts[r]); err != nil {
			return nil, err
		}
	}
	s.reads = make(map[string][]source.Address, len(snap.Ready))
	for _, r := range snap.Ready {
		s.reads[r.Address.String()] = r.DependsOn
	}
	s.knownSums = sums
	if !reuse {
		s.last = &driverAnswer{stdout: stdout, traces: tr, needed: map[string]bool{}}
		for _, mt := range tr.byMember {
			for _, n := range mt.needs {
				s.last.needed[addressOf(n).String()] = true
			}
		}
	}
	d := time.Since(start)
	if reuse {
		s.log.Debug("nix evaluation reused: known outputs unchanged", logkey.Flake, s.installable, logkey.Round, s.round, logkey.Duration, d)
		return snap, nil
	}
	snap.Evaluation = &source.Evaluation{Round: s.round, Duration: d}
	s.log.Info("nix evaluation round", logkey.Flake, s.installable, logkey.Round, s.round, logkey.Duration, d,
		logkey.Ready, len(snap.Ready), logkey.Blocked, len(snap.Blocked))
	return snap, nil
}

// unchanged reports whether the last round's evaluation answers a round
// with these known outputs. That holds when no output known then has
// changed or gone, and no output known now for the first time is one that
// a member was waiting on: evaluation is deterministic, a ready member read
// only outputs known then, and a blocked member stops at the same unknown
// output as before.
func (s *Source) unchanged(sums map[string][sha256.Size]byte) bool {
	if s.last == nil {
		return false
	}
	for k, old := range s.knownSums {
		if cur, ok := sums[k]; !ok || cur != old {
			return false
		}
	}
	for k := range sums {
		if _, had := s.knownSums[k]; !had && s.last.needed[k] {
			return false
		}
	}
	return true
}

// cachedReads lists the resources that were ready in the last round and
// all of whose reads have the same outputs now.
func (s *Source) cachedReads(sums map[string][sha256.Size]byte) map[string]bool {
	cached := map[string]bool{}
next:
	for addr, reads := range s.reads {
		for _, r := range reads {
			k := r.String()
			old, had := s.knownSums[k]
			cur, has := sums[k]
			if had != has || old != cur {
				continue next
			}
		}
		cached[addr] = true
	}
	return cached
}

// digestOutputs hashes each resource's known outputs, so that the next
// round can tell which changed without keeping the engine's map.
func digestOutputs(known source.Outputs) (map[string][sha256.Size]byte, error) {
	sums := make(map[string][sha256.Size]byte, len(known))
	for addr, outs := range known {
		// encoding/json sorts map keys, so equal outputs give equal bytes.
		b, err := json.Marshal(outs)
		if err != nil {
			return nil, fmt.Errorf("encode known outputs of %s: %w", addr, err)
		}
		sums[addr] = sha256.Sum256(b)
	}
	return sums, nil
}

// mergeAddresses is the sorted union of two address lists.
func mergeAddresses(a, b []source.Address) []source.Address {
	var paths [][]string
	for _, l := range [][]source.Address{a, b} {
		for _, x := range l {
			p := make([]string, len(x))
			for i, st := range x {
				p[i] = st.Name
			}
			paths = append(paths, p)
		}
	}
	return addresses(paths, nil)
}

// strictError evaluates one member without tryEval and returns Nix's error.
// Nix 2.8 gives a throw no position, so the error carries the resource's.
func (s *Source) strictError(ctx context.Context, known source.Outputs, addr source.Address, pos *position) error {
	path := make([]string, len(addr))
	for i, st := range addr {
		path[i] = st.Name
	}
	_, _, err := s.runDriver(ctx, known, nil, path)
	var ee *EvalError
	if errors.As(err, &ee) {
		ee.Member = addr
		if pos != nil && !strings.Contains(ee.Message, " at ") {
			ee.Range = source.Range{Filename: s.localise(pos.File), Line: pos.Line, Column: pos.Column}
		}
		return ee
	}
	if err != nil {
		return err
	}
	return &EvalError{Flake: s.label, Member: addr,
		Message: "blocked without waiting on any output, yet evaluates when forced (does the flake use builtins.tryEval on outputValues?)"}
}

// rootError explains a top-level member set that cannot be evaluated.
func (s *Source) rootError(ctx context.Context, known source.Outputs, tr *traces) error {
	needs := addresses(tr.member(nil).needs, nil)
	if len(needs) == 0 {
		_, _, err := s.runDriver(ctx, known, nil, []string{})
		if err != nil {
			return err
		}
		return &EvalError{Flake: s.label, Message: "the deployment's top-level members cannot be listed, yet evaluate when forced"}
	}
	names := make([]string, len(needs))
	for i, a := range needs {
		names[i] = a.String()
	}
	return &EvalError{Flake: s.label,
		Message: fmt.Sprintf("the deployment's top-level members depend on outputs of %s, which cannot exist before the members are known", strings.Join(names, ", "))}
}

// checkDeclared validates a component's pier.providers.
func checkDeclared(list []declaredOperations) error {
	for i, d := range list {
		if d.Executable == "" {
			return fmt.Errorf("pier.providers[%d]: no executable", i)
		}
		for _, op := range d.Operations {
			if _, err := schema.ParseOperation(op); err != nil {
				return fmt.Errorf("pier.providers[%d] (%s): operations: %w", i, d.Executable, err)
			}
		}
	}
	return nil
}

// withDeclared adds to a provider's own operations those pier.providers
// declares for its executable (and args, where an entry gives them), in
// a stable order so that the provider's name does not depend on where an
// operation was declared.
func withDeclared(own []string, executable string, args []string, declared []declaredOperations) []string {
	ops := slices.Clone(own)
	for _, d := range declared {
		if d.Executable != executable || (d.Args != nil && !slices.Equal(*d.Args, args)) {
			continue
		}
		ops = append(ops, d.Operations...)
	}
	if len(ops) == len(own) {
		return own
	}
	slices.Sort(ops)
	return slices.Compact(ops)
}

// resourceHead is the non-input part of a resource declaration.
type resourceHead struct {
	Provider struct {
		// Builtin names an adapter that ships with pier ("local"), a pier
		// extension of the NixOps4 shape: the engine runs it as
		// `pier adapter NAME` with pier's own executable, so a flake needs
		// no path to pier.
		Builtin    string            `json:"builtin"`
		Executable string            `json:"executable"`
		Args       []string          `json:"args"`
		Env        map[string]string `json:"env"`
		Type       string            `json:"type"`
		Operations []string          `json:"operations"`
	} `json:"provider"`
	Type string `json:"type"`
	// State is the state handler's member path, as a list of names or
	// (a pier convenience) a dotted address; null for a stateless resource.
	State json.RawMessage `json:"state"`
	// Lifecycle is the pier extension beside inputs: create_before_destroy,
	// prevent_destroy and ignore_changes (a list of input paths), as in
	// HCL.
	Lifecycle *source.Lifecycle `json:"lifecycle"`
	// Refresh is the pier extension refresh = true: read the recorded
	// object on every plan, as in HCL.
	Refresh bool `json:"refresh"`
}

// resource builds the engine's view of a member's resource and registers
// its provider. Unknown inputs become [source.Unknown].
func (s *Source) resource(addr source.Address, m memberResult, mt *memberTrace, providers map[string]*source.Provider) (*source.Resource, error) {
	r := &source.Resource{Address: addr, Inputs: map[string]any{}}
	if m.Pos != nil {
		r.Range = source.Range{Filename: s.localise(m.Pos.File), Line: m.Pos.Line, Column: m.Pos.Column}
	}
	declErr := func(format string, args ...any) error {
		return &DeclError{Flake: s.label, Resource: addr, Range: r.Range, Err: fmt.Errorf(format, args...)}
	}
	var h resourceHead
	if err := json.Unmarshal([]byte(m.Head), &h); err != nil {
		return nil, declErr("decode provider, type and state: %w", err)
	}
	p := h.Provider
	switch {
	case p.Builtin != "" && (p.Executable != "" || p.Args != nil || p.Env != nil):
		return nil, declErr("provider has both builtin and executable, args or env; give one")
	case p.Builtin == "" && p.Executable == "":
		return nil, declErr("provider has no executable")
	case p.Builtin == "" && p.Type != "stdio":
		return nil, declErr("provider type %q is not supported (only \"stdio\")", p.Type)
	case p.Builtin != "" && p.Type != "" && p.Type != "stdio":
		return nil, declErr("provider type %q is not supported (only \"stdio\")", p.Type)
	case h.Type == "":
		return nil, declErr("no resource type")
	}
	for _, op := range p.Operations {
		if _, err := schema.ParseOperation(op); err != nil {
			return nil, declErr("provider operations: %w", err)
		}
	}
	if p.Builtin == "" {
		p.Operations = withDeclared(p.Operations, p.Executable, p.Args, s.declared)
	}
	r.Type = h.Type
	if p.Builtin != "" {
		r.Provider = "builtin-" + p.Builtin
	} else {
		r.Provider = providerName(p.Executable, p.Args, p.Env, p.Operations)
	}
	if providers[r.Provider] == nil {
		providers[r.Provider] = &source.Provider{
			Name:       r.Provider,
			Builtin:    p.Builtin,
			Executable: p.Executable,
			Args:       p.Args,
			Env:        p.Env,
			Operations: p.Operations,
			Range:      r.Range,
		}
	}
	st, err := stateAddress(h.State)
	if err != nil {
		return nil, declErr("state: %w", err)
	}
	r.State = st
	r.Refresh = h.Refresh
	if h.Lifecycle != nil {
		lc := *h.Lifecycle
		lc.Range = r.Range
		// Paths name inputs as in HCL, inputs.NAME, or as NAME alone.
		lc.IgnoreChanges = nil
		for _, p := range h.Lifecycle.IgnoreChanges {
			lc.IgnoreChanges = append(lc.IgnoreChanges, strings.TrimPrefix(p, "inputs."))
		}
		r.Lifecycle = &lc
	}
	for name, js := range m.Inputs {
		dec := json.NewDecoder(strings.NewReader(js))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, declErr("decode input %s: %w", name, err)
		}
		r.Inputs[name] = v
	}
	for _, name := range m.Unknown {
		r.Inputs[name] = source.Unknown
	}
	r.DependsOn = addresses(mt.reads, addr)
	if len(m.Unknown) > 0 {
		// A partly known resource also follows the resources it waits on.
		// Its reads may be incomplete: blocked members are evaluated in the
		// shared instance, where a read already traced for an earlier
		// member is not traced again.
		r.DependsOn = addresses(append(slices.Clone(mt.reads), mt.needs...), addr)
	}
	return r, nil
}

// stateAddress decodes a resource's state attribute: null, a list of
// member names, or a dotted address.
func stateAddress(raw json.RawMessage) (*source.Address, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var path []string
	if err := json.Unmarshal(raw, &path); err != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, fmt.Errorf("want null, a list of member names or an address, got %s", raw)
		}
		a, err := source.ParseAddress(s)
		if err != nil {
			return nil, err
		}
		return &a, nil
	}
	a := addressOf(path)
	if a == nil {
		return nil, fmt.Errorf("empty member path")
	}
	return &a, nil
}

// providerName names a provider declaration after its executable and a
// hash of everything that distinguishes it, so that equal declarations in
// different resources share one provider and the name is stable across
// rounds and runs.
func providerName(executable string, args []string, env map[string]string, ops []string) string {
	h := sha256.New()
	// Each part is length-prefixed so that no two declarations collide.
	write := func(tag string, xs ...string) {
		fmt.Fprintf(h, "%s%d\x00", tag, len(xs))
		for _, x := range xs {
			fmt.Fprintf(h, "%d:%s", len(x), x)
		}
	}
	write("e", executable)
	write("a", args...)
	for _, k := range slices.Sorted(maps.Keys(env)) {
		write("v", k, env[k])
	}
	write("o", ops...)
	base := filepath.Base(executable)
	// A store path's hash says nothing to a reader; the hash below keeps
	// the name distinct.
	if len(base) > 33 && base[32] == '-' && strings.Trim(base[:32], "0123456789abcdfghijklmnpqrsvwxyz") == "" {
		base = base[33:]
	}
	return base + "-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// addressOf turns a member path into an address; nil for the root.
func addressOf(path []string) source.Address {
	if len(path) == 0 {
		return nil
	}
	a := make(source.Address, len(path))
	for i, n := range path {
		a[i] = source.Step{Name: n}
	}
	return a
}

// addresses turns traced member paths into sorted, distinct addresses,
// leaving out self.
func addresses(paths [][]string, self source.Address) []source.Address {
	seen := map[string]bool{}
	if self != nil {
		seen[self.String()] = true
	}
	var out []source.Address
	for _, p := range paths {
		a := addressOf(p)
		if a == nil || seen[a.String()] {
			continue
		}
		seen[a.String()] = true
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b source.Address) int { return strings.Compare(a.String(), b.String()) })
	return out
}
