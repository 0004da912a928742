package terraform

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/pierhq/pier/adapters/terraform/internal/tfvalue"
	"github.com/pierhq/pier/schema"
	"github.com/zclconf/go-cty/cty"
)

// ReservedKey is the output key under which the bridge keeps what Terraform
// stores beside a resource's state:
//
//	{"__tf": {"schema_version": 1, "private": "<base64>", "sensitive_paths": ["password"]}}
//
// private is omitted when the provider keeps none and round-trips byte for
// byte otherwise. sensitive_paths lists the attributes the schema marks
// sensitive ("*" for any element) so that the host can redact them.
const ReservedKey = "__tf"

// meta is the decoded [ReservedKey] object.
type meta struct {
	SchemaVersion  int64
	Private        []byte
	SensitivePaths []string
}

func (m meta) properties() map[string]any {
	out := map[string]any{"schema_version": m.SchemaVersion}
	if len(m.Private) > 0 {
		out["private"] = base64.StdEncoding.EncodeToString(m.Private)
	}
	if len(m.SensitivePaths) > 0 {
		paths := make([]any, len(m.SensitivePaths))
		for i, p := range m.SensitivePaths {
			paths[i] = p
		}
		out["sensitive_paths"] = paths
	}
	return out
}

// outputs renders a state object and its metadata as v0 output properties.
func outputs(rt *resourceType, state cty.Value, private []byte) (schema.Properties, error) {
	j, err := tfvalue.ToJSON(state)
	if err != nil {
		return nil, fmt.Errorf("encode outputs: %w", err)
	}
	out, ok := j.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("encode outputs: state is not an object")
	}
	if _, clash := out[ReservedKey]; clash {
		return nil, fmt.Errorf("encode outputs: the provider's schema has an attribute named %q, which the bridge reserves", ReservedKey)
	}
	m := meta{SchemaVersion: rt.schema.Version, Private: private, SensitivePaths: rt.sensitive}
	out[ReservedKey] = m.properties()
	return out, nil
}

// splitOutputs separates recorded outputs into the state JSON object and
// the bridge's metadata.
func splitOutputs(props schema.Properties) (map[string]any, meta, error) {
	raw, ok := props[ReservedKey]
	if !ok {
		return nil, meta{}, fmt.Errorf("recorded outputs lack %q: they were not written by the Terraform bridge", ReservedKey)
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, meta{}, fmt.Errorf("recorded outputs: %q is not an object", ReservedKey)
	}
	var m meta
	switch v := obj["schema_version"].(type) {
	case json.Number:
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return nil, meta{}, fmt.Errorf("recorded outputs: %s.schema_version: %w", ReservedKey, err)
		}
		m.SchemaVersion = n
	case float64:
		m.SchemaVersion = int64(v)
	case int64:
		m.SchemaVersion = v
	case int:
		m.SchemaVersion = int64(v)
	case nil:
	default:
		return nil, meta{}, fmt.Errorf("recorded outputs: %s.schema_version is not a number", ReservedKey)
	}
	if p, ok := obj["private"].(string); ok && p != "" {
		b, err := base64.StdEncoding.DecodeString(p)
		if err != nil {
			return nil, meta{}, fmt.Errorf("recorded outputs: %s.private: %w", ReservedKey, err)
		}
		m.Private = b
	}
	state := make(map[string]any, len(props))
	for k, v := range props {
		if k != ReservedKey {
			state[k] = v
		}
	}
	return state, m, nil
}

// rawState encodes recorded state for UpgradeResourceState. State recorded
// under the current schema version is re-encoded the way Terraform stores
// it, so that dynamic attributes carry their type; older state goes as
// recorded, for the provider's upgrader to read against its old schema.
func rawState(rt *resourceType, state map[string]any, version int64) ([]byte, error) {
	ty := rt.ty()
	if version == rt.schema.Version && ty.HasDynamicTypes() {
		if v, err := tfvalue.FromJSON(state, ty, nil); err == nil {
			if data, err := tfvalue.StateJSON(v, ty); err == nil {
				return data, nil
			}
		}
	}
	return schema.AppendJSON(nil, state) // json.Marshal's bytes
}
