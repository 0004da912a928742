package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"
)

// TestAppsShareNoFlags builds pier's app twice in one process: no flag
// value may be in both, since a cli.Flag keeps what it parsed (a flag
// list in a package variable would be).
func TestAppsShareNoFlags(t *testing.T) {
	t.Parallel()
	first := flagOwners(newApp(newGlobalOptions(nil, io.Discard, io.Discard)).Commands, "pier")
	if len(first) == 0 {
		t.Fatal("the app has no flags")
	}
	for f, cmd := range flagOwners(newApp(newGlobalOptions(nil, io.Discard, io.Discard)).Commands, "pier") {
		if in, ok := first[f]; ok {
			t.Errorf("flag --%s of %s is also the first app's, of %s", f.Names()[0], cmd, in)
		}
	}
}

// flagOwners maps each flag of cs and their subcommands to its command.
func flagOwners(cs []*cli.Command, parent string) map[cli.Flag]string {
	owners := map[cli.Flag]string{}
	for _, c := range cs {
		name := parent + " " + c.Name
		for _, f := range c.Flags {
			owners[f] = name
		}
		maps.Copy(owners, flagOwners(c.Subcommands, name))
	}
	return owners
}

// TestNoColourIsPerRun runs pier validate twice in one process, each on a
// terminal of its own (a pty): the first with --no-color, the second
// without. The second is coloured: --no-color is an option of its run,
// not a package variable the first run left set.
func TestNoColourIsPerRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hcl := `
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	coloured := sgrGreen + sgrBold + "Success!" + sgrReset
	for _, tc := range []struct {
		flags  []string
		colour bool
	}{
		{[]string{"--no-color"}, false},
		{nil, true},
	} {
		out := runOnTerminal(t, append([]string{"pier", "validate", "--dir", dir}, tc.flags...))
		if !strings.Contains(out, "Success!") {
			t.Fatalf("pier validate %v printed no verdict:\n%q", tc.flags, out)
		}
		if got := strings.Contains(out, coloured); got != tc.colour {
			t.Errorf("pier validate %v on a terminal: coloured %v, want %v:\n%q", tc.flags, got, tc.colour, out)
		}
	}
}

// runOnTerminal runs pier in this process with a new pty as its stdout
// and returns what it wrote there.
func runOnTerminal(t *testing.T, args []string) string {
	t.Helper()
	primary, secondary := openPTY(t)
	var stderr bytes.Buffer
	g := newGlobalOptions(nil, secondary, &stderr)
	g.noColour = false // whatever NO_COLOR says here: the flag is under test
	if err := run(t.Context(), g, args); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, stderr.String())
	}
	secondary.Close()
	out, err := io.ReadAll(primary)
	// Reading a pty whose other end is closed ends in EIO, not EOF.
	if err != nil && !errors.Is(err, syscall.EIO) {
		t.Fatal(err)
	}
	return string(out)
}

// openPTY opens a pseudo-terminal: what is written to secondary is read
// from primary.
func openPTY(t *testing.T) (primary, secondary *os.File) {
	t.Helper()
	primary, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open a pty: %v", err)
	}
	t.Cleanup(func() { primary.Close() })
	fd := int(primary.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	secondary, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { secondary.Close() })
	return primary, secondary
}
