package lockholder

import "testing"

func TestWithoutValues(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args []string
		want string
	}{
		"nil":          {nil, ""},
		"subcommand":   {[]string{"/usr/bin/pier", "apply", "--yes"}, "pier apply --yes"},
		"values gone":  {[]string{"pier", "apply", "--var", "token=s3cret", "--dir=/srv/x"}, "pier apply --var … --dir=…"},
		"after a flag": {[]string{"pier", "plan", "-out", "plan.bin"}, "pier plan -out …"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := WithoutValues(tt.args); got != tt.want {
				t.Errorf("WithoutValues(%q) = %q, want %q", tt.args, got, tt.want)
			}
		})
	}
}
