package planfile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pierhq/pier/host/hclsource"
)

// Fingerprint hashes the files a deployment is read from: a saved
// plan refuses to run once they changed, even where the change would
// plan the same operations (the plan was reviewed against that source).
// HCL: the *.pier.hcl and *.pier.json files of the directory, its
// auto-loaded variable files (pier.vars, *.auto.pier.vars) and the
// --var-file files. A local flake or Nix file: the *.nix files and
// flake.lock below its directory. A remote flake reference hashes to ""
// (its lock pins it; nothing local to compare).
func Fingerprint(ref Ref) (string, error) {
	var files []string
	switch {
	case ref.Flake == "":
		ents, err := os.ReadDir(ref.Dir)
		if err != nil {
			return "", fmt.Errorf("fingerprint the deployment: %w", err)
		}
		for _, e := range ents {
			if n := e.Name(); !e.IsDir() && (strings.HasSuffix(n, ".pier.hcl") || strings.HasSuffix(n, ".pier.json") || hclsource.IsAutoVarFile(n)) {
				files = append(files, filepath.Join(ref.Dir, n))
			}
		}
		files = append(files, ref.VarFiles...)
	default:
		dir := localNixDir(ref.Flake)
		if dir == "" {
			return "", nil
		}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == ".git" || d.Name() == "result") {
				return filepath.SkipDir
			}
			if !d.IsDir() && (strings.HasSuffix(p, ".nix") || d.Name() == "flake.lock") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("fingerprint the deployment: %w", err)
		}
	}
	slices.Sort(files)
	h := sha256.New()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("fingerprint the deployment: %w", err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// localNixDir is the local directory a flake reference or Nix file names,
// or "" for a remote one.
func localNixDir(ref string) string {
	path, _, _ := strings.Cut(ref, "#")
	path = strings.TrimPrefix(path, "path:")
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return ""
	case fi.IsDir():
		return path
	}
	return filepath.Dir(path)
}
