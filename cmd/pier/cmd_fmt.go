package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/rogpeppe/go-internal/diff"
	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/hcldepth"
	"github.com/pierhq/pier/host/hclsource"
)

// fmtOptions are the flags of pier fmt.
type fmtOptions struct {
	Paths     []string // files or directories; "-" is stdin
	Check     bool
	Diff      bool
	Write     bool
	Recursive bool
}

func newFmtCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "fmt",
		Usage:     "rewrite *.pier.hcl files in the canonical style",
		ArgsUsage: "[PATH...]",
		Description: `Rewrites each *.pier.hcl file in the given directories (default: the
current one) or each file named, in HCL's canonical layout (hclwrite, as
terraform fmt): aligned equals signs, two-space indentation, normalised
spacing. It lists the files it changed. A file that does not parse is
reported with its source line and left alone. PATH - reads standard
input and writes the result to standard output.

  --check   change nothing; list the files that need formatting and fail
            if there are any (for CI)
  --diff    print the changes as a unified diff
  --write   write the result to the file (default true; --write=false with
            --diff only shows)

Exit codes: 0 formatted (or, with --check, nothing to do), 1 a file needs
formatting under --check, or a file does not parse, 64 usage.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "check", Usage: "change nothing; fail if a file is not formatted"},
			&cli.BoolFlag{Name: "diff", Usage: "print what would change as a unified diff"},
			&cli.BoolFlag{Name: "write", Value: true, Usage: "write the formatted result back to the file"},
			&cli.BoolFlag{Name: "recursive", Aliases: []string{"r"}, Usage: "also format files in subdirectories"},
		},
		Action: func(c *cli.Context) error {
			o := fmtOptions{Paths: c.Args().Slice(), Check: c.Bool("check"), Diff: c.Bool("diff"), Write: c.Bool("write"), Recursive: c.Bool("recursive")}
			return runFmt(c.Context, o, g.stdin, g.stdout)
		},
	}
}

// unformattedError lists the files --check found unformatted.
type unformattedError struct{ files []string }

func (e unformattedError) Error() string {
	return fmt.Sprintf("%d file(s) not formatted: %s; run pier fmt", len(e.files), strings.Join(e.files, ", "))
}

func runFmt(_ context.Context, o fmtOptions, stdin io.Reader, stdout io.Writer) error {
	if len(o.Paths) == 0 {
		o.Paths = []string{"."}
	}
	if o.Check {
		o.Write = false
	}
	var files []string
	for _, p := range o.Paths {
		if p == "-" {
			if len(o.Paths) > 1 {
				return usagef("fmt: - (standard input) cannot be combined with other paths")
			}
			src, err := io.ReadAll(stdin)
			if err != nil {
				return fmt.Errorf("fmt: read standard input: %w", err)
			}
			out, err := formatHCL("<stdin>", src)
			if err != nil {
				return err
			}
			if o.Check && !bytes.Equal(src, out) {
				return unformattedError{[]string{"<stdin>"}}
			}
			if o.Diff {
				_, err = stdout.Write(diff.Diff("<stdin>", src, "<stdin>", out))
				return err
			}
			if !o.Check {
				_, err = stdout.Write(out)
			}
			return err
		}
		fs, err := fmtFiles(p, o.Recursive)
		if err != nil {
			return err
		}
		files = append(files, fs...)
	}
	var bad, errs []error
	var unformatted []string
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			errs = append(errs, fmt.Errorf("fmt: %w", err))
			continue
		}
		out, err := formatHCL(name, src)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		if bytes.Equal(src, out) {
			continue
		}
		unformatted = append(unformatted, name)
		fmt.Fprintln(stdout, name)
		if o.Diff {
			stdout.Write(diff.Diff(name, src, name, out))
		}
		if o.Write {
			if err := writeKeepingMode(name, out); err != nil {
				errs = append(errs, fmt.Errorf("fmt: %w", err))
			}
		}
	}
	if err := errors.Join(append(bad, errs...)...); err != nil {
		return err
	}
	if o.Check && len(unformatted) > 0 {
		return unformattedError{unformatted}
	}
	return nil
}

// fmtFiles lists the deployment files path names: itself if it is a file,
// the *.pier.hcl files in it if it is a directory.
func fmtFiles(path string, recursive bool) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("fmt: %w", err)
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	var out []string
	err = filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != path && (!recursive || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".pier.hcl") || strings.HasSuffix(p, ".pier.tfvars") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("fmt: %w", err)
	}
	slices.Sort(out)
	return out, nil
}

// formatHCL returns src in canonical layout. It parses first: hclwrite
// formats tokens, and would silently rearrange a file that is not HCL.
func formatHCL(name string, src []byte) ([]byte, error) {
	if diags := hcldepth.CheckSyntax(src, name, false); diags.HasErrors() {
		// Parsing it would exhaust the stack.
		return nil, &hclsource.DiagnosticsError{Diagnostics: diags, Files: map[string]*hcl.File{name: {Bytes: src}}}
	}
	f, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, &hclsource.DiagnosticsError{Diagnostics: diags, Files: map[string]*hcl.File{name: f}}
	}
	return hclwrite.Format(src), nil
}

func writeKeepingMode(name string, data []byte) error {
	fi, err := os.Stat(name)
	if err != nil {
		return err
	}
	tmp := name + ".pier-fmt.tmp"
	if err := os.WriteFile(tmp, data, fi.Mode().Perm()); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}
