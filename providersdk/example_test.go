package providersdk_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
)

// greeter is a complete provider with one resource type, "greeting".
type greeter struct{}

type greetingInputs struct {
	Name  string `json:"name"`
	Shout bool   `json:"shout,omitempty"`
}

type greetingOutputs struct {
	Message string `json:"message"`
}

func (greeter) greet(typ string, props schema.Properties) (schema.Properties, error) {
	if typ != "greeting" {
		return nil, fmt.Errorf("unknown resource type %q (supported: greeting)", typ)
	}
	var in greetingInputs
	if err := providersdk.DecodeInputs(props, &in); err != nil {
		return nil, err
	}
	msg := "hello, " + in.Name
	if in.Shout {
		msg = strings.ToUpper(msg)
	}
	return providersdk.EncodeOutputs(greetingOutputs{Message: msg})
}

func (g greeter) Create(_ context.Context, req *schema.CreateResourceRequest) (*schema.CreateResourceResponse, error) {
	out, err := g.greet(req.Type, req.InputProperties)
	if err != nil {
		return nil, err
	}
	return &schema.CreateResourceResponse{OutputProperties: out}, nil
}

func (g greeter) Update(_ context.Context, req *schema.UpdateResourceRequest) (*schema.UpdateResourceResponse, error) {
	out, err := g.greet(req.Resource.Type, req.InputProperties)
	if err != nil {
		return nil, err
	}
	return &schema.UpdateResourceResponse{OutputProperties: out}, nil
}

// A provider's main is one call: providersdk.Serve(ctx, greeter{},
// providersdk.Options{Logger: providersdk.Logger()}). Here the same loop
// runs on a fixed input, as a host would send it, so the responses show.
func Example() {
	requests := strings.Join([]string{
		`{"createResourceRequest":{"type":"greeting","inputProperties":{"name":"pier"},"isStateful":false}}`,
		`{"updateResourceRequest":{"resource":{"type":"greeting","inputProperties":{"name":"pier"}},"inputProperties":{"name":"pier","shout":true}}}`,
		`{"createResourceRequest":{"type":"greeting","inputProperties":{"nmae":"typo"},"isStateful":false}}`,
		`{"createResourceRequest":{"type":"farewell","inputProperties":{},"isStateful":false}}`,
	}, "\n")
	err := providersdk.ServeIO(context.Background(), greeter{}, strings.NewReader(requests), os.Stdout, providersdk.Options{})
	fmt.Println("exit:", err)
	// Output:
	// {"createResourceResponse":{"outputProperties":{"message":"hello, pier"}}}
	// {"updateResourceResponse":{"outputProperties":{"message":"HELLO, PIER"}}}
	// {"errorResponse":{"message":"create greeting: input field \"nmae\": unknown field (known: name, shout)"}}
	// {"errorResponse":{"message":"create farewell: unknown resource type \"farewell\" (supported: greeting)"}}
	// exit: <nil>
}
