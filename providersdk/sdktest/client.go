package sdktest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
)

// Client is the host side of a handler served over pipes. Its methods may be
// called from several goroutines; calls are serialised, because the protocol
// allows one request in flight per process.
type Client struct {
	mu  sync.Mutex
	in  *io.PipeWriter // the handler's stdin
	out *bufio.Reader  // the handler's stdout
	ops []schema.Operation

	cancel context.CancelFunc
	done   chan struct{} // closed when ServeIO has returned
	err    error         // ServeIO's result, set before done is closed

	closeOnce sync.Once
	closeErr  error
}

// Start serves h with opts on a new goroutine and returns a client for it.
// The test's cleanup closes the client and reports ServeIO's error, if any.
func Start(tb testing.TB, h providersdk.Handler, opts providersdk.Options) *Client {
	tb.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		in:     inW,
		out:    bufio.NewReader(outR),
		ops:    providersdk.Operations(h),
		cancel: cancel,
		done:   make(chan struct{}),
	}
	go func() {
		c.err = providersdk.ServeIO(ctx, h, inR, outW, opts)
		// Unblock a Call waiting for a response that will never come.
		outW.CloseWithError(fmt.Errorf("provider stopped serving: %v", c.err))
		inR.CloseWithError(errors.New("provider stopped serving"))
		close(c.done)
	}()
	tb.Cleanup(func() {
		if err := c.Close(); err != nil {
			tb.Errorf("sdktest: %v", err)
		}
	})
	return c
}

// Call sends req and returns the response. Numbers in the response decode
// as json.Number, so they are exactly what the handler sent. An error means
// the transport failed or the response broke the schema; an errorResponse
// is a response, not an error.
func (c *Client) Call(req *schema.Request) (*schema.Response, error) {
	line, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	out, err := c.CallLine(line)
	if err != nil {
		return nil, err
	}
	if err := schema.ValidateResponse(out, c.ops); err != nil {
		return nil, fmt.Errorf("response to %s: %w", req.Kind(), err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var resp schema.Response
	if err := dec.Decode(&resp); err != nil {
		return nil, fmt.Errorf("decode response to %s: %w", req.Kind(), err)
	}
	return &resp, nil
}

// CallLine writes line, which need not be valid JSON, plus a newline, and
// returns the response line without its newline. Use it to test how a
// handler's serving loop treats malformed input.
func (c *Client) CallLine(line []byte) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	frame := append(bytes.Clone(line), '\n')
	if _, err := c.in.Write(frame); err != nil {
		return nil, fmt.Errorf("write request: %w", err)
	}
	out, err := c.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("read response: %w", err)
	}
	return bytes.TrimSuffix(out, []byte("\n")), nil
}

// Close closes the handler's stdin, as a host does to stop a provider, and
// waits for ServeIO to return. It returns ServeIO's error, which is nil for
// a clean exit. Calling Close again returns the same result.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		_ = c.in.Close() // a PipeWriter closes without error
		<-c.done
		c.cancel()
		c.closeErr = c.err
	})
	return c.closeErr
}
