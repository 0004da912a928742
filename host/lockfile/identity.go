package lockfile

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/sumdb/dirhash"

	"github.com/pierhq/pier/host/filehash"
	"github.com/pierhq/pier/host/source"
)

// Kind says how a provider is identified.
type Kind int

// The kinds of provider identity.
const (
	KindUnknown Kind = iota
	// KindBuiltin is a provider that ships inside pier; it is not locked.
	KindBuiltin
	// KindPackage is a Terraform provider package found by source and
	// version, locked by h1:.
	KindPackage
	// KindExecutable is a file locked by sha256:.
	KindExecutable
	// KindStorePath is an executable inside the Nix store, locked by its
	// store path.
	KindStorePath
)

func (k Kind) String() string {
	switch k {
	case KindBuiltin:
		return "builtin"
	case KindPackage:
		return "terraform package"
	case KindExecutable:
		return "executable"
	case KindStorePath:
		return "nix store path"
	}
	return "unknown"
}

// Entry is one provider block of the lock file.
type Entry struct {
	// Key is the block label: the source address of a Terraform package,
	// the declaration name otherwise.
	Key  string
	Kind Kind
	// Version of a Terraform package.
	Version string
	// Constraints are the version constraints the declaration gave for a
	// Terraform package ("~> 0.14"), recorded as Terraform records them;
	// informative: Version is what is checked.
	Constraints string
	// Hashes are "scheme:value" strings (h1:, sha256:). A provider matches
	// when its current hash is any one of them, as in Terraform, where a
	// lock may list one hash per platform.
	Hashes []string
	// Executable is the path as declared, for executables; Terraform says
	// whether it is a Terraform provider given by path.
	Executable string
	Terraform  bool
	// StorePath is /nix/store/HASH-NAME, for KindStorePath.
	StorePath string
}

// Identify computes what a provider declaration runs. dir is the
// deployment directory: relative paths are recorded relative to it.
func Identify(p *source.Provider, dir string) (*Entry, error) {
	switch {
	case p.Builtin != "":
		return &Entry{Key: p.Name, Kind: KindBuiltin}, nil
	case p.Source != "":
		// The declaration names a package; Terraform is the executable
		// found inside it.
		h, err := PackageHash(filepath.Dir(p.Terraform))
		if err != nil {
			return nil, fmt.Errorf("provider %s: hash package %s: %w", p.Name, filepath.Dir(p.Terraform), err)
		}
		return &Entry{Key: p.Source, Kind: KindPackage, Version: p.Version, Constraints: p.Constraints, Hashes: []string{h}}, nil
	}
	path, isTF := p.Executable, false
	if p.Terraform != "" {
		path, isTF = p.Terraform, true
	}
	if path == "" {
		return nil, fmt.Errorf("provider %s declares no executable", p.Name)
	}
	full, err := lookPath(path, dir)
	if err != nil {
		return nil, fmt.Errorf("provider %s: %w", p.Name, err)
	}
	e := &Entry{Key: p.Name, Executable: relative(path, dir), Terraform: isTF}
	if sp := storePath(full); sp != "" {
		e.Kind, e.StorePath = KindStorePath, sp
		return e, nil
	}
	h, err := FileHash(full)
	if err != nil {
		return nil, fmt.Errorf("provider %s: %w", p.Name, err)
	}
	e.Kind, e.Hashes = KindExecutable, []string{h}
	return e, nil
}

// PackageHash is Terraform's h1: hash of an unpacked provider package
// directory: the Go modules directory hash, version 1 (a SHA-256 over the
// sorted lines "SHA256HEX  NAME\n" of every file, base64, prefixed
// "h1:"), with symlinks to the directory resolved first, as Terraform
// does. It is dirhash.HashDir(dir, "", dirhash.Hash1), computed here so
// that each file's SHA-256 comes from [filehash], which does not read
// the provider binary again while it is unchanged (a test checks the
// two agree).
func PackageHash(dir string) (string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	files, err := dirhash.DirFiles(real, "")
	if err != nil {
		return "", err
	}
	slices.Sort(files)
	h := sha256.New()
	for _, name := range files {
		if strings.Contains(name, "\n") {
			return "", fmt.Errorf("hash package %s: file name %q has a newline", real, name)
		}
		sum, err := filehash.SHA256(filepath.Join(real, filepath.FromSlash(name)))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s  %s\n", sum, name)
	}
	return "h1:" + base64.StdEncoding.EncodeToString(h.Sum(nil)), nil
}

// FileHash is "sha256:HEX" of a file's content. An executable hashed
// before and unchanged since is not read again ([filehash]).
func FileHash(path string) (string, error) {
	sum, err := filehash.SHA256(path)
	if err != nil {
		return "", fmt.Errorf("hash executable: %w", err)
	}
	return "sha256:" + sum, nil
}

// lookPath finds an executable as the engine will run it: a path with a
// slash as is (already absolute from the HCL loader), a bare name in PATH.
func lookPath(path, dir string) (string, error) {
	if strings.ContainsRune(path, '/') {
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Errorf("find executable: %w", err)
		}
		return path, nil
	}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, path)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("find executable %q: not in PATH: %w", path, fs.ErrNotExist)
}

// storePath returns the /nix/store/HASH-NAME prefix of path, or "".
func storePath(path string) string {
	const store = "/nix/store/"
	if !strings.HasPrefix(path, store) {
		return ""
	}
	name, _, _ := strings.Cut(path[len(store):], "/")
	if name == "" {
		return ""
	}
	return store + name
}

// relative records path relative to dir when it lies below it, so a lock
// file holds the same text on every checkout.
func relative(path, dir string) string {
	if !filepath.IsAbs(path) || dir == "" {
		return path
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(rel)
}
