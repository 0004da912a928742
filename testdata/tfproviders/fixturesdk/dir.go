package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// secretFile holds the sensitive "secret" attribute inside a managed
// directory, readable by its owner only.
const secretFile = ".secret"

// dirSpec is a managed directory as the resource describes it. The
// directory is owned whole: entries it does not describe are removed on apply
// and show up as drift on read.
type dirSpec struct {
	Name     string
	Mode     string
	Files    []fileSpec
	Links    []linkSpec
	Manifest *manifestSpec // nil: no manifest block
	Secret   string        // "": no secret file
}

type fileSpec struct {
	Name, Content, Mode string
}

type linkSpec struct {
	Name, Target string
}

// manifestSpec asks for a file listing every file and link name.
type manifestSpec struct {
	Name   string
	Format string // "lines" or "json"
}

// checkName rejects directory paths that would leave the root.
func checkName(p string) error {
	if p == "" {
		return errors.New("name is empty")
	}
	if !filepath.IsLocal(p) {
		return fmt.Errorf("name %q is not a local path below the root (absolute or contains ..)", p)
	}
	return nil
}

// checkEntry rejects entry names that are not a single path element.
func checkEntry(p string) error {
	if p == "" || p == "." || p == ".." || strings.ContainsRune(p, '/') {
		return fmt.Errorf("entry name %q must be one path element", p)
	}
	if p == secretFile {
		return fmt.Errorf("entry name %q is reserved for the secret attribute", p)
	}
	return nil
}

// parseMode parses a four-digit octal permission string such as "0644".
// Exactly four digits, because Read reports modes that way and any other
// spelling would show as a difference on every plan.
func parseMode(s string) (fs.FileMode, error) {
	if len(s) != 4 {
		return 0, fmt.Errorf("mode %q is not four octal digits such as 0644", s)
	}
	n, err := strconv.ParseUint(s, 8, 32)
	if err != nil {
		return 0, fmt.Errorf("mode %q is not an octal number", s)
	}
	if n > 0o777 {
		return 0, fmt.Errorf("mode %q has bits beyond 0777", s)
	}
	return fs.FileMode(n), nil
}

func formatMode(m fs.FileMode) string { return fmt.Sprintf("%04o", uint32(m.Perm())) }

// filesHash is content_sha256: a hash over file names and contents in name
// order, so it does not depend on the order of the file blocks.
func filesHash(files []fileSpec) string {
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, func(a, b fileSpec) int { return strings.Compare(a.Name, b.Name) })
	h := sha256.New()
	for _, f := range sorted {
		fmt.Fprintf(h, "%d:%s%d:%s", len(f.Name), f.Name, len(f.Content), f.Content)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// manifestContent lists the file and link names, sorted.
func manifestContent(s dirSpec) ([]byte, error) {
	var names []string
	for _, f := range s.Files {
		names = append(names, f.Name)
	}
	for _, l := range s.Links {
		names = append(names, l.Name)
	}
	slices.Sort(names)
	switch s.Manifest.Format {
	case "lines":
		if len(names) == 0 {
			return nil, nil
		}
		return []byte(strings.Join(names, "\n") + "\n"), nil
	case "json":
		if names == nil {
			names = []string{}
		}
		return json.Marshal(names)
	default:
		return nil, fmt.Errorf("manifest format %q is neither lines nor json", s.Manifest.Format)
	}
}

// validate checks a spec before anything touches the disk.
func (s dirSpec) validate() error {
	if err := checkName(s.Name); err != nil {
		return err
	}
	if _, err := parseMode(s.Mode); err != nil {
		return err
	}
	seen := map[string]bool{}
	claim := func(n string) error {
		if err := checkEntry(n); err != nil {
			return err
		}
		if seen[n] {
			return fmt.Errorf("entry name %q is used twice", n)
		}
		seen[n] = true
		return nil
	}
	for _, f := range s.Files {
		if err := claim(f.Name); err != nil {
			return err
		}
		if _, err := parseMode(f.Mode); err != nil {
			return fmt.Errorf("file %s: %w", f.Name, err)
		}
	}
	for _, l := range s.Links {
		if err := claim(l.Name); err != nil {
			return err
		}
	}
	if s.Manifest != nil {
		if err := claim(s.Manifest.Name); err != nil {
			return fmt.Errorf("manifest: %w", err)
		}
	}
	return nil
}

// applyDir makes the directory below root match s exactly.
func applyDir(root *os.Root, s dirSpec) error {
	if err := s.validate(); err != nil {
		return err
	}
	mode, _ := parseMode(s.Mode) // validated above
	if err := root.MkdirAll(s.Name, 0o755); err != nil {
		return fmt.Errorf("create directory %s: %w", s.Name, err)
	}
	if err := root.Chmod(s.Name, mode); err != nil {
		return fmt.Errorf("chmod directory %s: %w", s.Name, err)
	}
	dir, err := root.OpenRoot(s.Name)
	if err != nil {
		return fmt.Errorf("open directory %s: %w", s.Name, err)
	}
	defer dir.Close()

	want := map[string]bool{}
	for _, f := range s.Files {
		want[f.Name] = true
	}
	for _, l := range s.Links {
		want[l.Name] = true
	}
	if s.Manifest != nil {
		want[s.Manifest.Name] = true
	}
	if s.Secret != "" {
		want[secretFile] = true
	}
	entries, err := fs.ReadDir(dir.FS(), ".")
	if err != nil {
		return fmt.Errorf("list directory %s: %w", s.Name, err)
	}
	for _, e := range entries {
		if !want[e.Name()] {
			if err := dir.RemoveAll(e.Name()); err != nil {
				return fmt.Errorf("remove %s/%s: %w", s.Name, e.Name(), err)
			}
		}
	}

	for _, f := range s.Files {
		perm, _ := parseMode(f.Mode) // validated above
		if err := writeRegular(dir, f.Name, []byte(f.Content), perm); err != nil {
			return fmt.Errorf("file %s/%s: %w", s.Name, f.Name, err)
		}
	}
	for _, l := range s.Links {
		if target, err := dir.Readlink(l.Name); err == nil && target == l.Target {
			continue
		}
		if err := dir.RemoveAll(l.Name); err != nil {
			return fmt.Errorf("link %s/%s: %w", s.Name, l.Name, err)
		}
		if err := dir.Symlink(l.Target, l.Name); err != nil {
			return fmt.Errorf("link %s/%s: %w", s.Name, l.Name, err)
		}
	}
	if s.Manifest != nil {
		b, err := manifestContent(s)
		if err != nil {
			return err
		}
		if err := writeRegular(dir, s.Manifest.Name, b, 0o644); err != nil {
			return fmt.Errorf("manifest %s/%s: %w", s.Name, s.Manifest.Name, err)
		}
	}
	if s.Secret != "" {
		if err := writeRegular(dir, secretFile, []byte(s.Secret), 0o600); err != nil {
			// The error names the file, never its content.
			return fmt.Errorf("secret file %s/%s: %w", s.Name, secretFile, err)
		}
	}
	return nil
}

// writeRegular replaces name with a regular file, whatever was there.
func writeRegular(dir *os.Root, name string, b []byte, perm fs.FileMode) error {
	if st, err := dir.Lstat(name); err == nil && !st.Mode().IsRegular() {
		if err := dir.RemoveAll(name); err != nil {
			return err
		}
	}
	if err := dir.WriteFile(name, b, perm); err != nil {
		return err
	}
	return dir.Chmod(name, perm)
}

// readDir reads the directory back as a spec. manifest is the manifest block
// from state, whose file is not reported as a file; it is kept as is when its
// file exists and dropped when it is gone. A missing directory is found=false
// without error: that is drift.
func readDir(root *os.Root, name string, manifest *manifestSpec) (s dirSpec, found bool, err error) {
	if err := checkName(name); err != nil {
		return dirSpec{}, false, err
	}
	st, err := root.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return dirSpec{}, false, nil
	}
	if err != nil {
		return dirSpec{}, false, fmt.Errorf("stat %s: %w", name, err)
	}
	if !st.IsDir() {
		return dirSpec{}, false, fmt.Errorf("%s is not a directory (%s)", name, st.Mode().Type())
	}
	dir, err := root.OpenRoot(name)
	if err != nil {
		return dirSpec{}, false, fmt.Errorf("open directory %s: %w", name, err)
	}
	defer dir.Close()

	s = dirSpec{Name: name, Mode: formatMode(st.Mode())}
	entries, err := fs.ReadDir(dir.FS(), ".")
	if err != nil {
		return dirSpec{}, false, fmt.Errorf("list directory %s: %w", name, err)
	}
	for _, e := range entries {
		n := e.Name()
		switch {
		case manifest != nil && n == manifest.Name:
			m := *manifest
			s.Manifest = &m
		case n == secretFile:
			b, err := dir.ReadFile(n)
			if err != nil {
				return dirSpec{}, false, fmt.Errorf("read secret file %s/%s: %w", name, n, err)
			}
			s.Secret = string(b)
		case e.Type()&fs.ModeSymlink != 0:
			target, err := dir.Readlink(n)
			if err != nil {
				return dirSpec{}, false, fmt.Errorf("read link %s/%s: %w", name, n, err)
			}
			s.Links = append(s.Links, linkSpec{Name: n, Target: target})
		case e.Type().IsRegular():
			b, err := dir.ReadFile(n)
			if err != nil {
				return dirSpec{}, false, fmt.Errorf("read %s/%s: %w", name, n, err)
			}
			info, err := e.Info()
			if err != nil {
				return dirSpec{}, false, fmt.Errorf("stat %s/%s: %w", name, n, err)
			}
			s.Files = append(s.Files, fileSpec{Name: n, Content: string(b), Mode: formatMode(info.Mode())})
		default:
			// Subdirectories and devices are not part of the model; they
			// are removed by the next apply.
		}
	}
	return s, true, nil
}

// orderLike sorts files so names in prior keep their order and new names
// follow in name order; Read uses it so a list block does not show drift
// only because the disk lists names differently.
func orderLike(files []fileSpec, prior []string) {
	pos := map[string]int{}
	for i, n := range prior {
		pos[n] = i
	}
	slices.SortStableFunc(files, func(a, b fileSpec) int {
		pa, oka := pos[a.Name]
		pb, okb := pos[b.Name]
		switch {
		case oka && okb:
			return pa - pb
		case oka:
			return -1
		case okb:
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
}
