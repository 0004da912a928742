// Package archtest enforces the import arrows between pier's packages, so
// that the folders keep telling the truth about the architecture.
package archtest

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
)

const module = "github.com/pierhq/pier"

// rules say, for packages under a prefix, which pier packages they must
// not import. The first matching prefix wins.
var rules = []struct {
	prefix    string
	forbidden []string
	why       string
}{
	{"schema", []string{""}, "schema is the protocol vocabulary, its framing (schema/jsonl) and the raw I/O of the descriptors it travels on (schema/rawio): it imports nothing from pier"},
	{"statefile", []string{"host", "adapters", "providersdk", "cmd"}, "statefile is the event-log format: it may import only schema"},
	{"providersdk", []string{"host", "adapters", "statefile", "internal", "rpcapi", "cmd"}, "providersdk is for outside provider authors: it may import only schema (the vocabulary, and schema/jsonl and schema/rawio for the framing and pipe I/O the host shares)"},
	{"adapters/builtin", []string{"host", "cmd", "rpcapi"}, "adapters/builtin is the one list of shipped adapters: it imports the adapters and schema, and the front ends (cmd, rpcapi) pass it to the host"},
	{"adapters", []string{"host", "cmd", "rpcapi"}, "shipped adapters must use only what a third-party provider can"},
	{"internal/tfschemadoc", []string{""}, "the tf schema --json wire type sits below the Terraform bridge that writes it and host/tfschema that reads it: it imports nothing from pier"},
	{"internal", []string{"host", "adapters", "rpcapi", "cmd"}, "internal packages are leaves every layer may use: they import nothing above them"},
	{"host/source", []string{"host/engine", "host/plan", "host/apply", "host/hclsource", "host/nixsource", "host/provider", "adapters", "cmd"}, "host/source is the vocabulary sources and the engine share"},
	{"host/hclsource", []string{"host/engine", "host/plan", "host/apply", "host/provider", "host/nixsource", "adapters", "cmd"}, "a deployment source knows nothing of providers or planning"},
	{"host/nixsource", []string{"host/engine", "host/plan", "host/apply", "host/provider", "host/hclsource", "adapters", "cmd"}, "a deployment source knows nothing of providers or planning"},
	{"host/engine", []string{"host/plan", "host/apply", "host/planfile", "host/hclsource", "host/nixsource", "host/session", "host/webview", "adapters", "cmd", "rpcapi"}, "the engine is the runtime planning and applying share (providers, state reading and recording, events): it knows neither, nor the sources and front ends above it"},
	{"host/plan", []string{"host/apply", "host/planfile", "host/hclsource", "host/nixsource", "host/session", "host/webview", "adapters", "cmd", "rpcapi"}, "planning makes a plan and its execution graph on the engine: it knows nothing of who applies them, nor of the sources and front ends above it"},
	{"host/apply", []string{"host/hclsource", "host/nixsource", "host/planfile", "host/session", "host/webview", "adapters", "cmd", "rpcapi"}, "applying executes a plan's graph on the engine, reading of host/plan only the plan it executes: it knows neither the sources nor the front ends (cmd, rpcapi, session, webview) above it"},
	{"host/redact", []string{"host/engine", "host/plan", "host/apply", "host/execgraph", "host/hclsource", "host/nixsource", "host/planfile", "host/session", "statefile", "adapters", "cmd", "rpcapi"}, "redaction sits below planning and applying, which both redact: it knows neither"},
	{"host/statedoc", []string{"host/engine", "host/plan", "host/apply", "host/execgraph", "host/provider", "host/hclsource", "host/nixsource", "host/planfile", "host/session", "statefile", "adapters", "cmd", "rpcapi"}, "the state document's shape and patches sit below planning and applying, which both use them: they know neither"},
	{"host/execgraph", []string{"host/engine", "host/plan", "host/apply", "host/provider", "host/hclsource", "host/nixsource", "host/planfile", "host/session", "statefile", "adapters", "cmd"}, "the execution graph is the boundary between planning and applying: it speaks host/source's vocabulary and knows neither who builds it nor who runs it"},
	{"host", []string{"adapters", "cmd", "rpcapi"}, "the engine talks to adapters only as subprocesses, and knows none of the front ends (cmd, rpcapi) above it"},
}

type pkg struct {
	ImportPath string
	Imports    []string
}

func TestImportArrows(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-json", module+"/...")
	cmd.Dir = testbin.ModuleRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		for _, r := range rules {
			if rel != r.prefix && !strings.HasPrefix(rel, r.prefix+"/") {
				continue
			}
			checked++
			for _, imp := range p.Imports {
				if !strings.HasPrefix(imp, module) {
					continue
				}
				target := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
				if strings.HasPrefix(target, "internal/testbin") {
					continue
				}
				for _, f := range r.forbidden {
					if f == "" || target == f || strings.HasPrefix(target, f+"/") {
						if f == "" && strings.HasPrefix(target, r.prefix) {
							continue
						}
						t.Errorf("%s imports %s: %s", rel, target, r.why)
					}
				}
			}
			break
		}
	}
	if checked == 0 {
		t.Fatal("no package matched a rule: the test checks nothing")
	}
}
