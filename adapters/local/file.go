package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
)

// fileType writes a file. It keeps no outputs, so it works stateless (it
// is rewritten on every apply) as well as stateful.
type fileType struct{ p *Provider }

type fileInputs struct {
	Name     string `json:"name"`
	Contents string `json:"contents"`
	// Mode is the file's permission bits in octal ("0644", "600"), set
	// exactly (the umask does not apply); "" leaves them to the umask
	// for a new file and untouched for an existing one.
	Mode string `json:"mode,omitempty"`
}

// decodeFileInputs decodes a file's inputs and checks its mode, so that
// a bad mode fails at plan (preview) as at apply.
func decodeFileInputs(props schema.Properties) (fileInputs, *fs.FileMode, error) {
	var in fileInputs
	if err := providersdk.DecodeInputs(props, &in); err != nil {
		return in, nil, err
	}
	if in.Mode == "" {
		return in, nil, nil
	}
	m, err := parseMode(in.Mode)
	if err != nil {
		return in, nil, &providersdk.InputError{Field: "mode", Problem: err.Error()}
	}
	return in, &m, nil
}

// parseMode reads an octal permission string: three or four octal
// digits, permission bits only (setuid, setgid and sticky are refused:
// a file pier writes has no use for them).
func parseMode(s string) (fs.FileMode, error) {
	if len(s) < 3 || len(s) > 4 {
		return 0, fmt.Errorf("mode %q is not three or four octal digits such as \"0644\"", s)
	}
	n, err := strconv.ParseUint(s, 8, 32)
	if err != nil {
		return 0, fmt.Errorf("mode %q is not three or four octal digits such as \"0644\"", s)
	}
	if n > 0o777 {
		return 0, fmt.Errorf("mode %q sets more than permission bits; use 0000 to 0777", s)
	}
	return fs.FileMode(n), nil
}

func (t fileType) create(_ context.Context, req *schema.CreateResourceRequest) (schema.Properties, error) {
	in, mode, err := decodeFileInputs(req.InputProperties)
	if err != nil {
		return nil, err
	}
	return schema.Properties{}, t.write(in, mode)
}

// update writes the new file. When the name changed, the old file is
// removed, as destroying it would have.
func (t fileType) update(_ context.Context, req *schema.UpdateResourceRequest) (schema.Properties, error) {
	in, mode, err := decodeFileInputs(req.InputProperties)
	if err != nil {
		return nil, err
	}
	var old fileInputs
	if err := providersdk.DecodeInputs(req.Resource.InputProperties, &old); err != nil {
		return nil, fmt.Errorf("previous inputs: %w", err)
	}
	if err := t.write(in, mode); err != nil {
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

// dirMode is the mode of the parent directories a write creates, before
// the umask: that of mkdir -p and of Terraform local_file's default
// directory_permission. A file's own mode protects its contents; the
// directories only hold it.
const dirMode fs.FileMode = 0o777

func (t fileType) write(in fileInputs, mode *fs.FileMode) error {
	path, err := t.p.path(in.Name)
	if err != nil {
		return err
	}
	// Missing parents are created, as local_file creates them. Existing
	// ones are left as they are: MkdirAll changes no mode.
	if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		return fmt.Errorf("write %q: create its directory: %w", in.Name, err)
	}
	if mode == nil {
		// 0666 before the umask, like any program creating a file.
		if err := os.WriteFile(path, []byte(in.Contents), 0o666); err != nil {
			return fmt.Errorf("write %q: %w", in.Name, err)
		}
		return nil
	}
	if err := writeWithMode(path, []byte(in.Contents), *mode); err != nil {
		return fmt.Errorf("write %q: %w", in.Name, err)
	}
	return nil
}

// writeWithMode writes contents to path with exactly mode. The mode is
// set before the contents are written, so that contents meant to be
// private are never readable under the looser mode of a file that was
// already there, nor under the umask's.
func writeWithMode(path string, contents []byte, mode fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(contents); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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
