package nixsource

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/schema/logkey"
)

// driverExpr is the Nix expression applied to the flake's component in
// every round; see driver.nix.
//
//go:embed driver.nix
var driverExpr []byte

// nixFlags keep nix from waiting on the network or refusing flakes: pier
// evaluates local flakes and builds what they need locally.
var nixFlags = []string{
	"--extra-experimental-features", "nix-command flakes",
	"--option", "substituters", "",
}

// waitDelay bounds how long pier waits for nix's pipes after nix exits or
// is cancelled, so a stray grandchild holding them cannot hang a round.
const waitDelay = 5 * time.Second

// evalParams is the params.json the driver reads. Known outputs and cached
// members are trees by member name (see [memberTree]), not maps by
// address: the driver then looks a member up by its path, and need not
// spell addresses exactly as Go quotes a name such as "file.txt".
type evalParams struct {
	Known  *memberNode `json:"known"`
	Cached *memberNode `json:"cached"`
	Strict []string    `json:"strict"`
}

// memberNode is one member in a tree of members: its outputs, whether it
// is cached, and its own members by name.
type memberNode struct {
	Members map[string]*memberNode `json:"m,omitempty"`
	// Outputs is a map[string]any, never nil on a known resource: as an
	// interface, omitempty keeps a resource with no outputs known.
	Outputs any  `json:"o,omitempty"`
	Cached  bool `json:"c,omitempty"`
}

// memberTree puts each address's value in a tree by member name, with set
// filling in the node.
func memberTree[T any](byAddress map[string]T, set func(*memberNode, T)) (*memberNode, error) {
	root := &memberNode{}
	for addr, v := range byAddress {
		a, err := source.ParseAddress(addr)
		if err != nil {
			return nil, err
		}
		n := root
		for _, st := range a {
			if n.Members == nil {
				n.Members = map[string]*memberNode{}
			}
			next := n.Members[st.Name]
			if next == nil {
				next = &memberNode{}
				n.Members[st.Name] = next
			}
			n = next
		}
		set(n, v)
	}
	return root, nil
}

// evalOutput is the driver's result in a normal round.
type evalOutput struct {
	Members []memberResult `json:"members"`
	// Declared is the component's pier.providers: operations declared
	// for providers outside their own declarations.
	Declared []declaredOperations `json:"declared"`
	// Legacy is set when the deployment is in NixOps4's export shape
	// before 2026-01-25 (_type "nixops4Deployment", deploymentFunction):
	// the deployment's name when pier picked it from nixops4Deployments,
	// "" when the reference named it.
	Legacy *string `json:"legacy"`
}

// declaredOperations is one entry of a component's pier.providers: the
// optional operations a provider serves, for resource declarations that
// cannot say so themselves. It applies to every resource whose provider
// has this executable (and these args, when given).
type declaredOperations struct {
	Executable string    `json:"executable"`
	Args       *[]string `json:"args"`
	Operations []string  `json:"operations"`
}

// memberResult is one member as the driver reports it.
type memberResult struct {
	Path []string `json:"path"`
	// Status is "ready", "blocked" or "structural".
	Status string `json:"status"`
	// Head is the JSON of {provider, type, state}; empty when it is not
	// known yet.
	Head string `json:"head"`
	// Inputs maps each known input to its JSON.
	Inputs map[string]string `json:"inputs"`
	// Unknown lists the inputs that need outputs not known yet.
	Unknown []string `json:"unknown"`
	// Context is builtins.getContext of the ready resource's JSON.
	Context map[string]contextEntry `json:"context"`
	Pos     *position               `json:"pos"`
}

type contextEntry struct {
	Path       bool     `json:"path"`
	AllOutputs bool     `json:"allOutputs"`
	Outputs    []string `json:"outputs"`
}

type position struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// runDriver evaluates the driver once. With strict set it evaluates that
// one member without tryEval and returns its error, if any, as stderr.
func (s *Source) runDriver(ctx context.Context, known source.Outputs, cached map[string]bool, strict []string) ([]byte, *traces, error) {
	dir, err := os.MkdirTemp("", "pier-nix-")
	if err != nil {
		return nil, nil, fmt.Errorf("evaluate %s: %w", s.label, err)
	}
	defer os.RemoveAll(dir)
	knownTree, err := memberTree(known, func(n *memberNode, outs map[string]any) {
		// Without the bridge's bookkeeping (source.Visible), and never
		// nil: a resource with no outputs is still known.
		outs = source.Visible(outs)
		if outs == nil {
			outs = map[string]any{}
		}
		n.Outputs = outs
	})
	if err != nil {
		return nil, nil, fmt.Errorf("evaluate %s: known outputs: %w", s.label, err)
	}
	cachedTree, err := memberTree(cached, func(n *memberNode, c bool) { n.Cached = c })
	if err != nil {
		return nil, nil, fmt.Errorf("evaluate %s: cached members: %w", s.label, err)
	}
	params, err := json.Marshal(evalParams{Known: knownTree, Cached: cachedTree, Strict: strict})
	if err != nil {
		return nil, nil, fmt.Errorf("evaluate %s: encode known outputs: %w", s.label, err)
	}
	// Known outputs may hold secrets: they go to a private file, never on
	// nix's command line.
	paramsFile := filepath.Join(dir, "params.json")
	driverFile := filepath.Join(dir, "driver.nix")
	if err := os.WriteFile(paramsFile, params, 0o600); err != nil {
		return nil, nil, fmt.Errorf("evaluate %s: %w", s.label, err)
	}
	if err := os.WriteFile(driverFile, driverExpr, 0o600); err != nil {
		return nil, nil, fmt.Errorf("evaluate %s: %w", s.label, err)
	}
	args := []string{"eval"}
	args = append(args, nixFlags...)
	args = append(args, "--json", "--impure")
	args = append(args, s.opts.ExtraArgs...)
	if s.file {
		args = append(args, "--file")
	}
	args = append(args, s.installable, "--apply", fmt.Sprintf("import %q %q", driverFile, paramsFile))
	cmd := exec.CommandContext(ctx, s.opts.NixBin, args...)
	cmd.Dir = s.opts.Dir
	cmd.WaitDelay = waitDelay
	ownGroup(cmd)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	tr := parseTraces(stderr.Bytes())
	for _, l := range tr.other {
		if l != "" {
			s.log.Debug("nix", logkey.Flake, s.installable, logkey.Stderr, l)
		}
	}
	if runErr != nil {
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("evaluate %s: %w", s.label, ctx.Err())
		}
		msg := tr.message()
		if msg == "" {
			msg = runErr.Error()
		}
		if _, ok := runErr.(*exec.ExitError); !ok {
			return nil, nil, fmt.Errorf("evaluate %s: run %s: %w", s.label, s.opts.NixBin, runErr)
		}
		if s.defaultAttr && !s.triedLegacy && strings.Contains(msg, "does not provide attribute") && strings.Contains(msg, "'"+DefaultAttr+"'") {
			// No nixops4 output: the flake may be in NixOps4's shape from
			// before 2026-01-25, with nixops4Deployments instead.
			s.triedLegacy = true
			s.installable = strings.TrimSuffix(s.installable, "#"+DefaultAttr) + "#" + legacyAttr
			s.label = "flake " + s.installable
			out, tr2, err := s.runDriver(ctx, known, cached, strict)
			if err == nil {
				return out, tr2, nil
			}
			var ee *EvalError
			if errors.As(err, &ee) && strings.Contains(ee.Message, "does not provide attribute") {
				// Neither shape: say what the user asked for.
				s.installable = strings.TrimSuffix(s.installable, "#"+legacyAttr) + "#" + DefaultAttr
				s.label = "flake " + s.installable
				return nil, tr, &EvalError{Flake: s.label, Message: s.localise(msg)}
			}
			return nil, tr2, err
		}
		if hint := s.untracked(msg); hint != "" {
			return nil, tr, &EvalError{Flake: s.label, Message: hint}
		}
		return nil, tr, &EvalError{Flake: s.label, Member: addressOf(tr.last), Message: s.localise(msg)}
	}
	return stdout.Bytes(), tr, nil
}

// realise builds or checks the store paths in a ready resource's string
// context, running nix-store --realise only for those not known to exist.
func (s *Source) realise(ctx context.Context, r *source.Resource, executable string, context map[string]contextEntry) error {
	var paths []string
	for p, c := range context {
		if s.realised[p] {
			continue
		}
		if c.AllOutputs || len(c.Outputs) > 0 {
			paths = append(paths, p)
			continue
		}
		// A plain path was added to the store by the evaluation itself; it
		// only needs realising if it is gone (garbage-collected since).
		if _, err := os.Lstat(p); err != nil {
			paths = append(paths, p)
			continue
		}
		s.realised[p] = true
	}
	if len(paths) == 0 {
		return nil
	}
	args := append([]string{"--realise"}, paths...)
	args = append(args, "--option", "substituters", "")
	cmd := exec.CommandContext(ctx, s.opts.NixStoreBin, args...)
	cmd.Dir = s.opts.Dir
	cmd.WaitDelay = waitDelay
	ownGroup(cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg != "" {
			err = fmt.Errorf("%w: %s", err, msg)
		}
		return &RealiseError{Resource: r.Address, Provider: r.Provider, Executable: executable, Paths: paths, Err: err}
	}
	s.log.Info("nix realise", logkey.Resource, r.Address.String(), logkey.Provider, r.Provider, logkey.Paths, len(paths), logkey.Duration, time.Since(start))
	for _, p := range paths {
		s.realised[p] = true
	}
	return nil
}
