package terraform_test

import (
	"bufio"
	"encoding/json"
	"io"
	"testing"

	"github.com/pierhq/pier/adapters/terraform"
	"github.com/pierhq/pier/schema"
)

// TestHoldAndAttach runs the holder protocol over pipes, as the host does,
// and serves a create through a bridge attached to the held provider.
func TestHoldAndAttach(t *testing.T) {
	t.Parallel()
	plugin := providerBin(t, "terraform-provider-time")
	in, toHold := io.Pipe()
	fromHold, out := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := terraform.Hold(t.Context(), terraform.Options{Plugin: plugin, Config: map[string]any{}}, in, out)
		out.CloseWithError(io.EOF)
		done <- err
	}()
	lines := bufio.NewReader(fromHold)
	readLine := func() []byte {
		t.Helper()
		line, err := lines.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read from the holder: %v", err)
		}
		return line
	}
	var first struct {
		MessageType string `json:"message_type"`
		Schema      struct {
			MessageType   string               `json:"message_type"`
			ResourceTypes []terraform.TypeInfo `json:"resource_types"`
		} `json:"schema"`
		Attach *terraform.Attachment `json:"attach"`
	}
	if err := json.Unmarshal(readLine(), &first); err != nil {
		t.Fatal(err)
	}
	if first.MessageType != terraform.HoldMessageType || first.Schema.MessageType != "tf_schema" || len(first.Schema.ResourceTypes) == 0 || first.Attach == nil {
		t.Fatalf("first line: %+v", first)
	}
	for range 2 { // asking again repeats the outcome
		if _, err := io.WriteString(toHold, `{"configure":true}`+"\n"); err != nil {
			t.Fatal(err)
		}
		var resp map[string]any
		if err := json.Unmarshal(readLine(), &resp); err != nil || resp["configured"] != true {
			t.Fatalf("configure answer %v (%v)", resp, err)
		}
	}

	b, err := terraform.New(t.Context(), terraform.Options{Plugin: plugin, Attach: first.Attach})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := b.Create(t.Context(), &schema.CreateResourceRequest{Type: "time_static", InputProperties: schema.Properties{}, IsStateful: true})
	if err != nil {
		t.Fatal(err)
	}
	if resp.OutputProperties["rfc3339"] == nil {
		t.Errorf("create through the attached bridge: outputs %v", resp.OutputProperties)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	// End of input stops the provider and the holder.
	toHold.Close()
	if err := <-done; err != nil {
		t.Fatalf("Hold: %v", err)
	}
}
