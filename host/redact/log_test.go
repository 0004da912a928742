package redact

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/pierhq/pier/host/statedoc"
	"github.com/pierhq/pier/schema/logkey"
)

func TestRedactingHandler(t *testing.T) {
	t.Parallel()
	secrets := &Secrets{}
	secrets.Set("db", EntrySecrets(statedoc.Entry{
		InputProperties: map[string]any{"stdin": "hunter2-pw\n"}, SensitiveInputs: []string{"stdin"},
	}))
	tests := map[string]struct {
		log  func(*slog.Logger)
		want string
	}{
		"line about the resource": {
			log:  func(l *slog.Logger) { l.Info("got hunter2-pw here", logkey.Resource, "db") },
			want: `msg="got (sensitive value) here" resource=db`,
		},
		"resource given with With": {
			log:  func(l *slog.Logger) { l.With(logkey.Resource, "db").Warn("hunter2-pw") },
			want: `msg="(sensitive value)" resource=db`,
		},
		"another resource": {
			log:  func(l *slog.Logger) { l.Info("hunter2-pw is not db's here", logkey.Resource, "web") },
			want: `msg="hunter2-pw is not db's here" resource=web`,
		},
		"no resource": {
			log:  func(l *slog.Logger) { l.Info("plain") },
			want: `msg=plain`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			next := slog.NewTextHandler(&b, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey || a.Key == slog.LevelKey {
					return slog.Attr{}
				}
				return a
			}})
			tc.log(slog.New(NewHandler(next, secrets)))
			if got := strings.TrimSpace(b.String()); got != tc.want {
				t.Errorf("logged %s, want %s", got, tc.want)
			}
		})
	}
}
