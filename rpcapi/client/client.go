// Package client starts `pier rpcapi` and talks to it: the Go client of
// pier's RPC API, beside the server in rpcapi. It uses go-plugin's client,
// as Terraform's rpcapi clients do, so the process is started with pier's
// cookie, reached over its Unix socket and stopped with it.
//
// The typed stubs of rpcapi/pier1 are exposed as they are; the helpers
// here only collect the plan and apply streams. Start at [Start].
package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/pierhq/pier/rpcapi"
	"github.com/pierhq/pier/rpcapi/pier1"
)

// Options say how to start the server.
type Options struct {
	// Pier is the pier executable.
	Pier string
	// Dir is the server's working directory ("" for this process's).
	Dir string
	// Stderr receives the server's stderr; nil discards it.
	Stderr io.Writer
}

// Client is a connection to one pier rpcapi process.
type Client struct {
	Setup        pier1.SetupClient
	Dependencies pier1.DependenciesClient
	Deployments  pier1.DeploymentsClient
	Inspector    pier1.InspectorClient

	plugin *plugin.Client
}

// Start starts pier rpcapi and connects to it. The caller closes the
// client, which stops the server and every provider it started. Start
// does not handshake: call [Client.Handshake] first.
func Start(opts Options) (*Client, error) {
	cmd := exec.Command(opts.Pier, "rpcapi")
	cmd.Dir = opts.Dir
	stderr := opts.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	pc := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  rpcapi.HandshakeConfig,
		VersionedPlugins: map[int]plugin.PluginSet{rpcapi.ProtocolVersion: {rpcapi.PluginName: &rpcapi.Plugin{}}},
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Stderr:           stderr,
		Logger:           hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: stderr}),
	})
	rc, err := pc.Client()
	if err != nil {
		pc.Kill()
		return nil, fmt.Errorf("start pier rpcapi: %w", err)
	}
	raw, err := rc.Dispense(rpcapi.PluginName)
	if err != nil {
		pc.Kill()
		return nil, fmt.Errorf("start pier rpcapi: %w", err)
	}
	conn, ok := raw.(*grpc.ClientConn)
	if !ok {
		pc.Kill()
		return nil, errors.New("start pier rpcapi: the plugin did not return a gRPC connection: this is a bug in pier")
	}
	return &Client{
		Setup:        pier1.NewSetupClient(conn),
		Dependencies: pier1.NewDependenciesClient(conn),
		Deployments:  pier1.NewDeploymentsClient(conn),
		Inspector:    pier1.NewInspectorClient(conn),
		plugin:       pc,
	}, nil
}

// Close stops the server (asking it first, then killing it after
// go-plugin's grace period) and waits for it.
func (c *Client) Close() { c.plugin.Kill() }

// Exited reports whether the server process has exited.
func (c *Client) Exited() bool { return c.plugin.Exited() }

// Handshake negotiates capabilities; it must be the first call.
func (c *Client) Handshake(ctx context.Context, caps *pier1.ClientCapabilities) (*pier1.ServerCapabilities, error) {
	resp, err := c.Setup.Handshake(ctx, &pier1.Handshake_Request{Capabilities: caps})
	if err != nil {
		return nil, err
	}
	return resp.Capabilities, nil
}

// PlanResult is a plan stream, collected.
type PlanResult struct {
	Progress    []*pier1.Progress
	Changes     []*pier1.PlannedChange
	Diagnostics []*pier1.Diagnostic
	Complete    *pier1.PlanDeployment_Complete
}

// Plan streams a plan to its end.
func (c *Client) Plan(ctx context.Context, req *pier1.PlanDeployment_Request) (*PlanResult, error) {
	stream, err := c.Deployments.PlanDeployment(ctx, req)
	if err != nil {
		return nil, err
	}
	r := &PlanResult{}
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return r, err
		}
		switch e := ev.Event.(type) {
		case *pier1.PlanDeployment_Event_Progress:
			r.Progress = append(r.Progress, e.Progress)
		case *pier1.PlanDeployment_Event_PlannedChange:
			r.Changes = append(r.Changes, e.PlannedChange)
		case *pier1.PlanDeployment_Event_Diagnostic:
			r.Diagnostics = append(r.Diagnostics, e.Diagnostic)
		case *pier1.PlanDeployment_Event_Complete:
			r.Complete = e.Complete
		}
	}
	if r.Complete == nil {
		return r, errors.New("plan stream ended without a complete event")
	}
	return r, nil
}

// ApplyResult is an apply stream, collected.
type ApplyResult struct {
	Progress    []*pier1.Progress
	Applied     []*pier1.AppliedChange
	Diagnostics []*pier1.Diagnostic
	Complete    *pier1.ApplyPlan_Complete
}

// Apply streams the apply of a plan handle to its end.
func (c *Client) Apply(ctx context.Context, planHandle int64) (*ApplyResult, error) {
	stream, err := c.Deployments.ApplyPlan(ctx, &pier1.ApplyPlan_Request{PlanHandle: planHandle})
	if err != nil {
		return nil, err
	}
	r := &ApplyResult{}
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return r, err
		}
		switch e := ev.Event.(type) {
		case *pier1.ApplyPlan_Event_Progress:
			r.Progress = append(r.Progress, e.Progress)
		case *pier1.ApplyPlan_Event_AppliedChange:
			r.Applied = append(r.Applied, e.AppliedChange)
		case *pier1.ApplyPlan_Event_Diagnostic:
			r.Diagnostics = append(r.Diagnostics, e.Diagnostic)
		case *pier1.ApplyPlan_Event_Complete:
			r.Complete = e.Complete
		}
	}
	if r.Complete == nil {
		return r, errors.New("apply stream ended without a complete event")
	}
	return r, nil
}
