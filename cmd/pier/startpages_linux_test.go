package main

import (
	"os"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCleanFileMappings(t *testing.T) {
	t.Parallel()
	smaps := `00400000-00fe8000 r-xp 00000000 fe:00 9981410                            /opt/pier
Size:              12192 kB
Rss:                8796 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me dw sd
00fe8000-01d0a000 r--p 00be8000 fe:00 9981410                            /opt/pier
Size:              13448 kB
Anonymous:             0 kB
01d0a000-01dd1000 rw-p 0190a000 fe:00 9981410                            /opt/pier
Anonymous:           604 kB
01dd1000-01de0000 r--p 019d1000 fe:00 9981410                            /opt/pier
Anonymous:             4 kB
7fc8f7e85000-7fc8f7fdb000 r-xp 00026000 fe:00 326269                     /usr/lib/x86_64-linux-gnu/libc.so.6
Anonymous:             0 kB
7fc8f8000000-7fc8f8001000 r--s 00000000 fe:00 9981410                    /opt/pier
Anonymous:             0 kB
7fc8f8002000-7fc8f8003000 r-xp 00000000 fe:00 9981411                    /opt/pier (deleted)
Anonymous:             0 kB
7ffdce124000-7ffdce145000 rw-p 00000000 00:00 0                          [stack]
Anonymous:           132 kB
`
	got := cleanFileMappings([]byte(smaps), "/opt/pier")
	want := []mapping{{0x00400000, 0x00fe8000}, {0x00fe8000, 0x01d0a000}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(mapping{})); diff != "" {
		t.Errorf("cleanFileMappings (-want +got):\n%s", diff)
	}
}

// TestDropStartupPages reads this test binary's own mappings: the code
// running it is in a mapping cleanFileMappings finds, and the process
// goes on running after the drop.
func TestDropStartupPages(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	pc := reflect.ValueOf(dropStartupPages).Pointer()
	found := false
	for _, m := range cleanFileMappings(smaps, exe) {
		if m.start <= pc && pc < m.end {
			found = true
		}
	}
	if !found {
		t.Fatalf("no clean mapping of %s holds the code at %#x in:\n%s", exe, pc, smaps)
	}
	dropStartupPages()
	after, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	if len(cleanFileMappings(after, exe)) == 0 {
		t.Fatalf("no clean mapping of %s after the drop:\n%s", exe, after)
	}
}
