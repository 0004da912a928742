// Package planfile is the saved-plan format: what `pier plan -out FILE`
// and the RPC service's Plan write, and what `pier apply FILE` and
// `pier show FILE` read. One package, so that every writer and reader
// agree on one version.
package planfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/plan"
)

// Version is bumped whenever the saved plan's shape changes: 2 added
// provider fingerprints and absolute deployment paths, 3 the source
// fingerprint, the plan controls and deposed objects, 4 the execution
// graph (host/execgraph) that apply runs and the providers' executable
// hashes, 5 the content hash over the rest of the file.
const Version = 5

// Plan is a saved plan: the execution graph apply carries out, what it
// checks first, and how to load the deployment for what the graph leaves
// to run time. It may hold variable values, inputs and provider
// configurations, so it is written 0600.
type Plan struct {
	FormatVersion int    `json:"format_version"`
	PierVersion   string `json:"pier_version"`
	Deployment    Ref    `json:"deployment"`
	Destroy       bool   `json:"destroy,omitempty"`
	// Controls are the plan's --replace and --target, for humans reading
	// the file: the graph holds what apply uses of them.
	Controls plan.Options `json:"controls,omitempty"`
	// Source fingerprints the deployment's files; see [Fingerprint].
	Source string `json:"source,omitempty"`
	// Providers are the checks of the providers the graph starts.
	Providers map[string]engine.ProviderCheck `json:"providers,omitempty"`
	// Graph is the execution graph, as engine.EncodeGraph writes it.
	Graph json.RawMessage `json:"graph"`
	// Changes and Warnings are the plan as pier plan printed it, for pier
	// show.
	Changes  []plan.PlannedChange `json:"changes"`
	Warnings []string             `json:"warnings,omitempty"`
	// ContentSHA256 is the hash of everything above in its canonical form
	// (see [contentHash]), set by Encode and checked by Read.
	ContentSHA256 string `json:"content_sha256,omitempty"`
}

// contentKey is ContentSHA256's member name.
const contentKey = "content_sha256"

// Ref says where a saved plan's deployment came from, by absolute paths:
// pier apply FILE may run from another directory.
type Ref struct {
	Dir      string   `json:"dir,omitempty"`
	Flake    string   `json:"flake,omitempty"`
	Vars     []string `json:"vars,omitempty"`
	VarFiles []string `json:"var_files,omitempty"`
	// EnvVars are the variable values the environment set when the plan
	// was made (PIER_VAR_NAME, TF_VAR_NAME), by variable name: applying
	// the plan uses these, not the environment it runs in.
	EnvVars map[string]string `json:"env_vars,omitempty"`
}

// New makes the saved form of p, for the deployment ref names, with the
// controls it was planned with; eng is the engine that planned it, which
// checks the providers.
func New(pierVersion string, ref Ref, controls plan.Options, eng *engine.Engine, p *plan.Plan) (*Plan, error) {
	g, err := p.Graph()
	if err != nil {
		return nil, err
	}
	raw, err := plan.EncodeGraph(g)
	if err != nil {
		return nil, err
	}
	checks, err := eng.ProviderChecks(g)
	if err != nil {
		return nil, err
	}
	fp, err := Fingerprint(ref)
	if err != nil {
		return nil, err
	}
	return &Plan{FormatVersion: Version, PierVersion: pierVersion, Destroy: p.Destroy, Graph: raw, Deployment: ref,
		Controls: controls, Source: fp, Providers: checks, Changes: p.Planned(), Warnings: p.Warnings}, nil
}

// ExecGraph decodes the saved execution graph, checking its shape.
func (sp *Plan) ExecGraph() (*execgraph.Graph, error) {
	return plan.DecodeGraph(sp.Graph)
}

// Encode returns the bytes of a saved plan file, with the content hash
// that Read checks.
func (sp *Plan) Encode() ([]byte, error) {
	c := *sp
	c.ContentSHA256 = ""
	data, err := json.Marshal(&c)
	if err != nil {
		return nil, err
	}
	if c.ContentSHA256, err = contentHash(data); err != nil {
		return nil, err
	}
	data, err = json.MarshalIndent(&c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// contentHash is the hex SHA-256 of a plan file's canonical form: every
// member but content_sha256, decoded (numbers exact) and encoded again
// compactly, members sorted. Whitespace and member order do not change
// it; any other edit, to the graph apply runs or the changes pier show
// prints, does. It is a content hash and not a signature: a plan made on
// one machine applies on another, so no key is involved, and it is the
// file's 0600 mode that keeps other users from rewriting a plan and its
// hash together.
func contentHash(data []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return "", err
	}
	delete(m, contentKey)
	canon, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// ErrContentChanged is returned (wrapped) by Read for a plan file whose
// content does not match its content hash.
var ErrContentChanged = errors.New("its content does not match its content_sha256: the file was changed or damaged after pier plan wrote it; make the plan again")

// Write writes sp to path. A path that names nothing yet, or a regular
// file, gets a new file that pier creates: the plan is written to a
// temporary file (mode 0600) in the same directory, fsynced, and renamed
// over path, so that a reader sees the old plan or the new one and never
// part of one, and a file that was there keeps its content and mode until
// it is replaced. A FIFO or a character device, directly or through a
// symbolic link (a pipe to another program, /dev/stdout), is written
// through as it is: its mode is not changed, since pier did not create it.
// Anything else is refused, before anything is written: a symbolic link
// to a file (replacing it would cut the link, writing through it would
// overwrite a file pier did not create), a directory, a socket or a block
// device.
func (sp *Plan) Write(path string) error {
	data, err := sp.Encode()
	if err != nil {
		return err
	}
	if err := write(path, data); err != nil {
		return fmt.Errorf("write plan file %s: %w", path, err)
	}
	return nil
}

func write(path string, data []byte) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return replace(path, data)
	case err != nil:
		return err
	case fi.Mode().IsRegular():
		return replace(path, data)
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("it is a symbolic link that cannot be followed: %w", err)
		}
		if !writeThrough(target.Mode()) {
			return fmt.Errorf("it is a symbolic link to %s; name the file itself, which pier replaces with a new file", describe(target.Mode()))
		}
	case !writeThrough(fi.Mode()):
		return fmt.Errorf("it is %s; name a regular file", describe(fi.Mode()))
	}
	return through(path, data)
}

// writeThrough reports whether a plan is written through a file of this
// mode rather than replacing it: streams that hand it on.
func writeThrough(m fs.FileMode) bool {
	return m&fs.ModeNamedPipe != 0 || m&fs.ModeCharDevice != 0
}

func describe(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0:
		return "a block device"
	}
	return "a " + m.Type().String() + " file"
}

// through writes data into an existing FIFO or character device, opened
// without creating or truncating anything; the file is checked again once
// open, so that one swapped in after the check is left alone.
func through(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && !writeThrough(fi.Mode()) {
		err = fmt.Errorf("it changed to %s while it was opened; nothing was written", describe(fi.Mode()))
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// replace writes data to a new file beside path and renames it over path.
func replace(path string, data []byte) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*") // mode 0600
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Read reads a saved plan, refusing another format version and a file
// whose content hash does not match: what pier show prints and what pier
// apply runs are then the plan pier plan made.
func Read(path string) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read plan file: %w", err)
	}
	sp, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("read plan file %s: %w", path, err)
	}
	return sp, nil
}

// Decode reads a saved plan's bytes, as [Read] does.
func Decode(data []byte) (*Plan, error) {
	var sp Plan
	if err := json.Unmarshal(data, &sp); err != nil {
		return nil, err
	}
	if sp.FormatVersion != Version || len(sp.Graph) == 0 {
		return nil, fmt.Errorf("format version %d is not %d; make the plan again with this pier", sp.FormatVersion, Version)
	}
	sum, err := contentHash(data)
	if err != nil {
		return nil, err
	}
	if sp.ContentSHA256 != sum {
		return nil, ErrContentChanged
	}
	return &sp, nil
}
