package terraform_test

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/schema"
)

// These tests drive terraform-provider-time v0.14.2 (plugin protocol 5,
// terraform-plugin-framework) through the real pier binary.

func TestTimeStaticLifecycle(t *testing.T) {
	t.Parallel()
	b := startBridge(t, providerBin(t, "terraform-provider-time"), bridgeOpts{})
	in := schema.Properties{"triggers": map[string]any{"k": "1"}}

	created := ok(t, b.create("time_static", in)).CreateResourceResponse.OutputProperties
	first := str(t, created, "rfc3339")
	if _, err := time.Parse(time.RFC3339, first); err != nil {
		t.Fatalf("rfc3339 output %q: %v", first, err)
	}
	if got := tfMeta(t, created)["schema_version"]; got != json.Number("0") {
		t.Errorf("__tf.schema_version = %v, want 0", got)
	}

	// RFC 3339 has second resolution: let a second pass so that a new
	// timestamp can be told from the old one.
	time.Sleep(1100 * time.Millisecond)

	same := ok(t, b.update("time_static", in, created, in)).UpdateResourceResponse.OutputProperties
	if diff := cmp.Diff(created, same); diff != "" {
		t.Errorf("update with unchanged inputs changed outputs (-before +after):\n%s", diff)
	}
	if strings.Contains(b.stderr.String(), "replacing") {
		t.Errorf("no-op update replaced the object")
	}

	// A changed trigger replaces the object: the bridge refuses to do
	// that inside an update, since pier replaces as a recorded destroy
	// and create of its own. Nothing changes.
	in2 := schema.Properties{"triggers": map[string]any{"k": "2"}}
	msg := failure(t, b.update("time_static", in, same, in2))
	for _, want := range []string{"cannot update this time_static in place", "triggers forces a new object"} {
		if !strings.Contains(msg, want) {
			t.Errorf("refused update says %q, want it to contain %q", msg, want)
		}
	}
	read := ok(t, b.read("time_static", in, same)).ReadResourceResponse
	if !read.Exists {
		t.Errorf("read after the refused update: exists = false")
	}
	if diff := cmp.Diff(same, read.OutputProperties); diff != "" {
		t.Errorf("the refused update changed the object (-want +got):\n%s", diff)
	}

	ok(t, b.destroy("time_static", in, same))
	if code := b.exitCode(); code != 0 {
		t.Errorf("bridge exit code %d, want 0", code)
	}
}

// withoutMeta is outputs without the bridge's reserved key, as a preview
// plans them.
func withoutMeta(out schema.Properties) schema.Properties {
	m := maps.Clone(out)
	delete(m, "__tf")
	return m
}

// TestTimeStaticPreviewCreate: a create is planned, not applied: the
// triggers are known, the rest is known after apply, and nothing exists.
func TestTimeStaticPreviewCreate(t *testing.T) {
	t.Parallel()
	b := startBridge(t, providerBin(t, "terraform-provider-time"), bridgeOpts{})
	in := schema.Properties{"triggers": map[string]any{"k": "1"}}
	got := ok(t, b.previewCreate("time_static", in)).PreviewResourceResponse
	var unknown []string
	for _, p := range got.UnknownOutputs {
		unknown = append(unknown, p.String())
	}
	slices.Sort(unknown)
	want := []string{"day", "hour", "id", "minute", "month", "rfc3339", "second", "unix", "year"}
	if diff := cmp.Diff(want, unknown); diff != "" {
		t.Errorf("unknown outputs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"k": "1"}, got.PlannedOutputProperties["triggers"]); diff != "" {
		t.Errorf("planned triggers (-want +got):\n%s", diff)
	}
	if got.Replace || len(got.Diagnostics) > 0 {
		t.Errorf("preview of a create: %+v", got)
	}
	// A stateless Terraform resource is refused at plan, as apply would.
	stateless := b.send(schema.Request{PreviewResourceRequest: &schema.PreviewResourceRequest{Type: "time_static", InputProperties: in}})
	if d := ok(t, stateless).PreviewResourceResponse.Diagnostics; len(d) != 1 || d[0].Summary != "Missing state" {
		t.Errorf("stateless preview diagnostics: %+v", d)
	}
	// Wrong types fail with the path of the input.
	bad := ok(t, b.previewCreate("time_static", schema.Properties{"triggers": "not a map"})).PreviewResourceResponse
	if len(bad.Diagnostics) != 1 || bad.Diagnostics[0].Attribute.String() != "triggers" {
		t.Errorf("wrong-type preview diagnostics: %+v", bad.Diagnostics)
	}
}

// TestTimeRotatingUpdateInPlace: changing rotation_days of a time_rotating
// updates it in place, keeping rfc3339 (the rotation base), as terraform
// apply does with the same provider. The provider lists rfc3339 as
// requires_replace on that plan, but plans it unchanged: no reason to
// replace.
func TestTimeRotatingUpdateInPlace(t *testing.T) {
	t.Parallel()
	b := startBridge(t, providerBin(t, "terraform-provider-time"), bridgeOpts{})
	in := schema.Properties{"rotation_days": 1}
	created := ok(t, b.create("time_rotating", in)).CreateResourceResponse.OutputProperties
	base := str(t, created, "rfc3339")

	in2 := schema.Properties{"rotation_days": 2}
	preview := ok(t, b.preview("time_rotating", in, created, in2)).PreviewResourceResponse
	if preview.Replace {
		t.Fatalf("preview of a rotation_days change replaces (%v); want an in-place update", preview.ReplaceReasons)
	}
	if got := preview.PlannedOutputProperties["rfc3339"]; got != base || len(preview.UnknownOutputs) > 0 {
		t.Errorf("planned rfc3339 = %v, want %s kept", got, base)
	}
	updated := ok(t, b.update("time_rotating", in, created, in2)).UpdateResourceResponse.OutputProperties
	if got := str(t, updated, "rfc3339"); got != base {
		t.Errorf("rfc3339 after the update = %s, want %s kept", got, base)
	}
	if got := updated["rotation_days"]; got != json.Number("2") {
		t.Errorf("rotation_days after the update = %v, want 2", got)
	}
	ok(t, b.destroy("time_rotating", in2, updated))
}

// TestTimeStaticPreview checks that a preview tells a replacement from an
// in-place update the way the update then behaves, and changes nothing.
func TestTimeStaticPreview(t *testing.T) {
	t.Parallel()
	b := startBridge(t, providerBin(t, "terraform-provider-time"), bridgeOpts{})
	pid := b.providerPID()
	in := schema.Properties{"triggers": map[string]any{"k": "1"}}
	created := ok(t, b.create("time_static", in)).CreateResourceResponse.OutputProperties

	tests := map[string]struct {
		in   schema.Properties
		want schema.PreviewResourceResponse
		// plan says whether the preview returns a plan, which is opaque;
		// a replacement has none (the create after the destroy plans).
		plan bool
	}{
		"unchanged": {in: in, want: schema.PreviewResourceResponse{PlannedOutputProperties: withoutMeta(created)}, plan: true},
		"triggers changed": {
			in:   schema.Properties{"triggers": map[string]any{"k": "2"}},
			want: schema.PreviewResourceResponse{Replace: true, ReplaceReasons: []string{"triggers"}},
		},
	}
	// One bridge serves one request at a time: no t.Parallel here.
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := ok(t, b.preview("time_static", in, created, tc.in)).PreviewResourceResponse
			if (got.Plan != "") != tc.plan {
				t.Errorf("preview returned a plan: %t, want %t", got.Plan != "", tc.plan)
			}
			got.Plan = ""
			if diff := cmp.Diff(&tc.want, got); diff != "" {
				t.Errorf("preview (-want +got):\n%s", diff)
			}
		})
	}
	// The previews changed nothing: the recorded object still reads back
	// as it was, and no replacement was logged.
	read := ok(t, b.read("time_static", in, created)).ReadResourceResponse
	if diff := cmp.Diff(created, read.OutputProperties); diff != "" {
		t.Errorf("object changed by a preview (-want +got):\n%s", diff)
	}
	if strings.Contains(b.stderr.String(), "replacing") {
		t.Errorf("a preview replaced the object:\n%s", b.stderr)
	}
	if got := b.providerPID(); got != pid {
		t.Errorf("provider pid changed from %d to %d: a preview started another provider", pid, got)
	}
	ok(t, b.destroy("time_static", in, created))
}

func TestTimeStaticRequiresState(t *testing.T) {
	t.Parallel()
	b := startBridge(t, providerBin(t, "terraform-provider-time"), bridgeOpts{})
	msg := failure(t, b.send(schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
		Type: "time_static", InputProperties: schema.Properties{}, IsStateful: false,
	}}))
	for _, want := range []string{"time_static", "state handler", "isStateful"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
}

func TestTimeInputErrors(t *testing.T) {
	t.Parallel()
	b := startBridge(t, providerBin(t, "terraform-provider-time"), bridgeOpts{})
	cases := []struct {
		name string
		typ  string
		in   schema.Properties
		want []string
	}{
		{"unknown attribute", "time_static", schema.Properties{"bogus": "x"}, []string{"attribute bogus", "not in the schema"}},
		{"wrong type", "time_static", schema.Properties{"triggers": "x"}, []string{"attribute triggers", "map of string"}},
		{"wrong element type", "time_static", schema.Properties{"triggers": map[string]any{"a": []any{}}}, []string{`attribute triggers["a"]`, "string"}},
		{"computed only", "time_offset", schema.Properties{"offset_days": 1, "unix": 5}, []string{"attribute unix", "computed"}},
		{"unknown type", "time_nonesuch", schema.Properties{}, []string{"terraform-provider-time", `no resource type "time_nonesuch"`}},
		{"provider diagnostic", "time_static", schema.Properties{"rfc3339": "yesterday"}, []string{"rfc3339", "error"}},
	}
	// One bridge serves every case, as a host would: one process per
	// provider, many requests. The cases therefore run in order.
	for _, tc := range cases {
		msg := failure(t, b.create(tc.typ, tc.in))
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q does not mention %q", tc.name, msg, w)
			}
		}
	}
}

func TestTimeOffsetUpdateInPlace(t *testing.T) {
	t.Parallel()
	b := startBridge(t, providerBin(t, "terraform-provider-time"), bridgeOpts{})
	in := schema.Properties{"base_rfc3339": "2024-01-01T00:00:00Z", "offset_days": 1}
	created := ok(t, b.create("time_offset", in)).CreateResourceResponse.OutputProperties
	if got := str(t, created, "rfc3339"); got != "2024-01-02T00:00:00Z" {
		t.Fatalf("rfc3339 = %s, want 2024-01-02T00:00:00Z", got)
	}
	in2 := schema.Properties{"base_rfc3339": "2024-01-01T00:00:00Z", "offset_days": 2}
	updated := ok(t, b.update("time_offset", in, created, in2)).UpdateResourceResponse.OutputProperties
	if got := str(t, updated, "rfc3339"); got != "2024-01-03T00:00:00Z" {
		t.Errorf("rfc3339 after update = %s, want 2024-01-03T00:00:00Z", got)
	}
	if got := updated["day"]; got != json.Number("3") {
		t.Errorf("day = %v, want 3", got)
	}
	if strings.Contains(b.stderr.String(), "replacing") {
		t.Errorf("offset change replaced the object instead of updating it in place")
	}
}

func TestTimeStaticImport(t *testing.T) {
	t.Parallel()
	b := startBridge(t, providerBin(t, "terraform-provider-time"), bridgeOpts{})
	resp := ok(t, b.importResource("time_static", "2020-02-12T06:36:13Z")).ImportResourceResponse
	if got := str(t, resp.OutputProperties, "rfc3339"); got != "2020-02-12T06:36:13Z" {
		t.Errorf("rfc3339 = %s", got)
	}
	if got := resp.OutputProperties["year"]; got != json.Number("2020") {
		t.Errorf("year = %v, want 2020", got)
	}
	// rfc3339 and triggers (which the provider imports as an empty map) are
	// configurable: they reproduce the object. year is computed only, so it
	// is no input.
	want := schema.Properties{"rfc3339": "2020-02-12T06:36:13Z", "triggers": map[string]any{}}
	if diff := cmp.Diff(want, resp.InputProperties); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}

	// The imported object behaves like a created one.
	same := ok(t, b.update("time_static", resp.InputProperties, resp.OutputProperties, resp.InputProperties)).UpdateResourceResponse
	if diff := cmp.Diff(resp.OutputProperties, same.OutputProperties); diff != "" {
		t.Errorf("update after import changed outputs (-want +got):\n%s", diff)
	}

	msg := failure(t, b.importResource("time_static", "not a time"))
	if !strings.Contains(msg, "time_static") || !strings.Contains(msg, "error") {
		t.Errorf("import of a bad id: %q", msg)
	}
}

// TestTimeSleepInterrupted cancels a long create by SIGTERM or SIGINT: the
// bridge must tell the provider to stop and exit, well before the sleep is
// over.
func TestTimeSleepInterrupted(t *testing.T) {
	t.Parallel()
	bin := providerBin(t, "terraform-provider-time")
	for name, sig := range map[string]syscall.Signal{"SIGTERM": syscall.SIGTERM, "SIGINT": syscall.SIGINT} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := startBridge(t, bin, bridgeOpts{})
			data, _ := json.Marshal(schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
				Type: "time_sleep", InputProperties: schema.Properties{"create_duration": "10m"}, IsStateful: true,
			}})
			if _, err := b.stdin.Write(append(data, '\n')); err != nil {
				t.Fatal(err)
			}
			provider := b.providerPID()
			waitFor(t, b, `"msg":"request"`) // the bridge is inside Create
			signal(t, b.cmd.Process.Pid, sig)

			msg := failure(t, b.receive())
			if !strings.Contains(msg, "terraform-provider-time") || !strings.Contains(msg, "context canceled") {
				t.Errorf("error %q does not name the provider and the cancellation", msg)
			}
			if code := b.exitCode(); code != 130 {
				t.Errorf("exit code %d, want 130", code)
			}
			// After exit, so that all of stderr has been copied.
			if !strings.Contains(b.stderr.String(), "asking the provider to stop") {
				t.Errorf("the bridge did not call StopProvider")
			}
			if !gone(provider) {
				t.Errorf("provider %d survives the bridge", provider)
			}
		})
	}
}

func TestTimeSleepTimeout(t *testing.T) {
	t.Parallel()
	b := startBridge(t, providerBin(t, "terraform-provider-time"), bridgeOpts{args: []string{"--timeout", "2s"}})
	msg := failure(t, b.create("time_sleep", schema.Properties{"create_duration": "10m"}))
	if !strings.Contains(msg, "timeout of 2s") {
		t.Errorf("error %q does not mention the timeout", msg)
	}
	// The same provider process keeps serving.
	ok(t, b.create("time_static", schema.Properties{}))
}

// TestProviderCrashMidCall: the provider dies while ApplyResourceChange
// creates. The object may exist, so the bridge must not answer with an
// errorResponse (the host would take it as "nothing was made" and create
// it again): it exits without answering, with the status that says the
// outcome is unknown, and names the cause on stderr.
func TestProviderCrashMidCall(t *testing.T) {
	t.Parallel()
	b := startBridge(t, providerBin(t, "terraform-provider-time"), bridgeOpts{args: []string{"--provider-logs"}, env: []string{"TF_LOG=TRACE"}})
	data, _ := json.Marshal(schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{
		Type: "time_sleep", InputProperties: schema.Properties{"create_duration": "10m"}, IsStateful: true,
	}})
	if _, err := b.stdin.Write(append(data, '\n')); err != nil {
		t.Fatal(err)
	}
	waitFor(t, b, "Calling provider defined Resource Create") // inside ApplyResourceChange
	signal(t, b.providerPID(), syscall.SIGKILL)
	if line, err := b.out.ReadBytes('\n'); len(line) > 0 || err == nil {
		t.Errorf("the bridge answered %q (%v), want no answer", line, err)
	}
	if code := b.exitCode(); code != schema.OutcomeUnknownExitStatus {
		t.Errorf("exit code %d, want %d", code, schema.OutcomeUnknownExitStatus)
	}
	for _, want := range []string{"request 1, create time_sleep: outcome unknown: provider terraform-provider-time: apply resource change", "provider process exited", "exiting without an answer"} {
		if !strings.Contains(b.stderr.String(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, b.stderr)
		}
	}
}

func TestProtocolVersionMismatch(t *testing.T) {
	t.Parallel()
	b := startBridge(t, providerBin(t, "terraform-provider-time"), bridgeOpts{env: []string{"PIER_TF_PROTOCOL_VERSIONS=6"}})
	if code := b.exitCode(); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	logs := b.stderr.String()
	if !strings.Contains(logs, "speaks no plugin protocol version pier offered (6)") || !strings.Contains(logs, "terraform-provider-time") {
		t.Errorf("stderr does not explain the version mismatch:\n%s", logs)
	}
}

// TestProviderPanicAtStart uses a stand-in provider, a shell script that
// dies the way a Go program panics, and checks the trace reaches stderr.
// Until the host lets go, the bridge answers each request with the cause,
// an errorResponse: nothing reached a provider, and the host must know
// that rather than see a bridge that died mid-request.
func TestProviderPanicAtStart(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "terraform-provider-panics")
	body := "#!/bin/sh\nprintf 'panic: boom in provider\\n\\ngoroutine 1 [running]:\\nmain.main()\\n\\t/src/main.go:12 +0x1d\\n' >&2\nexit 2\n"
	testbin.WriteExecutable(t, script, []byte(body), 0o755)
	b := startBridge(t, script, bridgeOpts{})
	if msg := failure(t, b.create("time_sleep", schema.Properties{"create_duration": "1s"})); !strings.Contains(msg, "create time_sleep: ") || !strings.Contains(msg, "terraform-provider-panics") {
		t.Errorf("create on a provider that never started: %q, want the start failure", msg)
	}
	if code := b.exitCode(); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	logs := b.stderr.String()
	for _, want := range []string{"panic: boom in provider", "goroutine 1 [running]", "terraform-provider-panics"} {
		if !strings.Contains(logs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, logs)
		}
	}
}

// waitFor waits until the bridge's stderr contains s.
func waitFor(t *testing.T, b *bridge, s string) {
	t.Helper()
	deadline := time.Now().Add(responseBound)
	for !strings.Contains(b.stderr.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("stderr never showed %q:\n%s", s, b.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestProviderDiesWithBridge kills the bridge outright: Pdeathsig must take
// the provider with it, since the bridge gets no chance to clean up.
func TestProviderDiesWithBridge(t *testing.T) {
	t.Parallel()
	b := startBridge(t, providerBin(t, "terraform-provider-time"), bridgeOpts{})
	ok(t, b.create("time_static", schema.Properties{}))
	provider := b.providerPID()
	signal(t, b.cmd.Process.Pid, syscall.SIGKILL)
	b.wait()
	if !gone(provider) {
		t.Errorf("provider %d survives the killed bridge", provider)
	}
}

// TestOneProviderProcess checks that the bridge starts its provider once
// and serves every request with it.
func TestOneProviderProcess(t *testing.T) {
	t.Parallel()
	b := startBridge(t, providerBin(t, "terraform-provider-time"), bridgeOpts{})
	first := b.providerPID()
	for range 3 {
		ok(t, b.create("time_static", schema.Properties{}))
	}
	if got := b.providerPID(); got != first {
		t.Errorf("provider pid changed from %d to %d", first, got)
	}
	if code := b.exitCode(); code != 0 {
		t.Errorf("exit code %d", code)
	}
	if !gone(first) {
		t.Errorf("provider %d survives the bridge's exit", first)
	}
}

func TestProviderLogs(t *testing.T) {
	t.Parallel()
	bin := providerBin(t, "terraform-provider-time")
	fromProvider := `"module":"provider.terraform-provider-time"`
	cases := map[string]struct {
		args []string
		want bool
	}{
		"off by default": {nil, false},
		"on by flag":     {[]string{"--provider-logs"}, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := startBridge(t, bin, bridgeOpts{args: tc.args, env: []string{"PIER_LOG=info"}})
			ok(t, b.create("time_static", schema.Properties{}))
			b.exitCode()
			if got := strings.Contains(b.stderr.String(), fromProvider); got != tc.want {
				t.Errorf("provider log lines on stderr: %v, want %v:\n%s", got, tc.want, b.stderr)
			}
		})
	}
}
