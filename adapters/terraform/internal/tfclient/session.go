package tfclient

import (
	"crypto/tls"
	"log/slog"
	"sync"

	"github.com/pierhq/pier/schema/logkey"
)

// Bridges attach to a provider by TLS session resumption: the process that
// started the provider made the one full handshake, verifying the
// provider's certificate (a P-521 key, whose signature check was the
// largest part of a bridge's start), and hands its session on in the
// [Attachment]. A bridge that resumes it is authenticated to the provider
// as that process was, by the client certificate the provider was started
// to trust, and knows the provider by the session's secret, which only the
// provider (from its ticket) and the holder of the Attachment have: the
// same mutual TLS, without a certificate check per connection. Resumption
// keeps an ephemeral key exchange (Go offers only psk_dhe_ke), so each
// connection still has keys of its own. When the provider refuses the
// session, crypto/tls falls back to a full handshake, certificates and
// all.

// sessionCache is the starting process's tls.ClientSessionCache: it keeps
// the last session the provider gave its connection, for
// [sessionCache.resumption]. Sessions of a failed handshake are never
// put.
type sessionCache struct {
	mu      sync.Mutex
	session *tls.ClientSessionState
}

var _ tls.ClientSessionCache = (*sessionCache)(nil)

// Get returns nothing: the starting process makes one connection, and
// resumes nothing itself.
func (c *sessionCache) Get(string) (*tls.ClientSessionState, bool) { return nil, false }

func (c *sessionCache) Put(_ string, cs *tls.ClientSessionState) {
	if cs == nil {
		return
	}
	c.mu.Lock()
	c.session = cs
	c.mu.Unlock()
}

// resumption is the kept session as an [Attachment] carries it, or nils
// when there is none (the provider sends no tickets, or TLS 1.2).
func (c *sessionCache) resumption() (ticket, state []byte) {
	if c == nil {
		return nil, nil
	}
	c.mu.Lock()
	cs := c.session
	c.mu.Unlock()
	if cs == nil {
		return nil, nil
	}
	ticket, ss, err := cs.ResumptionState()
	if err != nil || ss == nil {
		return nil, nil
	}
	data, err := ss.Bytes()
	if err != nil {
		return nil, nil
	}
	return ticket, data
}

// attachedSession is an attaching bridge's tls.ClientSessionCache: it
// offers the one session of its Attachment.
type attachedSession struct{ cs *tls.ClientSessionState }

func (s attachedSession) Get(string) (*tls.ClientSessionState, bool) { return s.cs, true }
func (s attachedSession) Put(string, *tls.ClientSessionState)        {}

// resumeSession is the session cache an attaching connection offers a's
// session from; nil, a full handshake, when a carries none or one that
// does not parse.
func resumeSession(a *Attachment, log *slog.Logger) tls.ClientSessionCache {
	if len(a.SessionTicket) == 0 || len(a.SessionState) == 0 {
		return nil
	}
	state, err := tls.ParseSessionState(a.SessionState)
	if err != nil {
		log.Debug("the attachment's TLS session does not parse; making a full handshake", logkey.Error, err)
		return nil
	}
	cs, err := tls.NewResumptionState(a.SessionTicket, state)
	if err != nil {
		log.Debug("the attachment's TLS session cannot be resumed; making a full handshake", logkey.Error, err)
		return nil
	}
	return attachedSession{cs}
}
