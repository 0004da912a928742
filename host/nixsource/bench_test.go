package nixsource

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pierhq/pier/host/source"
)

// writeChainFlake writes a flake of free resources and a chain of chain
// resources, each reading the previous one's output. With fanOut the free
// resources all read the first chain member's output.
func writeChainFlake(tb testing.TB, free, chain int, fanOut bool) string {
	tb.Helper()
	dir := copyFlake(tb, "single", nil)
	var members strings.Builder
	if fanOut {
		fmt.Fprintf(&members, "gen %d (i: value \"${outputValues.chain.c0.value}-${toString i}\")", free)
	} else {
		fmt.Fprintf(&members, "gen %d (i: value \"free-${toString i}\")", free)
	}
	members.WriteString(" // { chain.members = {\n")
	for i := range chain {
		if i == 0 {
			members.WriteString("  c0 = value \"c0\";\n")
			continue
		}
		fmt.Fprintf(&members, "  c%d = value \"${outputValues.chain.c%d.value}/c%d\";\n", i, i-1, i)
	}
	members.WriteString("}; }")
	flake := `{
  outputs = { self }:
    let
      provider = { executable = "${./provider.py}"; args = [ ]; type = "stdio"; };
      value = v: { resource = { inherit provider; type = "value"; inputs.value = v; outputsSkeleton.value = { }; state = null; }; };
      gen = n: f: builtins.listToAttrs (builtins.genList (i: { name = "free${toString i}"; value = f i; }) n);
    in {
      nixops4 = {
        _type = "nixops4Component";
        rootFunction = { outputValues, resourceProviderSystem, ... }: { members = ` + members.String() + `; };
      };
    };
}
`
	if err := os.WriteFile(filepath.Join(dir, "flake.nix"), []byte(flake), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// resolveAll plays the engine: it resolves, "applies" every ready resource
// whose outputs are not known yet (a value resource's output is its
// input), and resolves again until nothing is blocked.
func resolveAll(tb testing.TB, src *Source) (rounds int, eval time.Duration) {
	tb.Helper()
	known := source.Outputs{}
	for {
		snap, err := src.Resolve(tb.Context(), known)
		if err != nil {
			tb.Fatal(err)
		}
		rounds++
		eval += snap.Evaluation.Duration
		if len(snap.Blocked) == 0 {
			return rounds, eval
		}
		for _, r := range snap.Ready {
			known[r.Address.String()] = map[string]any{"value": r.Inputs["value"]}
		}
	}
}

func benchmarkResolveChain(b *testing.B, free, chain int, fanOut bool) {
	needNix(b)
	dir := writeChainFlake(b, free, chain, fanOut)
	var rounds int
	var eval time.Duration
	b.ReportAllocs()
	for b.Loop() {
		src, err := New("path:"+dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		rounds, eval = resolveAll(b, src)
	}
	b.ReportMetric(float64(rounds), "rounds")
	b.ReportMetric(float64(eval.Milliseconds()), "eval-ms")
}

// BenchmarkResolve20Chain5 resolves 15 independent resources and a chain of
// 5 to completion; one op is a whole deployment's rounds.
func BenchmarkResolve20Chain5(b *testing.B) { benchmarkResolveChain(b, 15, 5, false) }

// BenchmarkResolve1000Chain5 is the same with 995 independent resources,
// to show how a round's cost grows with the deployment.
func BenchmarkResolve1000Chain5(b *testing.B) { benchmarkResolveChain(b, 995, 5, false) }

// BenchmarkResolve1000FanOut has 995 resources that all read one output:
// the worst case, where each of them is evaluated in an instance of its own
// in the round that first sees the output.
func BenchmarkResolve1000FanOut(b *testing.B) { benchmarkResolveChain(b, 995, 5, true) }
