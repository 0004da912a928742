package provider

import (
	"bufio"
	"os"
	"testing"

	"github.com/pierhq/pier/schema"
)

// echoEnv makes the test binary act as a provider that answers every
// request line at once with the same createResourceResponse: the
// cheapest provider there is, so that a benchmark of it measures pier's
// side of a request.
const echoEnv = "PIER_PROVIDER_TEST_ECHO"

func TestMain(m *testing.M) {
	if os.Getenv(echoEnv) != "" {
		echo()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func echo() {
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	resp := []byte(`{"createResourceResponse":{"outputProperties":{"message":"hello"}}}` + "\n")
	for {
		if _, err := in.ReadSlice('\n'); err != nil && err != bufio.ErrBufferFull {
			return
		}
		if _, err := os.Stdout.Write(resp); err != nil {
			return
		}
	}
}

// BenchmarkPoolCreateEcho measures one request through a pool to the echo
// provider: pier's whole per-request cost (encoding, validation, the
// pipes, the exit and extra-output checks) with next to nothing on the
// provider's side. strace -f -c of the benchmark counts its system calls.
func BenchmarkPoolCreateEcho(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	pool := NewPool(Config{Name: "echo", Executable: exe, Env: map[string]string{echoEnv: "1"}}, 1)
	defer pool.Close()
	req := &schema.CreateResourceRequest{Type: "greeting", InputProperties: schema.Properties{"name": "bench"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pool.Create(b.Context(), "bench", req); err != nil {
			b.Fatal(err)
		}
	}
}
