package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pierLog writes a log through the writer: the initialising event, two
// creates and an update, each with its checksum.
func pierLog(t *testing.T) (path string, data []byte) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "state.json")
	l, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(Meta{Event: "create"}, createPatch("alpha")); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(Meta{Event: "create", Extra: map[string]any{"note": "é ✓"}}, createPatch("beta")); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(Meta{Event: "update"}, createPatch("alpha")); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	data, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte(`"meta":{"`+ChecksumKey+`":"crc32c:`)); n != 4 {
		t.Fatalf("%d of 4 events carry a checksum:\n%s", n, data)
	}
	return path, data
}

// TestEveryByteFlipIsRefusedOrHarmless is the audit's experiment made
// exhaustive: every byte of a pier-written log, flipped by each of four
// bit masks. Before checksums, 15 of 30 random flips were accepted and 4
// of them changed the resolved state. Now a flip is refused, or changes
// nothing the state holds (say, the case of a checksum's hex digit).
func TestEveryByteFlipIsRefusedOrHarmless(t *testing.T) {
	t.Parallel()
	_, data := pierLog(t)
	want, err := Replay(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	flips, accepted := 0, 0
	for i := range data {
		for _, mask := range []byte{0x01, 0x04, 0x20, 0x80} {
			flipped := bytes.Clone(data)
			flipped[i] ^= mask
			flips++
			got, err := Replay(bytes.NewReader(flipped))
			if err != nil {
				continue
			}
			accepted++
			if d := cmp.Diff(want.State, got.State); d != "" || got.LastIndex != want.LastIndex || len(got.Events) != len(want.Events) {
				t.Errorf("byte %d (%q) ^ %#x was accepted and changed what the log resolves to (-want +got):\n%s\nlast index %d, %d events", i, data[i], mask, d, got.LastIndex, len(got.Events))
			}
		}
	}
	t.Logf("%d of %d single-byte flips accepted, none changing the state", accepted, flips)
}

// TestChecksumRefusedEverywhere: an event whose content no longer matches
// its checksum stops every reader and writer (Read, Open, Verify,
// Compact), even with a resolved-state cache beside the log; removing the
// checksum member accepts the event as it now is, as NixOps4's own events
// are accepted.
func TestChecksumRefusedEverywhere(t *testing.T) {
	t.Parallel()
	path, data := pierLog(t)
	if _, err := os.Stat(path + CacheSuffix); err != nil {
		t.Fatalf("the writer left no cache: %v", err)
	}
	edited := bytes.Replace(data, []byte(`"id":"beta"`), []byte(`"id":"gamma"`), 1)
	if err := os.WriteFile(path, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	check := func(what string, err error) {
		t.Helper()
		var ee *EventError
		if !errors.Is(err, ErrChecksum) || !errors.As(err, &ee) || ee.Ordinal != 2 {
			t.Errorf("%s of an edited event: %v, want a checksum mismatch at event 2", what, err)
		}
	}
	_, err := Read(path)
	check("Read", err)
	_, err = Open(path, Options{})
	check("Open", err)
	_, err = Verify(path)
	check("Verify", err)
	check("Compact", Compact(path, Options{}))
	_, err = Replay(bytes.NewReader(edited))
	check("Replay", err)
	if now, _ := os.ReadFile(path); !bytes.Equal(now, edited) {
		t.Errorf("a refused log was changed")
	}

	lines := strings.SplitAfter(string(edited), "\n")
	start := strings.Index(lines[2], `"`+ChecksumKey)
	end := start + strings.Index(lines[2][start:], ",") + 1
	lines[2] = lines[2][:start] + lines[2][end:]
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Read(path)
	if err != nil {
		t.Fatalf("an event without its checksum: %v", err)
	}
	st := mustState(t, s)
	if id := st["resources"].(map[string]any)["beta"].(map[string]any)["outputProperties"].(map[string]any)["id"]; id != "gamma" {
		t.Errorf("beta's id is %v, want the edited gamma", id)
	}
}

// TestChecksumSurvivesReformatting: a pier log pretty-printed afterwards
// (as jq . would print it) differs from what pier wrote only in
// whitespace, and still replays, to the same state.
func TestChecksumSurvivesReformatting(t *testing.T) {
	t.Parallel()
	_, data := pierLog(t)
	want, err := Replay(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if err := json.Indent(&pretty, line, "", "  "); err != nil {
			t.Fatal(err)
		}
		pretty.WriteString("\n")
	}
	got, err := Replay(&pretty)
	if err != nil {
		t.Fatalf("pretty-printed pier log: %v", err)
	}
	if d := cmp.Diff(want.State, got.State); d != "" {
		t.Errorf("state (-compact +pretty):\n%s", d)
	}
}

// TestInvalidUTF8Refused: JSON text is UTF-8, and NixOps4's reader
// refuses anything else. pier used to read a bad byte as U+FFFD, so that
// verify said ok and compaction made the replacement permanent; now
// every reader refuses it, in pier's events and NixOps4's alike, and
// names where it is.
func TestInvalidUTF8Refused(t *testing.T) {
	t.Parallel()
	for name, event := range map[string]string{
		"in a value":  `{"index":0,"meta":{"time":"t"},"patch":[{"op":"add","path":"/resources/x","value":{"type":"file","inputProperties":{"s":"caf` + "\xe9" + `"},"outputProperties":{}}}]}`,
		"in a member": `{"index":0,"meta":{"time":"t"},"patch":[{"op":"add","path":"/resources/x` + "\xff" + `","value":{}}]}`,
		"in meta":     `{"index":0,"meta":{"time":"t` + "\xc3" + `"},"patch":[]}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path, data := pierLog(t)
			bad := append(bytes.Clone(data), event+"\n"...)
			if err := os.WriteFile(path, bad, 0o600); err != nil {
				t.Fatal(err)
			}
			check := func(what string, err error) {
				t.Helper()
				var ee *EventError
				if !errors.Is(err, ErrInvalidUTF8) || !errors.As(err, &ee) || ee.Ordinal != 4 {
					t.Errorf("%s: %v, want invalid UTF-8 in event 4", what, err)
				}
			}
			_, err := Read(path)
			check("Read", err)
			_, err = Verify(path)
			check("Verify", err)
			check("Compact", Compact(path, Options{}))
			if now, _ := os.ReadFile(path); !bytes.Equal(now, bad) {
				t.Errorf("a refused log was changed")
			}
		})
	}
}

// TestDecodedEventCarriesNoChecksum: a checksum belongs to the line it
// was read from. An event decoded from one (as pier state push reads a
// log) keeps none, so that the store it is copied into, PostgreSQL's
// jsonb reordering its members, or the writer that encodes it again,
// never holds one that no longer matches.
func TestDecodedEventCarriesNoChecksum(t *testing.T) {
	t.Parallel()
	_, data := pierLog(t)
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	var ev Event
	if err := json.Unmarshal(lines[2], &ev); err != nil {
		t.Fatal(err)
	}
	if _, ok := ev.Meta.Extra[ChecksumKey]; ok || ev.Meta.Extra["note"] != "é ✓" {
		t.Errorf("decoded meta extra = %v, want the note and no checksum", ev.Meta.Extra)
	}
	line, err := ev.encodeLine()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(line), lines[2]) {
		t.Errorf("encoded again:\n%s\nwant what was read:\n%s", line, lines[2])
	}
}
