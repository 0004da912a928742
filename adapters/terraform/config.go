package terraform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
)

// ConfigFDEnv names the environment variable that holds the number of the
// file descriptor carrying the provider configuration. The host opens it
// (fd 3 by convention) so that credentials never appear in argv or the
// environment.
const ConfigFDEnv = "PIER_PROVIDER_CONFIG_FD"

// maxConfigSize bounds the provider configuration read from the fd: it is a
// handful of settings and credentials, so 16 MiB means something is wrong.
const maxConfigSize = 16 << 20

// ReadConfig reads the provider configuration, a JSON object, from the file
// descriptor named by $PIER_PROVIDER_CONFIG_FD and closes it. Without the
// variable the configuration is empty.
func ReadConfig() (map[string]any, error) {
	v := os.Getenv(ConfigFDEnv)
	if v == "" {
		return map[string]any{}, nil
	}
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 0 {
		return nil, fmt.Errorf("%s=%q: not a file descriptor number", ConfigFDEnv, v)
	}
	f := os.NewFile(uintptr(fd), "provider-config")
	if f == nil {
		return nil, fmt.Errorf("%s=%d: not an open file descriptor", ConfigFDEnv, fd)
	}
	defer f.Close()
	return DecodeConfig(f)
}

// DecodeConfig reads one JSON object (or nothing, meaning empty) from r.
// Numbers stay exact.
func DecodeConfig(r io.Reader) (map[string]any, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxConfigSize+1))
	if err != nil {
		return nil, fmt.Errorf("read provider configuration: %w", err)
	}
	if len(data) > maxConfigSize {
		return nil, fmt.Errorf("read provider configuration: larger than %d bytes", maxConfigSize)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var cfg map[string]any
	if err := dec.Decode(&cfg); err != nil {
		// The decoder's message may quote the input; keep secrets out of it.
		return nil, fmt.Errorf("read provider configuration: not a JSON object (%s)", syntaxOnly(err))
	}
	if cfg == nil {
		return map[string]any{}, nil
	}
	return cfg, nil
}

// syntaxOnly describes a JSON error by position only.
func syntaxOnly(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case asErr(err, &se):
		return "syntax error at byte " + strconv.FormatInt(se.Offset, 10)
	case asErr(err, &te):
		return "a JSON " + te.Value + " where an object belongs"
	}
	return "malformed"
}
