package statefile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError reports a state file, or a file beside it, that is not
// a regular file: a device, a FIFO, a directory, a socket. pier reads and
// writes state only in regular files, and never changes the mode of, or
// truncates, anything else: as root, a state_file named /dev/null would
// otherwise have made /dev/null private to root.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; a state file must be a regular file", e.Path, kindOf(e.Mode))
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a " + m.Type().String() + " file"
}

// openRegular opens path and refuses it, before reading or writing a
// byte, unless it is a regular file. The open does not block (a FIFO with
// no writer would hold it for ever), and the check is made on the open
// descriptor, so a file swapped in after a check by name cannot slip by.
func openRegular(path string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK, perm)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return f, fi, nil
}

// ReadFile returns the content of the state file at path, refusing a path
// that is not a regular file ([*NotRegularError]), for commands that read a
// log's bytes themselves.
func ReadFile(path string) ([]byte, error) {
	data, _, err := readFile(path)
	return data, err
}
