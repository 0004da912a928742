package tfcache

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/hashicorp/go-version"
)

// DefaultHost is the registry host a two-part source address implies, as
// in Terraform.
const DefaultHost = "registry.terraform.io"

// Source is a provider source address, HOST/NAMESPACE/TYPE.
type Source struct {
	Host, Namespace, Type string
}

// ParseSource parses "NAMESPACE/TYPE" or "HOST/NAMESPACE/TYPE". Names are
// case-insensitive in Terraform and kept lower-case here, as Terraform
// writes them in its lock file.
func ParseSource(s string) (Source, error) {
	parts := strings.Split(strings.ToLower(s), "/")
	switch len(parts) {
	case 2:
		parts = append([]string{DefaultHost}, parts...)
	case 3:
	default:
		return Source{}, fmt.Errorf("parse provider source %q: want NAMESPACE/TYPE or HOST/NAMESPACE/TYPE", s)
	}
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.ContainsAny(p, `\ `) {
			return Source{}, fmt.Errorf("parse provider source %q: empty or invalid part %q", s, p)
		}
	}
	return Source{Host: parts[0], Namespace: parts[1], Type: parts[2]}, nil
}

// String is the canonical form, HOST/NAMESPACE/TYPE, that Terraform's lock
// file uses as the block label.
func (s Source) String() string { return s.Host + "/" + s.Namespace + "/" + s.Type }

// Platform is this machine's OS_ARCH, the last directory of a package.
func Platform() string { return runtime.GOOS + "_" + runtime.GOARCH }

// Package is a provider package found on disk.
type Package struct {
	Source  Source
	Version string
	// Dir is the unpacked package directory, .../VERSION/OS_ARCH. Its
	// content is what Terraform's h1: hash covers.
	Dir string
	// Executable is the terraform-provider-TYPE* file inside Dir.
	Executable string
}

// Dirs are the directories searched, in order. Each holds packages in
// Terraform's unpacked layout HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/.
type Dirs []string

// DefaultDirs are the directories Terraform searches, in the order pier
// searches them: the deployment's own terraform.d/plugins and
// .terraform/providers (where `terraform init` installs), TF_PLUGIN_CACHE_DIR,
// the user's ~/.terraform.d/plugins and the XDG data directories'
// terraform/plugins. dir is the deployment directory.
func DefaultDirs(dir string) Dirs {
	ds := Dirs{filepath.Join(dir, "terraform.d", "plugins"), filepath.Join(dir, ".terraform", "providers")}
	if c := os.Getenv("TF_PLUGIN_CACHE_DIR"); c != "" {
		ds = append(ds, c)
	}
	if home, err := os.UserHomeDir(); err == nil {
		ds = append(ds, filepath.Join(home, ".terraform.d", "plugins"))
	}
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" {
		if home, err := os.UserHomeDir(); err == nil {
			data = filepath.Join(home, ".local", "share")
		}
	}
	dataDirs := []string{data}
	if dd := os.Getenv("XDG_DATA_DIRS"); dd != "" {
		dataDirs = append(dataDirs, filepath.SplitList(dd)...)
	} else {
		dataDirs = append(dataDirs, "/usr/local/share", "/usr/share")
	}
	for _, d := range dataDirs {
		if d != "" {
			ds = append(ds, filepath.Join(d, "terraform", "plugins"))
		}
	}
	return ds
}

// NotFoundError says a package is in none of the searched directories.
type NotFoundError struct {
	Source   Source
	Version  string
	Searched []string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("provider %s %s for %s is not installed; pier looked in %s (pier downloads nothing: run terraform init, or put the package there)",
		e.Source, e.Version, Platform(), strings.Join(e.Searched, ", "))
}

// Select resolves a provider's version argument as Terraform does: an
// exact version ("0.14.2") is found with [Dirs.Find]; constraints ("~>
// 0.14", ">= 0.13, < 1.0", "!= 0.14.1") pick the newest version
// installed for this platform in any of dirs that meets them, or locked
// when it is installed and meets them (a lock file's version wins over a
// newer one, as under Terraform; "" is none). Versions are compared with
// hashicorp/go-version, so "0.14.10" is newer than "0.14.9"; pre-releases
// match only a constraint that names them, as in Terraform.
func (ds Dirs) Select(source Source, arg, locked string) (*Package, error) {
	arg = strings.TrimSpace(arg)
	if v, err := version.NewVersion(arg); err == nil && !strings.ContainsAny(arg, "<>=!~,") {
		return ds.Find(source, v.Original())
	}
	cs, err := version.NewConstraint(arg)
	if err != nil {
		return nil, fmt.Errorf("provider %s: version %q is neither a version nor constraints such as \"~> 0.14\": %w", source, arg, err)
	}
	if locked != "" {
		if v, err := version.NewVersion(locked); err == nil && cs.Check(v) {
			if p, err := ds.Find(source, locked); err == nil {
				return p, nil
			}
		}
	}
	var best *version.Version
	var searched []string
	for _, d := range ds {
		typeDir := filepath.Join(d, source.Host, source.Namespace, source.Type)
		searched = append(searched, typeDir)
		entries, err := os.ReadDir(typeDir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			v, err := version.NewVersion(e.Name())
			if err != nil || !cs.Check(v) || (best != nil && !v.GreaterThan(best)) {
				continue
			}
			if _, err := executableIn(filepath.Join(typeDir, e.Name(), Platform()), source.Type); err != nil {
				continue
			}
			best = v
		}
	}
	if best == nil {
		return nil, &NotFoundError{Source: source, Version: "matching " + arg, Searched: searched}
	}
	return ds.Find(source, best.Original())
}

// Find returns the first package of source at exactly version for this
// platform in dirs.
func (ds Dirs) Find(source Source, version string) (*Package, error) {
	version = strings.TrimPrefix(version, "v")
	if version == "" {
		return nil, fmt.Errorf("provider %s: version is required", source)
	}
	var searched []string
	for _, d := range ds {
		pkgDir := filepath.Join(d, source.Host, source.Namespace, source.Type, version, Platform())
		searched = append(searched, pkgDir)
		exe, err := executableIn(pkgDir, source.Type)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &Package{Source: source, Version: version, Dir: pkgDir, Executable: exe}, nil
	}
	return nil, &NotFoundError{Source: source, Version: version, Searched: searched}
}

// executableIn finds the provider executable in a package directory: a
// regular executable file named terraform-provider-TYPE, optionally with
// Terraform's _vVERSION_xN suffix.
func executableIn(dir, typ string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	prefix := "terraform-provider-" + typ
	var names []string
	for _, e := range entries {
		name := e.Name()
		if name != prefix && !strings.HasPrefix(name, prefix+"_") {
			continue
		}
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil || !info.Mode().IsRegular() || info.Mode()&0o111 == 0 {
			continue
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return "", fmt.Errorf("package directory %s holds no executable %s*: %w", dir, prefix, os.ErrNotExist)
	}
	slices.Sort(names)
	return filepath.Join(dir, names[0]), nil
}
