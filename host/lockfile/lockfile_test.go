package lockfile

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/internal/testbin"
)

var update = flag.Bool("update", false, "rewrite golden files")

func writeExe(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	testbin.WriteExecutable(t, path, []byte(content), 0o755)
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	f := New()
	for _, e := range []*Entry{
		{Key: "registry.terraform.io/hashicorp/time", Kind: KindPackage, Version: "0.14.2", Hashes: []string{"h1:b", "h1:a"}},
		{Key: "kv", Kind: KindExecutable, Executable: "../providers/python-kv/provider.py", Hashes: []string{"sha256:00ff"}},
		{Key: "tf", Kind: KindExecutable, Executable: "bin/terraform-provider-x", Terraform: true, Hashes: []string{"sha256:11ee"}},
		{Key: "nixy", Kind: KindStorePath, Executable: "/nix/store/abc-nixy/bin/nixy", StorePath: "/nix/store/abc-nixy"},
	} {
		f.Entries[e.Key] = e
	}
	f.Modules["git::file:///srv/mods.git//site?ref=main"] = "0123456789abcdef0123456789abcdef01234567"
	text := f.Bytes()
	back, diags := Parse(text, Name)
	if diags.HasErrors() {
		t.Fatalf("Parse(Bytes()): %s\n%s", diags, text)
	}
	// Bytes sorts hashes; compare against the sorted form.
	f.Entries["registry.terraform.io/hashicorp/time"].Hashes = []string{"h1:a", "h1:b"}
	if d := cmp.Diff(f, back); d != "" {
		t.Errorf("round trip (-want +got):\n%s\n%s", d, text)
	}
	if again := back.Bytes(); string(again) != string(text) {
		t.Errorf("second rendering differs:\n%s\n---\n%s", text, again)
	}
	golden := "testdata/roundtrip.pier.lock.hcl"
	if *update {
		if err := os.WriteFile(golden, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), string(text)); d != "" {
		t.Errorf("rendering (-want +got):\n%s", d)
	}
}

func TestParseErrorsNameTheBlock(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"no hashes":  `provider "kv" { executable = "x" }`,
		"nothing":    `provider "kv" {}`,
		"duplicate":  "provider \"a\" { version = \"1\"\nhashes = [\"h1:x\"] }\nprovider \"a\" { version = \"1\"\nhashes = [\"h1:x\"] }",
		"bad syntax": `provider "kv" {`,
		"short pin":  `module "git::x" { commit = "abc" }`,
		"no commit":  `module "git::x" {}`,
		"dup pin":    "module \"git::x\" { commit = \"0123456789abcdef0123456789abcdef01234567\" }\nmodule \"git::x\" { commit = \"0123456789abcdef0123456789abcdef01234567\" }",
	}
	for name, src := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, diags := Parse([]byte(src), Name)
			if !diags.HasErrors() {
				t.Fatal("no error")
			}
			if !strings.Contains((&DiagnosticsError{diags}).Error(), Name+":") {
				t.Errorf("error has no position: %s", diags)
			}
		})
	}
}

func TestChangedExecutableIsRefusedWithBothHashes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe := filepath.Join(dir, "providers", "kv.py")
	writeExe(t, exe, "#!/usr/bin/env python3\nprint('reviewed')\n")
	decls := map[string]*source.Provider{
		"kv":    {Name: "kv", Executable: exe},
		"local": {Name: "local", Builtin: "local"},
	}
	lock, err := New().Lock(decls, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := lock.Entries["kv"]; got == nil || got.Executable != "providers/kv.py" || len(got.Hashes) != 1 || !strings.HasPrefix(got.Hashes[0], "sha256:") {
		t.Fatalf("lock entry = %+v", got)
	}
	if _, ok := lock.Entries["local"]; ok {
		t.Error("a builtin provider was locked")
	}
	path := filepath.Join(dir, Name)
	if err := lock.Write(path); err != nil {
		t.Fatal(err)
	}
	lock, _, err = Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.Verify(decls["kv"], dir); err != nil {
		t.Fatalf("unchanged executable: %v", err)
	}
	expected := lock.Entries["kv"].Hashes[0]
	writeExe(t, exe, "#!/usr/bin/env python3\nprint('not what was reviewed')\n")
	actual, _ := FileHash(exe)
	_, err = lock.Verify(decls["kv"], dir)
	var me *MismatchError
	if !errors.As(err, &me) {
		t.Fatalf("Verify after change = %v, want MismatchError", err)
	}
	for _, s := range []string{"provider kv", expected, actual} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
	// Lock without --upgrade refuses too; with it, the new hash is taken.
	if _, err := lock.Lock(decls, dir, false); !errors.As(err, &me) {
		t.Errorf("Lock without upgrade = %v, want MismatchError", err)
	}
	up, err := lock.Lock(decls, dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{actual}, up.Entries["kv"].Hashes); d != "" {
		t.Errorf("upgraded hashes (-want +got):\n%s", d)
	}
}

func TestSourceChecksBeforeTheEngineSeesProviders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe := filepath.Join(dir, "p.sh")
	writeExe(t, exe, "#!/bin/sh\n")
	snap := &source.Snapshot{Providers: map[string]*source.Provider{"p": {Name: "p", Executable: exe}}}
	inner := sourceFunc(func() *source.Snapshot { return snap })
	var warnings []string
	s := &Source{Source: inner, Lock: New(), Dir: dir, Warn: func(m string) { warnings = append(warnings, m) }}
	if _, err := s.Resolve(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "provider p is not in .pier.lock.hcl") {
		t.Errorf("warnings = %q", warnings)
	}
	strict := &Source{Source: inner, Lock: New(), Dir: dir, Mode: ModeStrict}
	var ue *UnlockedError
	if _, err := strict.Resolve(t.Context(), nil); !errors.As(err, &ue) {
		t.Errorf("strict Resolve = %v, want UnlockedError", err)
	}
}

type sourceFunc func() *source.Snapshot

func (f sourceFunc) Resolve(context.Context, source.Outputs) (*source.Snapshot, error) {
	return f(), nil
}

// handlersFirst is a source that can resolve its state handlers first.
type handlersFirst struct{ sourceFunc }

func (h handlersFirst) ResolveHandlers(context.Context) (*source.Snapshot, bool) {
	return h.sourceFunc(), true
}

// TestResolveHandlersChecksProviders checks that the handlers' snapshot
// is checked as a Resolve's is: an unlocked provider under --lock=strict
// makes it refuse, so that the Resolve that follows reports it, and a
// warning is given once.
func TestResolveHandlersChecksProviders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe := filepath.Join(dir, "p.sh")
	writeExe(t, exe, "#!/bin/sh\n")
	snap := &source.Snapshot{Providers: map[string]*source.Provider{"p": {Name: "p", Executable: exe}}}
	inner := handlersFirst{func() *source.Snapshot { return snap }}
	strict := &Source{Source: inner, Lock: New(), Dir: dir, Mode: ModeStrict}
	if got, ok := strict.ResolveHandlers(t.Context()); ok || got != nil {
		t.Errorf("strict ResolveHandlers = %v, %v; want nil, false", got, ok)
	}
	var ue *UnlockedError
	if _, err := strict.Resolve(t.Context(), nil); !errors.As(err, &ue) {
		t.Errorf("strict Resolve after it = %v, want UnlockedError", err)
	}
	var warnings []string
	warn := &Source{Source: inner, Lock: New(), Dir: dir, Warn: func(m string) { warnings = append(warnings, m) }}
	if got, ok := warn.ResolveHandlers(t.Context()); !ok || got != snap {
		t.Errorf("ResolveHandlers = %v, %v; want the snapshot, true", got, ok)
	}
	if _, err := warn.Resolve(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 {
		t.Errorf("warnings = %q, want one", warnings)
	}
	plain := &Source{Source: inner.sourceFunc, Lock: New(), Dir: dir}
	if _, ok := plain.ResolveHandlers(t.Context()); ok {
		t.Error("ResolveHandlers of a source without it reported true")
	}
}
