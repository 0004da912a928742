package tfclient

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/pierhq/pier/adapters/terraform/internal/tfvalue"
	"github.com/pierhq/pier/adapters/terraform/internal/unarygrpc"
	"github.com/zclconf/go-cty/cty"
)

// TestAttach: clients attached to one provider share its schema, resume
// the TLS session of the process that started it, call it concurrently,
// and leave it running when they close; a key that is not the one the
// provider was started with is refused, and so are a forged session and
// a provider that is not the pinned one.
func TestAttach(t *testing.T) {
	t.Parallel()
	owner, _ := start(t, Options{Path: providerBin(t, "terraform-provider-time")})
	att, err := owner.Attachment(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// It travels as JSON on a pipe: it must survive the trip.
	data, err := json.Marshal(att)
	if err != nil {
		t.Fatal(err)
	}
	var back Attachment
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.SessionTicket) == 0 || len(back.SessionState) == 0 {
		t.Fatal("the attachment carries no TLS session to resume")
	}

	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			c, err := Attach(&back, "terraform-provider-time", nil)
			if err != nil {
				t.Errorf("attach %d: %v", i, err)
				return
			}
			if !c.resumed {
				t.Errorf("attach %d: made a full TLS handshake instead of resuming the attachment's session", i)
			}
			s, err := c.Schema(t.Context())
			if err != nil || s.ResourceTypes["time_static"] == nil {
				t.Errorf("attach %d: schema from the attachment: %v, %v", i, s, err)
			}
			// A call that needs no configuration, as the holder has not
			// configured the provider here.
			if _, err := c.ValidateResourceConfig(t.Context(), "time_static", nullConfig(t, c, "time_static")); err != nil {
				t.Errorf("attach %d: validate: %v", i, err)
			}
			if err := c.Close(); err != nil {
				t.Errorf("attach %d: close: %v", i, err)
			}
		})
	}
	wg.Wait()
	// Closing the attached clients stopped nothing.
	if _, err := owner.ValidateResourceConfig(t.Context(), "time_static", nullConfig(t, owner, "time_static")); err != nil {
		t.Fatalf("the provider stopped when an attached client closed: %v", err)
	}

	// Another client certificate is not the one the provider trusts.
	other, otherPEM, otherKey, err := newCertificate()
	if err != nil {
		t.Fatal(err)
	}
	// Without the attachment's session (a secret, as the key is), and
	// with a session that is not the provider's.
	forged := back
	forged.ClientCert, forged.ClientKey = otherPEM, otherKey
	forged.SessionTicket, forged.SessionState = nil, nil
	badTicket := forged
	badTicket.SessionTicket = append([]byte(nil), back.SessionTicket...)
	badTicket.SessionTicket[len(badTicket.SessionTicket)/2] ^= 0xff
	badTicket.SessionState = back.SessionState
	for name, a := range map[string]*Attachment{"another certificate": &forged, "a forged ticket": &badTicket} {
		if c, err := Attach(a, "terraform-provider-time", nil); err == nil {
			_, err = c.ValidateResourceConfig(t.Context(), "time_static", nullConfig(t, c, "time_static"))
			c.Close()
			if err == nil {
				t.Fatalf("%s: a client with a certificate the provider never saw was served", name)
			}
		}
	}
	// The session resumes only with the provider pinned: a bridge told
	// another server certificate makes a full handshake, which fails.
	elsewhere := back
	elsewhere.ServerCert = other.Certificate[0]
	if c, err := Attach(&elsewhere, "terraform-provider-time", nil); err == nil {
		c.Close()
		t.Fatal("a bridge pinning another certificate attached to the provider")
	}
	// The description carries the key for bridges only: owner-only.
	if _, err := (&Client{name: "x", attached: &unarygrpc.Conn{}}).Attachment(t.Context()); err == nil || !strings.Contains(err.Error(), "only the process") {
		t.Errorf("Attachment of a client that does not own its provider: %v", err)
	}
}

// nullConfig is a configuration of typ with every attribute null, msgpack.
func nullConfig(t *testing.T, c *Client, typ string) []byte {
	t.Helper()
	s, err := c.Schema(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ty := s.ResourceTypes[typ].Block.ImpliedType()
	vals := map[string]cty.Value{}
	for n, at := range ty.AttributeTypes() {
		vals[n] = cty.NullVal(at)
	}
	data, err := tfvalue.Marshal(cty.ObjectVal(vals), ty)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
