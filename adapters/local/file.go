package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
)

// fileType writes a file. It keeps no outputs, so it works stateless (it
// is rewritten on every apply) as well as stateful.
type fileType struct{ p *Provider }

type fileInputs struct {
	Name     string `json:"name"`
	Contents string `json:"contents"`
}

func (t fileType) create(_ context.Context, req *schema.CreateResourceRequest) (schema.Properties, error) {
	var in fileInputs
	if err := providersdk.DecodeInputs(req.InputProperties, &in); err != nil {
		return nil, err
	}
	return schema.Properties{}, t.write(in)
}

// update writes the new file. When the name changed, the old file is
// removed, as destroying it would have.
func (t fileType) update(_ context.Context, req *schema.UpdateResourceRequest) (schema.Properties, error) {
	var in, old fileInputs
	if err := providersdk.DecodeInputs(req.InputProperties, &in); err != nil {
		return nil, err
	}
	if err := providersdk.DecodeInputs(req.Resource.InputProperties, &old); err != nil {
		return nil, fmt.Errorf("previous inputs: %w", err)
	}
	if err := t.write(in); err != nil {
		return nil, err
	}
	if old.Name != in.Name {
		oldPath, err := t.p.path(old.Name)
		newPath, _ := t.p.path(in.Name)
		if err == nil && !sameFile(oldPath, newPath) {
			if err := t.remove(old.Name); err != nil {
				return nil, fmt.Errorf("remove the previous file: %w", err)
			}
		}
	}
	return schema.Properties{}, nil
}

// destroy removes the file; one that is already gone is fine.
func (t fileType) destroy(_ context.Context, res *schema.ExtantResource) error {
	var in fileInputs
	if err := providersdk.DecodeInputs(res.InputProperties, &in); err != nil {
		return err
	}
	return t.remove(in.Name)
}

func (t fileType) write(in fileInputs) error {
	path, err := t.p.path(in.Name)
	if err != nil {
		return err
	}
	// 0666 before the umask, like any program creating a file.
	if err := os.WriteFile(path, []byte(in.Contents), 0o666); err != nil {
		return fmt.Errorf("write %q: %w", in.Name, err)
	}
	return nil
}

func (t fileType) remove(name string) error {
	path, err := t.p.path(name)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %q: %w", name, err)
	}
	return nil
}

// sameFile reports whether two names refer to one existing file, so that
// renaming "a" to "./a" does not delete what was just written.
func sameFile(a, b string) bool {
	ia, err := os.Stat(a)
	if err != nil {
		return false
	}
	ib, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(ia, ib)
}
