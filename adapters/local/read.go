package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"unicode/utf8"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
)

// reader is a resource type that can look at its real object: the read
// operation, for refresh and drift. Each says only what it can know.
type reader interface {
	read(ctx context.Context, res *schema.ExtantResource) (*schema.ReadResourceResponse, error)
}

// importer is a resource type that can adopt an object that already
// exists, by an id of its own.
type importer interface {
	importObject(ctx context.Context, id string) (*schema.ImportResourceResponse, error)
}

var (
	_ providersdk.Reader   = (*Provider)(nil)
	_ providersdk.Importer = (*Provider)(nil)
)

// Read implements [providersdk.Reader].
func (p *Provider) Read(ctx context.Context, req *schema.ReadResourceRequest) (*schema.ReadResourceResponse, error) {
	rt, err := p.lookup(req.Resource.Type)
	if err != nil {
		return nil, err
	}
	r, ok := rt.(reader)
	if !ok {
		return nil, fmt.Errorf("%s has no read: it is a state handler, never recorded, whose state is read with stateResourceRead", req.Resource.Type)
	}
	return r.read(ctx, &req.Resource)
}

// Import implements [providersdk.Importer].
func (p *Provider) Import(ctx context.Context, req *schema.ImportResourceRequest) (*schema.ImportResourceResponse, error) {
	rt, err := p.lookup(req.Type)
	if err != nil {
		return nil, err
	}
	im, ok := rt.(importer)
	if !ok {
		return nil, fmt.Errorf("%s cannot be imported: %s", req.Type, notImportable[req.Type])
	}
	return im.importObject(ctx, req.ID)
}

// notImportable says why a type has no import.
var notImportable = map[string]string{
	"exec":       "a run of a program is not an object that exists to be adopted; declare the resource and let pier run it",
	"memo":       "its value lives only in state, so there is nothing outside pier to adopt",
	"state_file": "it is a state handler, which is never recorded in state; declare it and pier reads the log",
}

// read sees what is on disk: a file gone (exists: false), or contents
// other than recorded, or with a mode set, other permissions (its
// inputs, as they are now). It cannot see a change of owner, nor of mode
// when none is set: the file type does not manage those.
func (t fileType) read(_ context.Context, res *schema.ExtantResource) (*schema.ReadResourceResponse, error) {
	in, mode, err := decodeFileInputs(res.InputProperties)
	if err != nil {
		return nil, err
	}
	contents, ok, err := t.contents(in.Name)
	if err != nil || !ok {
		return &schema.ReadResourceResponse{Exists: false}, err
	}
	// A file that is not UTF-8 is not one pier wrote; it reads as changed
	// (invalid bytes become U+FFFD), and the next apply writes it again.
	now := schema.Properties{"name": in.Name, "contents": contents}
	if mode != nil {
		path, _ := t.p.path(in.Name)
		fi, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("read %q: %w", in.Name, err)
		}
		now["mode"] = in.Mode // the recorded spelling, when it is the same mode
		if perm := fi.Mode().Perm(); perm != *mode {
			now["mode"] = fmt.Sprintf("%04o", perm)
		}
	}
	return &schema.ReadResourceResponse{Exists: true, OutputProperties: schema.Properties{}, InputProperties: now}, nil
}

// importObject adopts the file named id, relative to the deployment
// directory, with its contents as they are.
func (t fileType) importObject(_ context.Context, id string) (*schema.ImportResourceResponse, error) {
	contents, ok, err := t.contents(id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no file %q to import", id)
	}
	if !utf8.ValidString(contents) {
		return nil, fmt.Errorf("import %q: its contents are not UTF-8, and a file's contents input is a string", id)
	}
	return &schema.ImportResourceResponse{InputProperties: schema.Properties{"name": id, "contents": contents}, OutputProperties: schema.Properties{}}, nil
}

// contents reads a file; ok is false when it does not exist.
func (t fileType) contents(name string) (string, bool, error) {
	path, err := t.p.path(name)
	if err != nil {
		return "", false, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read %q: %w", name, err)
	}
	return string(b), true, nil
}

// read cannot look at a run: it happened, and running the program again
// to compare would act, which a read must not. So it reports the run as
// existing, with its recorded stdout: no drift is ever seen.
func (execType) read(_ context.Context, res *schema.ExtantResource) (*schema.ReadResourceResponse, error) {
	var in execInputs
	if err := providersdk.DecodeInputs(res.InputProperties, &in); err != nil {
		return nil, err
	}
	return &schema.ReadResourceResponse{Exists: true, OutputProperties: res.OutputProperties}, nil
}

// read has nothing outside state to look at: the value exists while it is
// recorded, and is what is recorded.
func (memoType) read(_ context.Context, res *schema.ExtantResource) (*schema.ReadResourceResponse, error) {
	var in memoInputs
	if err := providersdk.DecodeInputs(res.InputProperties, &in); err != nil {
		return nil, err
	}
	return &schema.ReadResourceResponse{Exists: true, OutputProperties: res.OutputProperties}, nil
}
