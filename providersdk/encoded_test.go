package providersdk_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/providersdk/sdktest"
	"github.com/pierhq/pier/schema"
)

// encodedState is a state provider whose reads the request's inputs
// steer: "encoded" is sent as the encoded document, "none" leaves the read
// to StateRead, "fail" and "panic" fail.
type encodedState struct{ echo }

func (encodedState) StateRead(context.Context, *schema.StateResourceReadRequest) (*schema.StateResourceReadResponse, error) {
	return &schema.StateResourceReadResponse{State: schema.Properties{"_type": "nixopsState", "from": "StateRead"}}, nil
}

func (encodedState) StateEvent(context.Context, *schema.StateResourceEvent) (*schema.StateResourceEventResponse, error) {
	return &schema.StateResourceEventResponse{}, nil
}

func (encodedState) StateReadEncoded(_ context.Context, req *schema.StateResourceReadRequest) ([]byte, bool, error) {
	switch req.Resource.InputProperties["mode"] {
	case "none":
		return nil, false, nil
	case "fail":
		return nil, false, errors.New("asked to fail")
	case "panic":
		panic("asked to panic")
	}
	s, _ := req.Resource.InputProperties["encoded"].(string)
	return []byte(s), true, nil
}

var _ providersdk.EncodedStateReader = encodedState{}

// TestServeEncodedState: an EncodedStateReader's bytes are sent as the
// state, in one line, and are still checked against the schema unless the
// host validates; without bytes, StateRead answers.
func TestServeEncodedState(t *testing.T) {
	t.Parallel()
	read := func(inputs string) string {
		return `{"stateResourceReadRequest":{"resource":{"type":"state_file","inputProperties":` + inputs + `}}}`
	}
	tests := map[string]struct {
		line          string
		hostValidates bool
		want          string
	}{
		"bytes sent as they are": {
			line: read(`{"encoded":"{\"_type\":\"nixopsState\",\"resources\":{\"a\":{\"n\":9007199254740993}}}"}`),
			want: `{"stateResourceReadResponse":{"state":{"_type":"nixopsState","resources":{"a":{"n":9007199254740993}}}}}`,
		},
		"line breaks compacted away": {
			line: read(`{"encoded":"{\n  \"_type\": \"nixopsState\"\r\n}"}`),
			want: `{"stateResourceReadResponse":{"state":{"_type":"nixopsState"}}}`,
		},
		"none: StateRead answers": {
			line: read(`{"mode":"none"}`),
			want: `{"stateResourceReadResponse":{"state":{"_type":"nixopsState","from":"StateRead"}}}`,
		},
		"error": {
			line: read(`{"mode":"fail"}`),
			want: `{"errorResponse":{"message":"state read state_file: asked to fail"}}`,
		},
		"panic": {
			line: read(`{"mode":"panic"}`),
			want: `{"errorResponse":{"message":"state read state_file: panic: asked to panic (this is a bug in the provider)"}}`,
		},
		"not an object: refused": {
			line: read(`{"encoded":"[1]"}`),
			want: `{"errorResponse":{"message":"state read state_file: the provider produced an invalid response stateResourceReadResponse: at /stateResourceReadResponse/state: expected object, but got array (this is a bug in the provider)"}}`,
		},
		"not an object, host validates: sent for the host to refuse": {
			line:          read(`{"encoded":"[1]"}`),
			hostValidates: true,
			want:          `{"stateResourceReadResponse":{"state":[1]}}`,
		},
		"not JSON": {
			line: read(`{"encoded":"{\n"}`),
			want: `{"errorResponse":{"message":"state read state_file: encoded state: unexpected end of JSON input"}}`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := sdktest.Start(t, encodedState{}, providersdk.Options{HostValidates: tc.hostValidates})
			got, err := c.CallLine([]byte(tc.line))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		})
	}
}
