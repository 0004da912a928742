package main

// Scenario commands that look into what pier leaves on disk, or set up
// what a scenario's archive cannot hold literally. Each is listed in
// testdata/scenarios/README.md.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/pierhq/pier/internal/nixops4state"
	"github.com/pierhq/pier/statefile"
)

// fileCmds are the scenario commands of this file, by name.
var fileCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"state":      cmdState,
	"append":     cmdAppend,
	"executable": cmdExecutable,
	"mkfifo":     cmdMkfifo,
	"repeat":     cmdRepeat,
	"nixops4":    cmdNixOps4,
	"sha256":     cmdSHA256,
	"capture":    cmdCapture,
}

// cmdState prints the document the state log FILE replays to, or the value
// at a JSON Pointer in it, as compact JSON (object members sorted); with
// -keys, the member names of that object, one a line. A file not written
// yet replays to {}, as to pier. A torn or corrupt log fails the command.
//
//	state [-keys] FILE [POINTER]
func cmdState(ts *testscript.TestScript, neg bool, args []string) {
	keys := len(args) > 0 && args[0] == "-keys"
	if keys {
		args = args[1:]
	}
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: state [-keys] FILE [POINTER]")
	}
	doc := map[string]any{}
	f, err := os.Open(ts.MkAbs(args[0]))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		ts.Fatalf("%v", err)
	default:
		r, err := statefile.Replay(f)
		f.Close()
		if err != nil {
			ts.Fatalf("replay %s: %v", args[0], err)
		}
		doc = r.State
	}
	var v any = doc
	if len(args) == 2 {
		v, err = pointerValue(doc, args[1])
		ts.Check(err)
	}
	if keys {
		m, ok := v.(map[string]any)
		if !ok && v != nil {
			ts.Fatalf("state -keys: %s is not an object", args[len(args)-1])
		}
		// Stdout even when there are no keys: stdout must then be empty,
		// not the previous command's.
		w := ts.Stdout()
		for _, k := range slices.Sorted(maps.Keys(m)) {
			fmt.Fprintln(w, k)
		}
		return
	}
	b, err := json.Marshal(v)
	ts.Check(err)
	fmt.Fprintf(ts.Stdout(), "%s\n", b)
}

// pointerValue is the value at an RFC 6901 pointer in doc; a missing
// member is nil (printed null), so a scenario can say something is absent.
func pointerValue(doc any, pointer string) (any, error) {
	if pointer == "" {
		return doc, nil
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, fmt.Errorf("JSON Pointer %q does not start with /", pointer)
	}
	v := doc
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch c := v.(type) {
		case map[string]any:
			v = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, nil
			}
			v = c[i]
		default:
			return nil, nil
		}
	}
	return v, nil
}

// cmdAppend appends the contents of SRC to FILE, as another writer
// (NixOps4) would; with -n, without SRC's final newline, as a crash
// mid-append leaves a line unfinished (an archive's files end in one).
//
//	append [-n] FILE SRC
func cmdAppend(ts *testscript.TestScript, neg bool, args []string) {
	trim := len(args) > 0 && args[0] == "-n"
	if trim {
		args = args[1:]
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: append [-n] FILE SRC")
	}
	data, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	if trim {
		data = bytes.TrimSuffix(data, []byte("\n"))
	}
	appendFile(ts, args[0], data)
}

func appendFile(ts *testscript.TestScript, name string, data []byte) {
	f, err := os.OpenFile(ts.MkAbs(name), os.O_APPEND|os.O_WRONLY, 0)
	ts.Check(err)
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	ts.Check(err)
}

// cmdExecutable writes the contents of the SRC files, one after another,
// to FILE, mode 0755, for the scenario to run as a program (a provider, a
// wrapper). It writes through a short-lived shell, as
// testbin.WriteExecutable does: a file this test binary held open for
// writing could be inherited by a parallel scenario's fork, and executing
// it would then fail with ETXTBSY ("text file busy").
//
//	executable FILE SRC...
func cmdExecutable(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: executable FILE SRC...")
	}
	var data []byte
	for _, src := range args[1:] {
		b, err := os.ReadFile(ts.MkAbs(src))
		ts.Check(err)
		data = append(data, b...)
	}
	cmd := exec.Command("/bin/sh", "-c", `umask 077 && cat > "$1" && chmod 755 "$1"`, "sh", ts.MkAbs(args[0]))
	cmd.Stdin = bytes.NewReader(data)
	if out, err := cmd.CombinedOutput(); err != nil {
		ts.Fatalf("executable %s: %v\n%s", args[0], err, out)
	}
}

// cmdMkfifo makes a named pipe with permissions PERM (octal).
//
//	mkfifo FILE PERM
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mkfifo FILE PERM")
	}
	perm, err := strconv.ParseUint(args[1], 8, 32)
	ts.Check(err)
	path := ts.MkAbs(args[0])
	ts.Check(syscall.Mkfifo(path, uint32(perm)))
	ts.Check(os.Chmod(path, os.FileMode(perm))) // past the umask
}

// cmdRepeat sets the variable NAME to TEXT repeated N times: input too
// large to write out in an archive, such as 100,000 nested brackets.
//
//	repeat NAME N TEXT
func cmdRepeat(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: repeat NAME N TEXT")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n < 0 {
		ts.Fatalf("repeat: bad count %q", args[1])
	}
	ts.Setenv(args[0], strings.Repeat(args[2], n))
}

// cmdSHA256 sets the variable NAME to the SHA-256 of FILE, in hex, for a
// scenario to look for where pier names or records the file's hash.
//
//	sha256 NAME FILE
func cmdSHA256(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sha256 NAME FILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	sum := sha256.Sum256(data)
	ts.Setenv(args[0], hex.EncodeToString(sum[:]))
}

// cmdCapture sets the variable NAME to the last command's standard
// output, without its final newline: a value pier chose (a deposed
// object's key, a hash) that a later command must name.
//
//	capture NAME
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: capture NAME")
	}
	ts.Setenv(args[0], strings.TrimSuffix(ts.ReadFile("stdout"), "\n"))
}

// cmdNixOps4 reads a state file as NixOps4 does (internal/nixops4state),
// failing where NixOps4 would refuse it, and prints the tree of
// deployments and resources with their types; with -json, the document it
// decodes, as JSON. "create" first appends the event NixOps4 writes when
// it records a new resource at ADDR (composite names and the resource's
// own, joined by dots), with the given inputs and outputs.
//
//	nixops4 [-json] FILE
//	nixops4 create FILE ADDR TYPE INPUTS OUTPUTS
func cmdNixOps4(ts *testscript.TestScript, neg bool, args []string) {
	asJSON := false
	switch {
	case !neg && len(args) == 1:
	case !neg && len(args) == 2 && args[0] == "-json":
		asJSON, args = true, args[1:]
	case !neg && len(args) == 6 && args[0] == "create":
		data, err := os.ReadFile(ts.MkAbs(args[1]))
		ts.Check(err)
		r := nixops4state.Resource{Type: args[3]}
		if err := json.Unmarshal([]byte(args[4]), &r.InputProperties); err != nil {
			ts.Fatalf("nixops4 create: inputs: %v", err)
		}
		if err := json.Unmarshal([]byte(args[5]), &r.OutputProperties); err != nil {
			ts.Fatalf("nixops4 create: outputs: %v", err)
		}
		ev, err := nixops4state.Write(data, strings.Split(args[2], "."), "create", r)
		if err != nil {
			ts.Fatalf("NixOps4 cannot read %s: %v", args[1], err)
		}
		appendFile(ts, args[1], ev)
		args = args[1:2]
	default:
		ts.Fatalf("usage: nixops4 [-json] FILE | nixops4 create FILE ADDR TYPE INPUTS OUTPUTS")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	st, err := nixops4state.ReadFile(data)
	if err != nil {
		ts.Fatalf("NixOps4 cannot read %s: %v", args[0], err)
	}
	if asJSON {
		b, err := json.Marshal(st)
		ts.Check(err)
		fmt.Fprintf(ts.Stdout(), "%s\n", b)
		return
	}
	printNixOps4Tree(ts.Stdout(), st.Deployment, "")
}

func TestPointerValue(t *testing.T) {
	doc := map[string]any{
		"resources": map[string]any{"a/b": map[string]any{"x~y": "v"}},
		"list":      []any{"zero", "one"},
	}
	for _, tc := range []struct {
		pointer string
		want    any
	}{
		{"", doc},
		{"/resources/a~1b/x~0y", "v"},
		{"/list/1", "one"},
		{"/list/2", nil},
		{"/list/x", nil},
		{"/missing/deeper", nil},
		{"/resources/a~1b/x~0y/under", nil},
	} {
		got, err := pointerValue(doc, tc.pointer)
		if err != nil {
			t.Errorf("%q: %v", tc.pointer, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q = %v, want %v", tc.pointer, got, tc.want)
		}
	}
	if _, err := pointerValue(doc, "resources"); err == nil {
		t.Error("a pointer without a leading / was taken")
	}
}
