package main

import "testing"

func TestCPUProfilePath(t *testing.T) {
	tests := []struct {
		path string
		args []string
		want string
	}{
		{"", []string{"pier", "adapter", "terraform"}, ""},
		{"/tmp/p", []string{"pier", "apply"}, "/tmp/p"},
		{"/tmp/p", []string{"pier"}, "/tmp/p"},
		{"/tmp/p", []string{"pier", "adapter", "terraform", "--plugin", "x"}, "/tmp/p.terraform-42"},
		{"/tmp/p", []string{"pier", "adapter", "local"}, "/tmp/p.local-42"},
		{"/tmp/p", []string{"pier", "tf", "hold", "--plugin", "x"}, "/tmp/p.tf-hold-42"},
		{"/tmp/p", []string{"pier", "tf", "schema"}, "/tmp/p"},
	}
	for _, tt := range tests {
		if got := cpuProfilePath(tt.path, tt.args, 42); got != tt.want {
			t.Errorf("cpuProfilePath(%q, %q) = %q, want %q", tt.path, tt.args, got, tt.want)
		}
	}
}
