package unarygrpc_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/adapters/terraform/internal/tfplugin5"
	"github.com/pierhq/pier/adapters/terraform/internal/unarygrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"
)

// server is a real grpc-go server speaking the Terraform plugin protocol
// 5, whose PlanResourceChange does what the request's type name says.
type server struct {
	tfplugin5.UnimplementedProviderServer
	// held receives the context of each "hold" call, which then waits
	// for it to end and reports why on ended.
	held  chan context.Context
	ended chan error
}

func (s *server) PlanResourceChange(ctx context.Context, r *tfplugin5.PlanResourceChange_Request) (*tfplugin5.PlanResourceChange_Response, error) {
	switch r.TypeName {
	case "echo": // the proposed state back, with the same again as private
		v := r.GetProposedNewState().GetMsgpack()
		return &tfplugin5.PlanResourceChange_Response{PlannedState: &tfplugin5.DynamicValue{Msgpack: v}, PlannedPrivate: v}, nil
	case "fail":
		return nil, status.Error(codes.InvalidArgument, "100% wrong:\nnot «this»")
	case "deadline": // how long the server was given, in ms
		d, ok := ctx.Deadline()
		if !ok {
			return nil, status.Error(codes.FailedPrecondition, "no deadline reached the server")
		}
		ms := strconv.FormatInt(time.Until(d).Milliseconds(), 10)
		return &tfplugin5.PlanResourceChange_Response{PlannedPrivate: []byte(ms)}, nil
	case "hold":
		s.held <- ctx
		<-ctx.Done()
		s.ended <- ctx.Err()
		return nil, ctx.Err()
	}
	return nil, status.Error(codes.Unimplemented, r.TypeName)
}

// serve starts the server on a unix socket, with opts, and returns a
// Conn to it.
func serve(t *testing.T, cfg unarygrpc.Config, opts ...grpc.ServerOption) (*server, *grpc.Server, *unarygrpc.Conn) {
	t.Helper()
	l, err := net.Listen("unix", t.TempDir()+"/s")
	if err != nil {
		t.Fatal(err)
	}
	srv := &server{held: make(chan context.Context, 1), ended: make(chan error, 1)}
	gs := grpc.NewServer(append([]grpc.ServerOption{grpc.MaxRecvMsgSize(64 << 20)}, opts...)...)
	tfplugin5.RegisterProviderServer(gs, srv)
	go func() { _ = gs.Serve(l) }()
	t.Cleanup(gs.Stop)
	nc, err := net.Dial("unix", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, err := unarygrpc.New(t.Context(), nc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return srv, gs, c
}

func plan(ctx context.Context, c *unarygrpc.Conn, typ string, v []byte) (*tfplugin5.PlanResourceChange_Response, error) {
	return tfplugin5.NewProviderClient(c).PlanResourceChange(ctx, &tfplugin5.PlanResourceChange_Request{
		TypeName: typ, ProposedNewState: &tfplugin5.DynamicValue{Msgpack: v},
	})
}

// TestInvoke: calls of every size come back whole, one after another,
// including messages beyond both ends' flow-control windows, so that
// window updates flow both ways.
func TestInvoke(t *testing.T) {
	t.Parallel()
	_, _, c := serve(t, unarygrpc.Config{MaxRecvMsgSize: 64 << 20})
	for name, size := range map[string]int{"empty": 0, "small": 100, "one frame": 16 << 10, "past the server's window": 200 << 10, "past this end's window": 9 << 20} {
		v := bytes.Repeat([]byte{byte(size)}, size)
		for i := range 3 {
			r, err := plan(t.Context(), c, "echo", v)
			if err != nil {
				t.Fatalf("%s, call %d: %v", name, i, err)
			}
			if !bytes.Equal(r.GetPlannedState().GetMsgpack(), v) || !bytes.Equal(r.GetPlannedPrivate(), v) {
				t.Fatalf("%s, call %d: the answer differs from the request", name, i)
			}
		}
	}
}

// TestStatus: the server's status errors arrive as grpc-go gives them,
// code and message, percent-encoding undone.
func TestStatus(t *testing.T) {
	t.Parallel()
	_, _, c := serve(t, unarygrpc.Config{})
	tests := map[string]struct {
		typ  string
		code codes.Code
		msg  string
	}{
		"error":         {"fail", codes.InvalidArgument, "100% wrong:\nnot «this»"},
		"unimplemented": {"nothing", codes.Unimplemented, "nothing"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := plan(t.Context(), c, tc.typ, nil)
			s, _ := status.FromError(err)
			if diff := cmp.Diff([]any{tc.code, tc.msg}, []any{s.Code(), s.Message()}); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
	// A message larger than allowed is refused, and the connection goes on.
	_, _, small := serve(t, unarygrpc.Config{MaxRecvMsgSize: 1 << 20})
	if _, err := plan(t.Context(), small, "echo", make([]byte, 2<<20)); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("an answer over MaxRecvMsgSize: %v, want ResourceExhausted", err)
	}
	if _, err := plan(t.Context(), small, "echo", []byte("x")); err != nil {
		t.Errorf("the call after a refused answer: %v", err)
	}
}

// TestDeadline: a call's deadline reaches the server as grpc-timeout, and
// a call that outlasts it ends with DeadlineExceeded.
func TestDeadline(t *testing.T) {
	t.Parallel()
	srv, _, c := serve(t, unarygrpc.Config{})
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	r, err := plan(ctx, c, "deadline", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ms, _ := strconv.Atoi(string(r.GetPlannedPrivate())); ms < int((59 * time.Minute).Milliseconds()) {
		t.Errorf("the server was given %s ms, want about an hour", r.GetPlannedPrivate())
	}
	short, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if _, err := plan(short, c, "hold", nil); status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("a call past its deadline: %v, want DeadlineExceeded", err)
	}
	<-srv.held
	// The server's own timer and this end's cancellation (RST_STREAM, as
	// grpc-go sends) race to end the server's side: either will do.
	if err := <-srv.ended; !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		t.Errorf("the server's context ended with %v, want its deadline or a cancellation", err)
	}
}

// TestConcurrent: while one call waits for its answer, others run and
// finish, and a cancelled call ends at once, its server side cancelled too;
// the connection then carries on.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	srv, _, c := serve(t, unarygrpc.Config{})
	ctx, cancel := context.WithCancel(t.Context())
	held := make(chan error, 1)
	go func() {
		_, err := plan(ctx, c, "hold", nil)
		held <- err
	}()
	<-srv.held // the held call is in, and its caller reads the connection
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			v := []byte(strings.Repeat(strconv.Itoa(i), 1000*i))
			if r, err := plan(t.Context(), c, "echo", v); err != nil || !bytes.Equal(r.GetPlannedState().GetMsgpack(), v) {
				t.Errorf("call %d beside a held one: %v", i, err)
			}
		})
	}
	wg.Wait()
	cancel()
	if err := <-held; status.Code(err) != codes.Canceled {
		t.Errorf("the cancelled call: %v, want Canceled", err)
	}
	if err := <-srv.ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the server's context ended with %v, want a cancellation", err)
	}
	if _, err := plan(t.Context(), c, "echo", []byte("after")); err != nil {
		t.Errorf("a call after a cancelled one: %v", err)
	}
}

// TestIdle: a connection left idle answers the server's keepalive pings
// (the idle reader), so the server keeps it, and the next call works; a
// call made while the idle reader reads takes over from it.
func TestIdle(t *testing.T) {
	t.Parallel()
	// grpc-go's shortest keepalive: a ping after 1 s of silence, and the
	// connection closed unless something arrives within 1 s after.
	_, _, c := serve(t, unarygrpc.Config{IdleRead: 100 * time.Millisecond},
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: time.Second, Timeout: time.Second}))
	for i := range 2 {
		// Nothing to wait for but the server's timer: a silence three
		// times its ping interval.
		time.Sleep(3 * time.Second)
		if _, err := plan(t.Context(), c, "echo", []byte("x")); err != nil {
			t.Fatalf("call %d after an idle spell: %v", i, err)
		}
	}
}

// TestServerGone: calls on a connection the server closed fail as
// Unavailable, and so do later ones.
func TestServerGone(t *testing.T) {
	t.Parallel()
	srv, gs, c := serve(t, unarygrpc.Config{})
	held := make(chan error, 1)
	go func() {
		_, err := plan(t.Context(), c, "hold", nil)
		held <- err
	}()
	<-srv.held
	gs.Stop() // closes the connection under the held call
	if err := <-held; status.Code(err) != codes.Unavailable {
		t.Errorf("the call the server dropped: %v, want Unavailable", err)
	}
	if _, err := plan(t.Context(), c, "echo", nil); status.Code(err) != codes.Unavailable {
		t.Errorf("a call after the server left: %v, want Unavailable", err)
	}
	if err := c.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		t.Errorf("close: %v", err)
	}
}
