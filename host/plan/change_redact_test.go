package plan

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/host/provider"
	"github.com/pierhq/pier/host/redact"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema"
)

// TestRedactProviderErrors: a provider's error that echoes a sensitive
// input is shown with the value replaced, in its message and in the
// fields renderers read, and is still the provider's error to errors.As.
func TestRedactProviderErrors(t *testing.T) {
	t.Parallel()
	change := &Change{
		Resource: &source.Resource{
			Inputs:          map[string]any{"path": "dir/hunter2-path", "token": "tok-123456", "n": "1", "rules": []any{map[string]any{"key": "rule-secret"}}},
			SensitiveInputs: []string{"path", "n", "rules.*.key"},
		},
		SensitiveInputs: []string{"token"},
		Prior: &statedoc.Recorded{Entry: statedoc.Entry{
			InputProperties:  map[string]any{"old": "old-secret-value", "sensitive_content": "tf-new"},
			OutputProperties: map[string]any{"old": "old-secret-value", "__tf": map[string]any{"sensitive_paths": []any{"sensitive_content"}}},
			SensitiveInputs:  []string{"old"},
		}},
	}
	secrets := change.SecretTexts()
	if diff := cmp.Diff([]string{"dir/hunter2-path", "old-secret-value", "rule-secret", "tok-123456", "tf-new"}, secrets); diff != "" {
		t.Errorf("secret texts (-want +got):\n%s", diff)
	}
	tests := map[string]struct {
		err  error
		want string
		// field is the text a renderer reads from the provider's error.
		field func(error) string
	}{
		"response error": {
			err:  fmt.Errorf("create: %w", &provider.ResponseError{Provider: "p", Message: `path "dir/hunter2-path" is not local; token tok-123456`}),
			want: `create: provider "p" () at shutdown: provider reported an error: path "(sensitive value)" is not local; token (sensitive value)`,
			field: func(err error) string {
				var re *provider.ResponseError
				if !errors.As(err, &re) {
					return "not a ResponseError"
				}
				return re.Message
			},
		},
		"transport error with stderr": {
			err:  &provider.Error{Provider: "p", Kind: provider.KindExited, Err: errors.New("exited reading rule-secret"), Stderr: []string{"panic: old-secret-value"}},
			want: "provider \"p\" () at shutdown: exited reading (sensitive value)\nlast stderr lines:\n  | panic: (sensitive value)",
			field: func(err error) string {
				var pe *provider.Error
				if !errors.As(err, &pe) {
					return "not an Error"
				}
				return strings.Join(pe.Stderr, "\n")
			},
		},
		"preview diagnostic": {
			err:  &DiagnosticError{Resource: "r", Provider: "p", Diagnostic: schema.Diagnostic{Summary: "Invalid path", Detail: `path "dir/hunter2-path" is not local`}},
			want: `resource r (provider p): Invalid path: path "(sensitive value)" is not local`,
			field: func(err error) string {
				var de *DiagnosticError
				if !errors.As(err, &de) {
					return "not a DiagnosticError"
				}
				return de.Diagnostic.Detail
			},
		},
		"short values stay": {
			err:  errors.New("count 1 is wrong"),
			want: "count 1 is wrong",
		},
		"other errors keep their chain": {
			err:  fmt.Errorf("tok-123456: %w", errCanary),
			want: "(sensitive value): canary",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := redact.Error(tc.err, secrets)
			msg := got.Error()
			if !strings.HasPrefix(msg, tc.want) {
				t.Errorf("message = %q, want it to start with %q", msg, tc.want)
			}
			text := msg
			if tc.field != nil {
				text += "\n" + tc.field(got)
			}
			for _, s := range secrets {
				if strings.Contains(text, s) {
					t.Errorf("%q shows %s", text, s)
				}
			}
			if errors.Is(tc.err, errCanary) && !errors.Is(got, errCanary) {
				t.Error("the redacted error lost its chain")
			}
		})
	}
}

var errCanary = errors.New("canary")
