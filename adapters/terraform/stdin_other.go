//go:build !unix

package terraform

import "os"

// DetachStdin returns os.Stdin unchanged: only Unix systems let the
// bridge take the request stream away from the provider it starts.
func DetachStdin() (*os.File, error) { return os.Stdin, nil }
