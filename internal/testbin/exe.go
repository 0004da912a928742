package testbin

import (
	"bytes"
	"fmt"
	"io/fs"
	"os/exec"
	"testing"
)

// WriteExecutable writes data to path (creating or truncating it) with
// mode perm, for a test that will then run path as a program.
//
// os.WriteFile would race with exec: while the test binary holds the file
// open for writing, any other goroutine of the same binary may fork, and the
// child keeps a copy of that write descriptor until its own exec closes it
// (O_CLOEXEC only acts at exec). Executing a file that any process has open
// for writing fails with ETXTBSY ("text file busy"), so a parallel test that
// starts a subprocess at the wrong moment breaks this one. Renaming or
// chmod-ing afterwards does not help: the child's descriptor refers to the
// same inode. Writing in a short-lived shell instead means the test binary
// never opens the file, so none of its forks can inherit a write descriptor;
// the shell and its cat have exited, closing theirs, before this returns.
func WriteExecutable(tb testing.TB, path string, data []byte, perm fs.FileMode) {
	tb.Helper()
	if err := writeExecutable(path, data, perm); err != nil {
		tb.Fatal(err)
	}
}

func writeExecutable(path string, data []byte, perm fs.FileMode) error {
	cmd := exec.Command("/bin/sh", "-c", `umask 077 && cat > "$1" && chmod "$2" "$1"`,
		"sh", path, fmt.Sprintf("%o", perm.Perm()))
	cmd.Stdin = bytes.NewReader(data)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("write executable %s: %v\n%s", path, err, out)
	}
	return nil
}

// AppendExecutable appends data to the executable at path, for the same
// reason and in the same way as WriteExecutable.
func AppendExecutable(tb testing.TB, path string, data []byte) {
	tb.Helper()
	cmd := exec.Command("/bin/sh", "-c", `cat >> "$1"`, "sh", path)
	cmd.Stdin = bytes.NewReader(data)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("append to executable %s: %v\n%s", path, err, out)
	}
}
