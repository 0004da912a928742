// Command go-dir is an example pier resource provider written in Go with
// [providersdk]. Resource type "dir" is a directory with a permission mode:
//
//	inputs  {path: string, mode?: string (octal, default "0755")}
//	outputs {path: string (absolute)}
//
// It works with or without state (creating is idempotent) and implements the
// optional destroy operation, which removes the directory if it is empty.
// Build it with `go build ./examples/providers/go-dir` and declare it with
// operations = ["destroy"]; see README.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
)

const resourceType = "dir"

// inputs are the input properties of a "dir"; DecodeInputs rejects any
// other field, as the protocol requires.
type inputs struct {
	Path string `json:"path"`
	Mode string `json:"mode,omitempty"`
}

type outputs struct {
	Path string `json:"path"`
}

// provider implements providersdk.Handler and providersdk.Destroyer. It keeps
// nothing between requests: everything it needs arrives in each request.
type provider struct{}

var (
	_ providersdk.Handler   = provider{}
	_ providersdk.Destroyer = provider{}
)

func (provider) Create(_ context.Context, req *schema.CreateResourceRequest) (*schema.CreateResourceResponse, error) {
	out, err := ensure(req.Type, req.InputProperties)
	if err != nil {
		return nil, err
	}
	return &schema.CreateResourceResponse{OutputProperties: out}, nil
}

func (provider) Update(_ context.Context, req *schema.UpdateResourceRequest) (*schema.UpdateResourceResponse, error) {
	out, err := ensure(req.Resource.Type, req.InputProperties)
	if err != nil {
		return nil, err
	}
	// A new path is a new directory: remove the old one, as destroy would.
	if old, ok := req.Resource.OutputProperties["path"].(string); ok && old != out["path"] {
		if err := removeDir(old); err != nil {
			return nil, err
		}
	}
	return &schema.UpdateResourceResponse{OutputProperties: out}, nil
}

func (provider) Destroy(_ context.Context, req *schema.DestroyResourceRequest) (*schema.DestroyResourceResponse, error) {
	if err := checkType(req.Resource.Type); err != nil {
		return nil, err
	}
	path, ok := req.Resource.OutputProperties["path"].(string)
	if !ok {
		var in inputs
		if err := providersdk.DecodeInputs(req.Resource.InputProperties, &in); err != nil {
			return nil, err
		}
		path = in.Path
	}
	if err := removeDir(path); err != nil {
		return nil, err
	}
	return &schema.DestroyResourceResponse{}, nil
}

func checkType(t string) error {
	if t != resourceType {
		return fmt.Errorf("unknown resource type %q (this provider supports: %s)", t, resourceType)
	}
	return nil
}

// ensure makes the directory exist with the requested mode and returns its
// outputs. Running it twice is harmless, so stateless use is fine.
func ensure(typ string, props schema.Properties) (schema.Properties, error) {
	if err := checkType(typ); err != nil {
		return nil, err
	}
	var in inputs
	if err := providersdk.DecodeInputs(props, &in); err != nil {
		return nil, err
	}
	if in.Path == "" {
		return nil, errors.New(`input field "path" must not be empty`)
	}
	mode := fs.FileMode(0o755)
	if in.Mode != "" {
		m, err := strconv.ParseUint(in.Mode, 8, 32)
		if err != nil || m > 0o7777 {
			return nil, fmt.Errorf(`input field "mode": %q is not an octal permission mode like "0755"`, in.Mode)
		}
		mode = fs.FileMode(m)
	}
	path, err := filepath.Abs(in.Path)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", in.Path, err)
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, err
	}
	// Chmod after MkdirAll: the umask would otherwise narrow the mode.
	if err := os.Chmod(path, mode); err != nil {
		return nil, err
	}
	return providersdk.EncodeOutputs(outputs{Path: path})
}

// removeDir removes an empty directory. A directory that is already gone
// counts as removed, so that destroy can be retried; one with contents is
// refused rather than deleting files pier did not create.
func removeDir(path string) error {
	err := os.Remove(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
		return fmt.Errorf("remove %s: the directory is not empty; empty it first", path)
	}
	return err
}

func main() {
	// SIGTERM stops serving; SIGINT is ignored because pier, not the
	// terminal, decides when a provider stops (it closes stdin).
	signal.Ignore(os.Interrupt)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	log := providersdk.Logger()
	if err := providersdk.Serve(ctx, provider{}, providersdk.Options{Logger: log}); err != nil {
		log.Error("serve", logkey.Error, err)
		stop()
		os.Exit(1)
	}
}
