package schema

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ProtocolVersion is the version of the NixOps4 resource protocol that the
// embedded schema describes. A drift test checks it against the schema's $id.
const ProtocolVersion = "v0"

// Properties holds input or output properties: an arbitrary JSON object
// whose fields are defined by the resource provider.
type Properties = map[string]any

// Request is the one-key wrapper object a host writes to a provider. Exactly
// one field is set. DestroyResourceRequest is an optional operation and is
// only sent to providers that declared [OperationDestroy].
type Request struct {
	CreateResourceRequest    *CreateResourceRequest    `json:"createResourceRequest,omitempty"`
	UpdateResourceRequest    *UpdateResourceRequest    `json:"updateResourceRequest,omitempty"`
	StateResourceEvent       *StateResourceEvent       `json:"stateResourceEvent,omitempty"`
	StateResourceReadRequest *StateResourceReadRequest `json:"stateResourceReadRequest,omitempty"`
	DestroyResourceRequest   *DestroyResourceRequest   `json:"destroyResourceRequest,omitempty"`
	ReadResourceRequest      *ReadResourceRequest      `json:"readResourceRequest,omitempty"`
	ImportResourceRequest    *ImportResourceRequest    `json:"importResourceRequest,omitempty"`
	PreviewResourceRequest   *PreviewResourceRequest   `json:"previewResourceRequest,omitempty"`
}

// Response is the one-key wrapper object a provider writes back. Exactly one
// field is set.
type Response struct {
	CreateResourceResponse     *CreateResourceResponse     `json:"createResourceResponse,omitempty"`
	UpdateResourceResponse     *UpdateResourceResponse     `json:"updateResourceResponse,omitempty"`
	StateResourceEventResponse *StateResourceEventResponse `json:"stateResourceEventResponse,omitempty"`
	StateResourceReadResponse  *StateResourceReadResponse  `json:"stateResourceReadResponse,omitempty"`
	DestroyResourceResponse    *DestroyResourceResponse    `json:"destroyResourceResponse,omitempty"`
	ReadResourceResponse       *ReadResourceResponse       `json:"readResourceResponse,omitempty"`
	ImportResourceResponse     *ImportResourceResponse     `json:"importResourceResponse,omitempty"`
	PreviewResourceResponse    *PreviewResourceResponse    `json:"previewResourceResponse,omitempty"`
	ErrorResponse              *ErrorResponse              `json:"errorResponse,omitempty"`
}

// ExtantResource is a resource that already exists, as recorded in state.
type ExtantResource struct {
	Type             string     `json:"type"`
	InputProperties  Properties `json:"inputProperties"`
	OutputProperties Properties `json:"outputProperties,omitempty"`
}

// CreateResourceRequest asks a provider to create a resource. Plan, an
// extension of v0 sent only to a provider that declared
// [OperationPreview], is the [PreviewResourceResponse.Plan] of this
// create's preview.
type CreateResourceRequest struct {
	Type            string     `json:"type"`
	InputProperties Properties `json:"inputProperties"`
	IsStateful      bool       `json:"isStateful"`
	Plan            string     `json:"plan,omitempty"`
}

// CreateResourceResponse carries the outputs of a created resource.
type CreateResourceResponse struct {
	OutputProperties Properties `json:"outputProperties"`
}

// UpdateResourceRequest asks a provider to bring an existing resource to new
// inputs. Plan is as in [CreateResourceRequest].
type UpdateResourceRequest struct {
	Resource        ExtantResource `json:"resource"`
	InputProperties Properties     `json:"inputProperties"`
	Plan            string         `json:"plan,omitempty"`
}

// UpdateResourceResponse carries the outputs of an updated resource.
type UpdateResourceResponse struct {
	OutputProperties Properties `json:"outputProperties"`
}

// StateResourceReadRequest asks a state provider for the whole state it
// stores.
type StateResourceReadRequest struct {
	Resource ExtantResource `json:"resource"`
}

// StateResourceReadResponse is the state document a state provider stores.
type StateResourceReadResponse struct {
	State map[string]any `json:"state"`
}

// StateResourceEvent asks a state provider to record a change as an RFC 6902
// JSON Patch.
type StateResourceEvent struct {
	Resource      ExtantResource `json:"resource"`
	Event         string         `json:"event"`
	NixopsVersion string         `json:"nixopsVersion"`
	Patch         Patch          `json:"patch"`
}

// StateResourceEventResponse acknowledges a recorded state event.
type StateResourceEventResponse struct{}

// DestroyResourceRequest is the optional destroy operation (see
// [OperationDestroy]).
type DestroyResourceRequest struct {
	Resource ExtantResource `json:"resource"`
}

// DestroyResourceResponse acknowledges a destroyed resource.
type DestroyResourceResponse struct{}

// ReadResourceRequest is the optional read operation (see [OperationRead]):
// report the resource's current state, for refresh and drift detection.
type ReadResourceRequest struct {
	Resource ExtantResource `json:"resource"`
}

// ReadResourceResponse reports a resource's current outputs. Exists is false
// when the real object is gone; OutputProperties is then omitted.
// InputProperties, optional, are the inputs that would reproduce the object
// as it is now, as an import reports them: a local file's contents are an
// input, so its drift can only be told this way. Absent means the provider
// cannot tell, and the recorded inputs stand.
type ReadResourceResponse struct {
	Exists           bool       `json:"exists"`
	OutputProperties Properties `json:"outputProperties,omitempty"`
	InputProperties  Properties `json:"inputProperties,omitempty"`
}

// ImportResourceRequest is the optional import operation (see
// [OperationImport]): adopt an existing object of Type identified by ID.
type ImportResourceRequest struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// ImportResourceResponse describes the adopted object: the inputs that
// would reproduce it, and its outputs.
type ImportResourceResponse struct {
	InputProperties  Properties `json:"inputProperties"`
	OutputProperties Properties `json:"outputProperties"`
}

// PreviewResourceRequest is the optional preview operation (see
// [OperationPreview]): say what creating a Type from InputProperties, or
// updating Resource to them, would do, without doing it. Resource is nil
// for a create; for an update its type is Type. IsStateful says, for a
// create, whether the outputs will be recorded, as in
// [CreateResourceRequest]. The plan uses it to check inputs, show planned
// outputs and show replacements.
type PreviewResourceRequest struct {
	Type            string          `json:"type"`
	Resource        *ExtantResource `json:"resource,omitempty"`
	InputProperties Properties      `json:"inputProperties"`
	IsStateful      bool            `json:"isStateful,omitempty"`
}

// PreviewResourceResponse says what the create or update would do.
// Replace says whether the update would replace the resource (destroy and
// create it anew) and, if so, ReplaceReasons which attributes force that,
// as paths such as "triggers" or "rule.0.port". PlannedOutputProperties are
// the outputs expected, where the provider can tell; UnknownOutputs are the
// paths of outputs known only after apply. Diagnostics with severity error
// mean the change would fail: the plan fails with them.
//
// Plan is the provider's own record of the change, opaque to the host:
// what it needs to carry it out later without planning it again. The host
// hands it back unchanged on the create or update of the same change (as
// [CreateResourceRequest.Plan], [UpdateResourceRequest.Plan]), also from a
// saved plan, and never shows or logs it: it may hold input values,
// secrets among them. A provider must check that a plan it is handed fits
// the request, and plan again when it does not.
type PreviewResourceResponse struct {
	Replace                 bool            `json:"replace"`
	ReplaceReasons          []string        `json:"replaceReasons,omitempty"`
	PlannedOutputProperties Properties      `json:"plannedOutputProperties,omitempty"`
	UnknownOutputs          []AttributePath `json:"unknownOutputs,omitempty"`
	Diagnostics             []Diagnostic    `json:"diagnostics,omitempty"`
	Plan                    string          `json:"plan,omitempty"`
}

// Diagnostic is a provider's message to the user about a resource: what is
// wrong (Summary, Detail) and, when it is about one input, where
// (Attribute, a path into the inputProperties).
type Diagnostic struct {
	Severity  Severity      `json:"severity"`
	Summary   string        `json:"summary"`
	Detail    string        `json:"detail,omitempty"`
	Attribute AttributePath `json:"attribute,omitempty"`
}

// Severity says whether a [Diagnostic] stops the change.
type Severity string

// The severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// AttributePath addresses a value inside a properties object, one step
// per level: a string is an object key, an integer a list index, so that
// ["rule", 0, "port"] is the port of the first rule. Decoded from JSON,
// an index is a float64 or a [json.Number]; [StepIndex] reads either.
type AttributePath []any

// StepIndex returns the list index a path step holds, if it holds one.
func StepIndex(step any) (int, bool) {
	switch v := step.(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case float64:
		if v == float64(int(v)) {
			return int(v), true
		}
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return int(n), true
		}
	}
	return 0, false
}

// String renders a path as users read it, e.g. rule[0].port.
func (p AttributePath) String() string {
	var b []byte
	for i, step := range p {
		if n, ok := StepIndex(step); ok {
			b = fmt.Appendf(b, "[%d]", n)
			continue
		}
		if i > 0 {
			b = append(b, '.')
		}
		b = fmt.Append(b, step)
	}
	return string(b)
}

// ErrorResponse reports that the requested operation failed.
type ErrorResponse struct {
	Message string `json:"message"`
}

// StateLockedPrefix begins the errorResponse message of a state provider
// that cannot take its state's lock because another process holds it.
// v0 errors carry only a message, so this prefix is pier's convention for
// telling "locked" from other failures: the host then exits with its
// "state locked" code, whichever state provider refused.
const StateLockedPrefix = "state locked: "

// OutcomeUnknownExitStatus is the exit status of a provider that exits
// without answering a request because it cannot tell whether the
// request's operation took effect: the call that makes or removes the real
// object lost its answer. v0 has no error that says "maybe": an
// errorResponse tells the host that nothing was done, and a host that
// recorded the operation as pending clears it. A provider that dies
// mid-request is "maybe" to every host, whatever its status; this status
// lets pier's host say why. pier's own adapters use it.
const OutcomeUnknownExitStatus = 75

// StateLocked reports whether an errorResponse message says that the
// state is locked by another process (see [StateLockedPrefix]).
func StateLocked(message string) bool { return strings.HasPrefix(message, StateLockedPrefix) }

// Patch is an RFC 6902 JSON Patch document.
type Patch []PatchOperation

// PatchOperation is one operation of a JSON Patch. Value is kept raw so that
// a patch round-trips byte for byte; From is set for move and copy.
type PatchOperation struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	From  string          `json:"from,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
}

// Kind names the one field set in a [Request] or [Response], as it appears
// on the wire (e.g. "createResourceRequest"). It is "" when none or more
// than one is set.
func (r *Request) Kind() string {
	return oneKind([]kindSet{
		{"createResourceRequest", r.CreateResourceRequest != nil},
		{"updateResourceRequest", r.UpdateResourceRequest != nil},
		{"stateResourceEvent", r.StateResourceEvent != nil},
		{"stateResourceReadRequest", r.StateResourceReadRequest != nil},
		{"destroyResourceRequest", r.DestroyResourceRequest != nil},
		{"readResourceRequest", r.ReadResourceRequest != nil},
		{"importResourceRequest", r.ImportResourceRequest != nil},
		{"previewResourceRequest", r.PreviewResourceRequest != nil},
	}...)
}

// ResourceType returns the resource type the request is about.
func (r *Request) ResourceType() string {
	switch {
	case r.CreateResourceRequest != nil:
		return r.CreateResourceRequest.Type
	case r.UpdateResourceRequest != nil:
		return r.UpdateResourceRequest.Resource.Type
	case r.StateResourceEvent != nil:
		return r.StateResourceEvent.Resource.Type
	case r.StateResourceReadRequest != nil:
		return r.StateResourceReadRequest.Resource.Type
	case r.DestroyResourceRequest != nil:
		return r.DestroyResourceRequest.Resource.Type
	case r.ReadResourceRequest != nil:
		return r.ReadResourceRequest.Resource.Type
	case r.ImportResourceRequest != nil:
		return r.ImportResourceRequest.Type
	case r.PreviewResourceRequest != nil:
		return r.PreviewResourceRequest.Type
	}
	return ""
}

// ResponseKind returns the response kind that answers a request kind, e.g.
// "createResourceResponse" for "createResourceRequest".
func ResponseKind(requestKind string) string {
	switch requestKind {
	case "createResourceRequest":
		return "createResourceResponse"
	case "updateResourceRequest":
		return "updateResourceResponse"
	case "stateResourceEvent":
		return "stateResourceEventResponse"
	case "stateResourceReadRequest":
		return "stateResourceReadResponse"
	case "destroyResourceRequest":
		return "destroyResourceResponse"
	case "readResourceRequest":
		return "readResourceResponse"
	case "importResourceRequest":
		return "importResourceResponse"
	case "previewResourceRequest":
		return "previewResourceResponse"
	}
	return ""
}

// Kind names the one field set in the response; see [Request.Kind].
func (r *Response) Kind() string {
	return oneKind([]kindSet{
		{"createResourceResponse", r.CreateResourceResponse != nil},
		{"updateResourceResponse", r.UpdateResourceResponse != nil},
		{"stateResourceEventResponse", r.StateResourceEventResponse != nil},
		{"stateResourceReadResponse", r.StateResourceReadResponse != nil},
		{"destroyResourceResponse", r.DestroyResourceResponse != nil},
		{"readResourceResponse", r.ReadResourceResponse != nil},
		{"importResourceResponse", r.ImportResourceResponse != nil},
		{"previewResourceResponse", r.PreviewResourceResponse != nil},
		{"errorResponse", r.ErrorResponse != nil},
	}...)
}

// kindSet is one field of a wrapper: its name on the wire, and whether
// it is set.
type kindSet struct {
	name string
	set  bool
}

// oneKind names the one field set, "" when none or more than one is. It
// is asked of every request and response, so the fields are a list on
// the stack, not a map.
func oneKind(fields ...kindSet) string {
	kind := ""
	for _, f := range fields {
		if !f.set {
			continue
		}
		if kind != "" {
			return ""
		}
		kind = f.name
	}
	return kind
}

// Operation is an optional protocol operation beyond v0 that a provider may
// declare. The host never sends an operation's messages to a provider that
// has not declared it.
type Operation string

// The optional operations.
const (
	// OperationDestroy is destroyResourceRequest → destroyResourceResponse.
	OperationDestroy Operation = "destroy"
	// OperationRead is readResourceRequest → readResourceResponse: read a
	// resource's current state (refresh and drift).
	OperationRead Operation = "read"
	// OperationImport is importResourceRequest → importResourceResponse:
	// adopt an existing object by id.
	OperationImport Operation = "import"
	// OperationPreview is previewResourceRequest → previewResourceResponse:
	// say what a create or update would do (whether its inputs are valid,
	// its planned outputs, whether an update replaces), for the plan.
	OperationPreview Operation = "preview"
)

// ParseOperation checks that name is a known optional operation.
func ParseOperation(name string) (Operation, error) {
	switch op := Operation(name); op {
	case OperationDestroy, OperationRead, OperationImport, OperationPreview:
		return op, nil
	}
	return "", fmt.Errorf("unknown optional operation %q (known: destroy, read, import, preview)", name)
}
