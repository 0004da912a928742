//go:build !unix

package providersdk

import "os"

// TakeStdin returns os.Stdin unchanged where descriptors cannot be
// rearranged; see the Unix version for what it does elsewhere.
func TakeStdin() (requests *os.File, release func() error, err error) {
	return os.Stdin, func() error { return nil }, nil
}
