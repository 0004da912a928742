package redact

import (
	"context"
	"log/slog"
	"sync"

	"github.com/pierhq/pier/schema/logkey"
)

// This file keeps a resource's sensitive values out of the lines its
// provider writes to stderr while working on it (a program run by exec
// that prints its stdin, a provider that logs its inputs). The final
// error of a failed resource is redacted by [Error]; the lines shown
// live under the resource, in the terminal, --json, the RPC progress and
// the web view, all pass through the engine's logger, so the engine
// redacts them there, by the resource the line is attributed to.

// Secrets holds the texts of each resource's sensitive values, by
// address, for the resources the engine has asked a provider about in
// this command. It is safe for concurrent use: workers register, and the
// providers' stderr readers look up.
type Secrets struct {
	mu     sync.RWMutex
	byAddr map[string][]string
}

// Set records the sensitive texts of the resource at addr (sorted
// longest first, see [SortSecrets]); none forgets nothing.
func (s *Secrets) Set(addr string, secrets []string) {
	if s == nil || len(secrets) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byAddr == nil {
		s.byAddr = map[string][]string{}
	}
	s.byAddr[addr] = secrets
}

// Get returns the sensitive texts recorded for addr.
func (s *Secrets) Get(addr string) []string {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.byAddr[addr]
}

// NewHandler returns a handler that passes every record to next, with
// the sensitive texts secrets holds for the resource it is about replaced
// in its message.
func NewHandler(next slog.Handler, secrets *Secrets) slog.Handler {
	return &redactingHandler{next: next, secrets: secrets}
}

// redactingHandler passes every record to next, with the sensitive texts
// of the resource it is about (its "resource" attribute) replaced in its
// message.
type redactingHandler struct {
	next    slog.Handler
	secrets *Secrets
	// resource is the address carried by attributes added with WithAttrs.
	resource string
}

var _ slog.Handler = (*redactingHandler)(nil)

func (h *redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *redactingHandler) Handle(ctx context.Context, r slog.Record) error {
	addr := h.resource
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == logkey.Resource {
			addr = a.Value.String()
			return false
		}
		return true
	})
	if addr == "" {
		return h.next.Handle(ctx, r)
	}
	secrets := h.secrets.Get(addr)
	if len(secrets) == 0 {
		return h.next.Handle(ctx, r)
	}
	msg := Text(r.Message, secrets)
	if msg == r.Message {
		return h.next.Handle(ctx, r)
	}
	c := slog.NewRecord(r.Time, r.Level, msg, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		c.AddAttrs(a)
		return true
	})
	return h.next.Handle(ctx, c)
}

func (h *redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	for _, a := range attrs {
		if a.Key == logkey.Resource {
			c.resource = a.Value.String()
		}
	}
	c.next = h.next.WithAttrs(attrs)
	return &c
}

func (h *redactingHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.next = h.next.WithGroup(name)
	return &c
}
