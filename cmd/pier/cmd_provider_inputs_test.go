package main

import (
	"strings"
	"testing"
)

// TestCreateInputsErrorsHideValues checks that a usage error about an
// input names the flag and the key but never echoes the value, which may
// be a secret, to stderr (and from there into CI logs).
func TestCreateInputsErrorsHideValues(t *testing.T) {
	t.Parallel()
	const secret = "hunter2-s3cr3t"
	tests := map[string]struct {
		strs, jsons []string
		want        string
	}{
		"duplicate string input": {
			strs: []string{"password=" + secret, "password=" + secret},
			want: `--input-str: input "password" is already set by --input-str`,
		},
		"string then JSON input": {
			strs:  []string{"password=" + secret},
			jsons: []string{`password="` + secret + `"`},
			want:  `--input-json: input "password" is already set by --input-str`,
		},
		"JSON value that does not parse": {
			jsons: []string{"password=" + secret},
			want:  "--input-json password: want a JSON value",
		},
		"no equals sign": {
			strs: []string{secret},
			want: "--input-str: want KEY=VALUE",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := createInputs("", tc.strs, tc.jsons)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error %q echoes the input's value", err)
			}
		})
	}
}
