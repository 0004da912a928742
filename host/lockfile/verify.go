package lockfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/pierhq/pier/host/source"
)

// MismatchError is a provider that is not the program its lock names.
type MismatchError struct {
	Provider string // declaration name
	Key      string // lock file block
	Expected []string
	Actual   string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("provider %s does not match %s (provider %q): expected %s, actual %s; "+
		"if the change is the one you reviewed, run pier providers lock --upgrade",
		e.Provider, Name, e.Key, strings.Join(e.Expected, " or "), e.Actual)
}

// UnlockedError is a provider the lock file does not list.
type UnlockedError struct {
	Provider string
	Key      string
}

func (e *UnlockedError) Error() string {
	return fmt.Sprintf("provider %s is not in %s (it would be locked as %q); run pier providers lock to record it", e.Provider, Name, e.Key)
}

// Verify checks a declaration against the lock. It returns the current
// identity, and a [*MismatchError] or [*UnlockedError] when it does not
// match. Built-in providers always match.
func (f *File) Verify(p *source.Provider, dir string) (*Entry, error) {
	cur, err := Identify(p, dir)
	if err != nil {
		return nil, err
	}
	if cur.Kind == KindBuiltin {
		return cur, nil
	}
	locked := f.Entries[cur.Key]
	if locked == nil {
		return cur, &UnlockedError{Provider: p.Name, Key: cur.Key}
	}
	if err := match(p.Name, locked, cur); err != nil {
		return cur, err
	}
	return cur, nil
}

func match(name string, locked, cur *Entry) error {
	switch {
	case cur.Kind == KindStorePath:
		if locked.StorePath != cur.StorePath {
			exp := locked.StorePath
			if exp == "" {
				exp = strings.Join(locked.Hashes, " or ")
			}
			return &MismatchError{Provider: name, Key: cur.Key, Expected: []string{exp}, Actual: cur.StorePath}
		}
		return nil
	case cur.Kind == KindPackage && locked.Version != cur.Version:
		return &MismatchError{Provider: name, Key: cur.Key, Expected: []string{"version " + locked.Version}, Actual: "version " + cur.Version}
	}
	for _, h := range cur.Hashes {
		if slices.Contains(locked.Hashes, h) {
			return nil
		}
	}
	exp := locked.Hashes
	if len(exp) == 0 && locked.StorePath != "" {
		exp = []string{locked.StorePath}
	}
	return &MismatchError{Provider: name, Key: cur.Key, Expected: exp, Actual: strings.Join(cur.Hashes, ", ")}
}

// Mode says what to do with a provider the lock file does not list.
type Mode int

// The modes.
const (
	// ModeWarn runs an unlocked provider and warns.
	ModeWarn Mode = iota
	// ModeStrict refuses it.
	ModeStrict
	// ModeOff checks nothing (pier providers lock uses it to read the
	// deployment).
	ModeOff
)

// ParseMode parses --lock: "warn" (the default), "strict" or "off".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "warn":
		return ModeWarn, nil
	case "strict":
		return ModeStrict, nil
	case "off":
		return ModeOff, nil
	}
	return ModeWarn, fmt.Errorf("--lock %q: want warn, strict or off", s)
}

// Source checks every provider a deployment source declares against a
// lock before the engine sees it, so no provider starts unchecked: the
// engine starts only providers declared in a snapshot. A Nix source
// declares providers in rounds; each is checked once, when it first
// appears.
type Source struct {
	Source source.Source
	Lock   *File
	Dir    string
	Mode   Mode
	// Warn receives one message per unlocked provider (ModeWarn), or,
	// when NoFile says there is no lock file at all, one message per
	// round naming them all.
	Warn   func(msg string)
	NoFile bool

	checked map[string]bool
}

// StateHandlers forwards the wrapped source's list (see
// [source.StateHandlerLister]); it is a hint, and starts nothing itself.
func (s *Source) StateHandlers() []source.StateHandler {
	if l, ok := s.Source.(source.StateHandlerLister); ok {
		return l.StateHandlers()
	}
	return nil
}

// WatchHandlers forwards to the wrapped source (see
// [source.HandlerWatcher]). The handlers it reports are not checked
// against the lock file yet: the engine reads early only those of
// built-in providers, which the lock file does not cover.
func (s *Source) WatchHandlers(f func(*source.Resource)) {
	if w, ok := s.Source.(source.HandlerWatcher); ok {
		w.WatchHandlers(f)
	}
}

var (
	_ source.Source        = (*Source)(nil)
	_ source.HandlersFirst = (*Source)(nil)
)

// SetSchemaSensitive passes [source.SchemaSensitive] on to the checked
// source, when it has it.
func (s *Source) SetSchemaSensitive(provider, typ string, paths []string) bool {
	if inner, ok := s.Source.(source.SchemaSensitive); ok {
		return inner.SetSchemaSensitive(provider, typ, paths)
	}
	return false
}

// ResolveHandlers forwards to the wrapped source (see
// [source.HandlersFirst]) and checks the snapshot's providers as Resolve
// does. A check that fails reports false: the Resolve that follows
// reports it, in its place, and the snapshot starts nothing unchecked.
func (s *Source) ResolveHandlers(ctx context.Context) (*source.Snapshot, bool) {
	hf, ok := s.Source.(source.HandlersFirst)
	if !ok {
		return nil, false
	}
	snap, ok := hf.ResolveHandlers(ctx)
	if !ok || s.Mode == ModeOff {
		return snap, ok
	}
	if err := s.check(snap); err != nil {
		return nil, false
	}
	return snap, true
}

// Resolve implements [source.Source].
func (s *Source) Resolve(ctx context.Context, known source.Outputs) (*source.Snapshot, error) {
	snap, err := s.Source.Resolve(ctx, known)
	if err != nil || s.Mode == ModeOff {
		return snap, err
	}
	if err := s.check(snap); err != nil {
		return nil, err
	}
	return snap, nil
}

// check verifies each provider of snap not checked yet.
func (s *Source) check(snap *source.Snapshot) error {
	if s.checked == nil {
		s.checked = map[string]bool{}
	}
	names := slices.Sorted(maps.Keys(snap.Providers))
	var unlocked []string
	for _, n := range names {
		if s.checked[n] {
			continue
		}
		_, err := s.Lock.Verify(snap.Providers[n], s.Dir)
		if errors.Is(err, fs.ErrNotExist) {
			// Nothing to start, so nothing runs unchecked: the engine
			// names the missing executable if it needs the provider.
			continue
		}
		if ue, ok := err.(*UnlockedError); ok && s.Mode == ModeWarn {
			if s.Warn != nil && !s.NoFile {
				s.Warn(ue.Error() + " (--lock=strict refuses it)")
			}
			unlocked = append(unlocked, n)
			err = nil
		}
		if err != nil {
			return err
		}
		s.checked[n] = true
	}
	if s.NoFile && len(unlocked) > 0 && s.Warn != nil {
		s.Warn(fmt.Sprintf("there is no %s, so providers %s run unchecked; run pier providers lock to record them (--lock=strict refuses unlocked providers)", Name, strings.Join(unlocked, ", ")))
	}
	return nil
}

// Lock returns f updated for decls: entries added for unlocked
// providers. Entries that no longer match are replaced when upgrade is
// set and reported as a [*MismatchError] otherwise. Entries of providers
// no longer declared are dropped, as Terraform drops them.
func (f *File) Lock(decls map[string]*source.Provider, dir string, upgrade bool) (*File, error) {
	out := New()
	out.Modules = maps.Clone(f.Modules) // pins are pier modules update's
	names := slices.Sorted(maps.Keys(decls))
	for _, n := range names {
		cur, err := Identify(decls[n], dir)
		if err != nil {
			return nil, err
		}
		if cur.Kind == KindBuiltin {
			continue
		}
		if old := f.Entries[cur.Key]; old != nil && !upgrade {
			if err := match(n, old, cur); err != nil {
				return nil, err
			}
			// Keep constraints recorded by hand or by Terraform when the
			// declaration gives an exact version.
			if cur.Constraints == "" {
				cur.Constraints = old.Constraints
			}
			// Keep hashes recorded for other platforms.
			cur.Hashes = append(slices.Clone(old.Hashes), cur.Hashes...)
			slices.Sort(cur.Hashes)
			cur.Hashes = slices.Compact(cur.Hashes)
		}
		out.Entries[cur.Key] = cur
	}
	return out, nil
}
