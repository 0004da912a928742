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

// maxAttachmentSize bounds an [Attachment] read from the fd: it carries
// the provider's schema, tens of MiB for the largest cloud providers.
const maxAttachmentSize = 512 << 20

// ReadAttachment reads an [Attachment] (JSON, as [Hold] wrote it) from the
// file descriptor named by $PIER_PROVIDER_CONFIG_FD and closes it: a bridge
// started with --attach gets it there instead of the configuration, which
// the holder has already sent to the provider.
func ReadAttachment() (*Attachment, error) {
	v := os.Getenv(ConfigFDEnv)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 0 {
		return nil, fmt.Errorf("--attach needs the attachment on the descriptor named by %s, which is %q", ConfigFDEnv, v)
	}
	f := os.NewFile(uintptr(fd), "provider-attachment")
	if f == nil {
		return nil, fmt.Errorf("%s=%d: not an open file descriptor", ConfigFDEnv, fd)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxAttachmentSize+1))
	if err != nil {
		return nil, fmt.Errorf("read the provider attachment: %w", err)
	}
	if len(data) > maxAttachmentSize {
		return nil, fmt.Errorf("read the provider attachment: larger than %d MiB", maxAttachmentSize>>20)
	}
	var a Attachment
	if err := json.Unmarshal(data, &a); err != nil {
		// It holds a TLS key: report the position, never the text.
		return nil, fmt.Errorf("read the provider attachment: not an attachment (%s)", syntaxOnly(err))
	}
	return &a, nil
}
