package proc

import (
	"fmt"
	"strings"
	"testing"
)

// TestChildInheritsNoLeakedDescriptor checks that a descriptor pier's
// parent leaked to it (one without close-on-exec) does not pass on to a
// child: only stdin, stdout, stderr and the configuration on fd 3 may.
func TestChildInheritsNoLeakedDescriptor(t *testing.T) {
	t.Parallel()
	out, _ := run(t, Spec{
		Path:       "/bin/sh",
		Args:       []string{"-c", `for f in /proc/$$/fd/*; do echo "${f##*/} $(readlink "$f")"; done`},
		ConfigData: []byte(`{}`),
	})
	leaked := fmt.Sprintf("pipe:[%d]", leakedPipe)
	var fds []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		fd, target, _ := strings.Cut(line, " ")
		fds = append(fds, fd)
		if target == leaked {
			t.Errorf("child holds the leaked pipe on fd %s", fd)
		}
	}
	if !strings.Contains(" "+strings.Join(fds, " ")+" ", " 3 ") {
		t.Errorf("child lacks fd 3, the configuration: fds %v", fds)
	}
}
