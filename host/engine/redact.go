package engine

// tfKey is the output key in which the Terraform bridge keeps what Terraform
// needs beside the state object: private bytes, the schema version, and
// the paths of sensitive attributes.
const tfKey = "__tf"

// redacted replaces a sensitive value wherever pier shows state.
const redacted = "(sensitive)"

// Redact returns a copy of output properties fit to show: attributes that
// the provider's schema marks sensitive (listed by the Terraform bridge in
// __tf.sensitive_paths, each path a list of keys and indexes) and the
// opaque private bytes are replaced.
func Redact(outputs map[string]any) map[string]any {
	if outputs == nil {
		return nil
	}
	out := deepCopy(outputs).(map[string]any)
	tf, ok := out[tfKey].(map[string]any)
	if !ok {
		return out
	}
	if _, ok := tf["private"]; ok {
		tf["private"] = redacted
	}
	paths, _ := tf["sensitive_paths"].([]any)
	for _, p := range paths {
		steps, _ := p.([]any)
		redactPath(out, steps)
	}
	return out
}

func redactPath(v any, steps []any) {
	if len(steps) == 0 {
		return
	}
	last := len(steps) == 1
	switch x := v.(type) {
	case map[string]any:
		k, ok := steps[0].(string)
		if !ok {
			return
		}
		if _, present := x[k]; !present {
			return
		}
		if last {
			x[k] = redacted
			return
		}
		redactPath(x[k], steps[1:])
	case []any:
		f, ok := steps[0].(float64)
		i := int(f)
		if !ok || i < 0 || i >= len(x) {
			return
		}
		if last {
			x[i] = redacted
			return
		}
		redactPath(x[i], steps[1:])
	}
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}
