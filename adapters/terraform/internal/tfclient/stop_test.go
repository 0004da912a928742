package tfclient

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
)

// sleepApply plans a ten-minute time_sleep on c and returns the request
// that would create it: an apply that only a stop ends early.
func sleepApply(t *testing.T, c *Client) *ApplyRequest {
	t.Helper()
	ctx := t.Context()
	s, err := c.Schema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	encode := func(v cty.Value, ty cty.Type) []byte {
		t.Helper()
		b, err := ctymsgpack.Marshal(v, ty)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	pty := s.Provider.Block.ImpliedType()
	if diags, err := c.ConfigureProvider(ctx, encode(cty.NullVal(pty), pty)); err != nil || diags.HasErrors() {
		t.Fatalf("configure: %v %v", err, diags)
	}
	ty := s.ResourceTypes["time_sleep"].Block.ImpliedType()
	attrs := map[string]cty.Value{}
	for name, aty := range ty.AttributeTypes() {
		attrs[name] = cty.NullVal(aty)
	}
	attrs["create_duration"] = cty.StringVal("10m")
	config := encode(cty.ObjectVal(attrs), ty)
	plan, err := c.PlanResourceChange(ctx, &PlanRequest{TypeName: "time_sleep", Prior: encode(cty.NullVal(ty), ty), Proposed: config, Config: config})
	if err != nil || plan.Diagnostics.HasErrors() {
		t.Fatalf("plan: %v %v", err, plan.Diagnostics)
	}
	return &ApplyRequest{TypeName: "time_sleep", Prior: encode(cty.NullVal(ty), ty), Planned: plan.Planned, Config: config, PlannedPrivate: plan.PlannedPrivate}
}

// TestApplyAfterCancel: an apply whose context has ended is not sent; it
// would outlast the context and create what the caller gave up on.
func TestApplyAfterCancel(t *testing.T) {
	t.Parallel()
	c, _ := start(t, Options{Path: providerBin(t, "terraform-provider-time")})
	req := sleepApply(t, c)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := c.ApplyResourceChange(ctx, req); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "apply resource change") {
		t.Errorf("apply after cancel: %v, want the cancellation", err)
	}
	if n := c.stops.Load(); n != 0 {
		t.Errorf("%d stop requests for a call never sent", n)
	}
}

// TestStopOvertakesApply: the caller's context ends as the apply is on
// its way, and the stop request reaches the provider first. A provider
// stops only the calls it is running, so the bridge must ask again, or
// the apply runs its ten minutes and the bridge gives up on its answer.
func TestStopOvertakesApply(t *testing.T) {
	t.Parallel()
	c, _ := start(t, Options{Path: providerBin(t, "terraform-provider-time")})
	req := sleepApply(t, c)
	ctx, cancel := context.WithCancel(t.Context())
	err := c.call(ctx, "apply resource change", func(ctx context.Context) error {
		cancel()
		for c.stops.Load() == 0 { // the first stop has been answered
			select {
			case <-t.Context().Done():
				return t.Context().Err()
			case <-time.After(time.Millisecond):
			}
		}
		actx, cancelApply := outlast(ctx, applyGrace)
		defer cancelApply()
		_, err := c.proto.applyResourceChange(actx, req)
		return err
	})
	// The stopped sleep answers (time_sleep reports its interruption in
	// diagnostics); without the second request, the grace would end first.
	if err != nil {
		t.Errorf("apply: %v, want the answer of a sleep stopped by a second stop request", err)
	}
	if n := c.stops.Load(); n < 2 {
		t.Errorf("%d stop requests, want at least 2", n)
	}
}
