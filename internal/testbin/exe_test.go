package testbin

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// TestWriteExecutableWhileForking writes and runs scripts from several
// goroutines at once, each one's exec a fork while the others write. With
// os.WriteFile about one exec in a hundred failed here with ETXTBSY.
func TestWriteExecutableWhileForking(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 25 {
				p := filepath.Join(dir, fmt.Sprintf("s-%d-%d", g, i))
				if err := writeExecutable(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
					t.Error(err)
					return
				}
				if err := exec.Command(p).Run(); err != nil {
					t.Errorf("run %s: %v", p, err)
				}
			}
		})
	}
	wg.Wait()
}
