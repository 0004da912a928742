package terraform_test

import (
	"crypto/rand"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreviewPlanIsApplied: a create or update right after its preview
// applies the plan the preview made, so the provider plans the change
// once; a request the preview did not see exactly is planned again.
func TestPreviewPlanIsApplied(t *testing.T) {
	t.Parallel()
	bin := providerBin(t, "terraform-provider-fixture")
	root, token := t.TempDir(), "tok-"+rand.Text()
	b := startBridge(t, bin, bridgeOpts{
		config: map[string]any{"root": root, "token": token},
		args:   []string{"--provider-logs"},
		env:    []string{"FIXTURE_EXPECTED_TOKEN=" + token, "TF_LOG_SDK_PROTO=trace"},
	})
	// plans counts the PlanResourceChange requests the provider received
	// since the last call.
	seen := 0
	plans := func() int {
		t.Helper()
		n := 0
		for _, line := range strings.Split(b.stderr.String(), "\n") {
			if strings.Contains(line, `"msg":"Received request"`) && strings.Contains(line, `"tf_rpc":"PlanResourceChange"`) {
				n++
			}
		}
		n, seen = n-seen, n
		return n
	}

	in := fullInputs("a.txt", "one")
	ok(t, b.previewCreate("fixture_file", in))
	out := ok(t, b.create("fixture_file", in)).CreateResourceResponse.OutputProperties
	if got := plans(); got != 1 {
		t.Errorf("preview + create planned %d times, want 1", got)
	}
	if got := readFile(t, filepath.Join(root, "a.txt")); got != "one" {
		t.Errorf("created file holds %q, want one", got)
	}

	changed := fullInputs("a.txt", "two")
	ok(t, b.preview("fixture_file", in, out, changed))
	out2 := ok(t, b.update("fixture_file", in, out, changed)).UpdateResourceResponse.OutputProperties
	if got := plans(); got != 1 {
		t.Errorf("preview + update planned %d times, want 1", got)
	}
	if got := readFile(t, filepath.Join(root, "a.txt")); got != "two" {
		t.Errorf("updated file holds %q, want two", got)
	}

	// The preview's plan was applied and is gone: the same update again,
	// now from the new object, plans afresh.
	three := fullInputs("a.txt", "three")
	ok(t, b.preview("fixture_file", changed, out2, three))
	ok(t, b.update("fixture_file", changed, out2, fullInputs("a.txt", "four")))
	if got := plans(); got != 2 {
		t.Errorf("an update unlike its preview planned %d times, want 2 (the preview's plan is not applied to other inputs)", got)
	}
	if got := readFile(t, filepath.Join(root, "a.txt")); got != "four" {
		t.Errorf("updated file holds %q, want four", got)
	}
	other := fullInputs("b.txt", "x")
	ok(t, b.previewCreate("fixture_file", other))
	ok(t, b.create("fixture_file", other))
	ok(t, b.create("fixture_file", fullInputs("c.txt", "y")))
	if got := plans(); got != 2 {
		t.Errorf("a previewed and an unpreviewed create planned %d times, want 2", got)
	}
}
