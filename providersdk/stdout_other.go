//go:build !unix

package providersdk

import "os"

// TakeStdout returns os.Stdout unchanged where descriptors cannot be
// rearranged; see the Unix version for what it does elsewhere.
func TakeStdout() (frames *os.File, release func() error, err error) {
	return os.Stdout, func() error { return nil }, nil
}
