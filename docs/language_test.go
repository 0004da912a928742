package docs

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2/hclparse"

	"github.com/pierhq/pier/adapters/local"
	"github.com/pierhq/pier/host/hclsource"
)

// block is one fenced code block of a Markdown file.
type block struct {
	line      int
	lang, tag string
	body      string
}

func fencedBlocks(t *testing.T, path string) []block {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []block
	var cur *block
	var body strings.Builder
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			fields := strings.Fields(strings.TrimPrefix(line, "```"))
			cur = &block{line: n}
			if len(fields) > 0 {
				cur.lang = fields[0]
			}
			if len(fields) > 1 {
				cur.tag = fields[1]
			}
			body.Reset()
		case cur != nil && line == "```":
			cur.body = body.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line + "\n")
		}
	}
	return out
}

// TestReferenceExamples loads every ```hcl example of the reference pages
// as a whole deployment and evaluates it; a "fragment" is parsed only, as
// HCL or HCL's JSON syntax.
//
// An untagged block whose first line is a comment naming a relative path,
// such as "# modules/site/main.pier.hcl", is another file of the example
// before it (a module's, say): it is written there, and the two are
// loaded as one deployment.
func TestReferenceExamples(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{"language.md", "local.md"} {
		blocks := fencedBlocks(t, doc)
		files := map[int]map[string]string{} // index of a whole example -> its other files
		owner := -1
		for i, b := range blocks {
			if b.lang != "hcl" || b.tag != "" {
				continue
			}
			if rel, ok := exampleFilePath(b.body); ok && owner >= 0 {
				if files[owner] == nil {
					files[owner] = map[string]string{}
				}
				files[owner][rel] = b.body
				continue
			}
			owner = i
		}
		for i, b := range blocks {
			if b.lang != "hcl" && b.lang != "json" {
				continue
			}
			if rel, ok := exampleFilePath(b.body); ok && b.tag == "" && b.lang == "hcl" {
				if _, attached := findFile(files, rel, b.body); attached {
					continue
				}
			}
			others := files[i]
			name := doc + ":" + strings.TrimSpace(strings.Fields(b.body + " x")[0]) + ":" + strconv.Itoa(b.line)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				switch {
				case b.tag == "fragment" && b.lang == "json":
					if _, diags := hclparse.NewParser().ParseJSON([]byte(b.body), "example.pier.json"); diags.HasErrors() {
						t.Errorf("%s:%d: %v", doc, b.line, diags)
					}
				case b.tag == "fragment":
					if _, diags := hclparse.NewParser().ParseHCL([]byte(b.body), "example.pier.hcl"); diags.HasErrors() {
						t.Errorf("%s:%d: %v", doc, b.line, diags)
					}
				case b.lang == "hcl" && b.tag == "":
					dir := t.TempDir()
					if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(b.body), 0o644); err != nil {
						t.Fatal(err)
					}
					for rel, body := range others {
						p := filepath.Join(dir, filepath.FromSlash(rel))
						if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					d, err := hclsource.Load(dir, hclsource.Options{})
					if err != nil {
						t.Fatalf("%s:%d: load: %v", doc, b.line, err)
					}
					if _, err := d.Resolve(t.Context(), nil); err != nil {
						t.Errorf("%s:%d: resolve: %v", doc, b.line, err)
					}
				default:
					t.Errorf("%s:%d: an %s block must be untagged (a whole deployment) or tagged fragment, got %q", doc, b.line, b.lang, b.tag)
				}
			})
		}
	}
}

// examplePath is the first line of an example that is a further file of
// the example before it.
var examplePath = regexp.MustCompile(`^# ([a-z0-9_./-]+\.pier\.hcl)\n`)

func exampleFilePath(body string) (string, bool) {
	m := examplePath.FindStringSubmatch(body)
	if m == nil || strings.HasPrefix(m[1], "/") || strings.Contains(m[1], "..") {
		return "", false
	}
	return m[1], true
}

// findFile reports whether body was attached to some example as rel.
func findFile(files map[int]map[string]string, rel, body string) (int, bool) {
	for owner, fs := range files {
		if fs[rel] == body {
			return owner, true
		}
	}
	return -1, false
}

var codeName = regexp.MustCompile("`([a-z_]+)`")

// TestLanguageListsEveryFunction keeps the Functions table of
// language.md equal to the functions pier defines.
func TestLanguageListsEveryFunction(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("language.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	start := strings.Index(s, "## Functions")
	end := strings.Index(s[start:], "\n## ")
	section := s[start : start+end]
	var documented []string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| Kind") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			continue
		}
		for _, m := range codeName.FindAllStringSubmatch(cells[2], -1) {
			documented = append(documented, m[1])
		}
	}
	slices.Sort(documented)
	if diff := cmp.Diff(hclsource.FunctionNames(), documented); diff != "" {
		t.Errorf("functions in language.md (-defined +documented):\n%s", diff)
	}
}

// TestLocalDocumentsEveryInput keeps each type's Inputs table in local.md
// equal to what the local provider accepts.
func TestLocalDocumentsEveryInput(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("local.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string][]string{}
	typ, inInputs := "", false
	for _, line := range strings.Split(string(src), "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			typ, inInputs = strings.TrimPrefix(line, "## "), false
		case strings.HasPrefix(line, "### "):
			inInputs = line == "### Inputs"
		case inInputs && strings.HasPrefix(line, "| `"):
			if m := codeName.FindStringSubmatch(strings.Split(line, "|")[1]); m != nil {
				documented[typ] = append(documented[typ], m[1])
			}
		}
	}
	for k := range documented {
		slices.Sort(documented[k])
	}
	if diff := cmp.Diff(local.Inputs(), documented); diff != "" {
		t.Errorf("local types' inputs (-accepted +documented in local.md):\n%s", diff)
	}
}
