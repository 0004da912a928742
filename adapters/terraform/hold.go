package terraform

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/pierhq/pier/schema"
)

// maxHoldRequest caps one line from the host: a validate request carries
// one resource's inputs, which the v0 protocol bounds the same way.
const maxHoldRequest = 64 << 20

// HoldMessageType is the message_type of the first line [Hold] writes.
const HoldMessageType = "tf_hold"

// Hold starts one Terraform provider for a whole pier command and lends it
// to the command's bridges, so that a command starts each provider once,
// reads its schema once, and configures it once, and the bridges' calls run
// concurrently on it as under Terraform.
//
// It speaks JSON lines with the host on in and out. The first line out is
//
//	{"message_type":"tf_hold","schema":SCHEMA,"attach":ATTACHMENT}
//
// SCHEMA is the document `pier tf schema --json` prints; ATTACHMENT is for
// the bridges (`pier adapter terraform --attach`) and holds the TLS key
// that lets them call the provider, so it must stay on pipes. Each line in
// {"configure":true} configures the provider (the first time; later ones
// repeat the outcome) and is answered {"configured":true} or
// {"error":"…"}: the host asks only when it needs the bridges, so a
// command that reads the schema alone never configures. A line
// {"validate":{"type":T,"inputs":{…}}} checks a resource's inputs as
// terraform validate does ([Bridge.Validate]; no configuration needed)
// and is answered {"diagnostics":[…]} (v0 diagnostics, none when valid)
// or {"error":"…"}. When in ends the provider is stopped and Hold
// returns.
func Hold(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	opts.Attach = nil
	b, err := New(ctx, opts)
	if err != nil {
		return err
	}
	defer b.Close()
	s, err := b.providerSchema(ctx)
	if err != nil {
		return err
	}
	att, err := b.client.Attachment(ctx)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	first := struct {
		MessageType string      `json:"message_type"`
		Schema      any         `json:"schema"`
		Attach      *Attachment `json:"attach"`
	}{HoldMessageType, describe(opts.Plugin, s), att}
	if err := enc.Encode(first); err != nil {
		return fmt.Errorf("provider %s: write to the host: %w", b.client.Name(), err)
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, maxHoldRequest)
	for sc.Scan() {
		var req struct {
			Configure bool `json:"configure"`
			Validate  *struct {
				Type   string            `json:"type"`
				Inputs schema.Properties `json:"inputs"`
			} `json:"validate"`
		}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil || (!req.Configure && req.Validate == nil) {
			// Not quoted: a validate request holds inputs, which may be
			// secret.
			return fmt.Errorf("provider %s: the host sent a line that is neither {\"configure\":true} nor {\"validate\":…}", b.client.Name())
		}
		var resp map[string]any
		switch {
		case req.Validate != nil:
			diags, err := b.Validate(ctx, req.Validate.Type, req.Validate.Inputs)
			resp = map[string]any{"diagnostics": diags}
			if err != nil {
				resp = map[string]any{"error": err.Error()}
			}
		default:
			resp = map[string]any{"configured": true}
			if err := b.configure(ctx); err != nil {
				resp = map[string]any{"error": err.Error()}
			}
		}
		if err := enc.Encode(resp); err != nil {
			return fmt.Errorf("provider %s: write to the host: %w", b.client.Name(), err)
		}
	}
	return sc.Err()
}
