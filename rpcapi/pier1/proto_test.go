package pier1_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

// TestGeneratedStubsUpToDate regenerates the stubs the way `make proto`
// does and compares them with the committed files.
func TestGeneratedStubsUpToDate(t *testing.T) {
	t.Parallel()
	protoc := testneed.Tool(t, "protoc")
	root := testbin.ModuleRoot()
	bin := t.TempDir()
	for _, tool := range []string{"google.golang.org/protobuf/cmd/protoc-gen-go", "google.golang.org/grpc/cmd/protoc-gen-go-grpc"} {
		cmd := exec.Command("go", "build", "-o", bin, tool)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", tool, err, out)
		}
	}
	src := filepath.Join(root, "rpcapi", "pier1")
	out := t.TempDir()
	cmd := exec.Command(protoc, "--proto_path="+src,
		"--plugin=protoc-gen-go="+filepath.Join(bin, "protoc-gen-go"), "--go_out="+out, "--go_opt=paths=source_relative",
		"--plugin=protoc-gen-go-grpc="+filepath.Join(bin, "protoc-gen-go-grpc"), "--go-grpc_out="+out, "--go-grpc_opt=paths=source_relative",
		"pier1.proto")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("protoc: %v\n%s", err, msg)
	}
	for _, f := range []string{"pier1.pb.go", "pier1_grpc.pb.go"} {
		want, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run make proto", f)
		}
	}
}
