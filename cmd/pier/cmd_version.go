package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

func newVersionCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print pier's version, the commit it was built from, its Go version and platform",
		Description: `Prints what a bug report needs: pier's version, the commit it was built
from (with "+dirty" when the work tree had changes), the Go version and the
platform. --json prints them as one object, as terraform version -json does.
pier --version prints the version alone.

Exit codes: 0 printed, 64 usage.`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print one JSON object"}},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("version takes no arguments")
			}
			return runVersion(buildVersion(), c.Bool("json"), g.stdout)
		},
	}
}

// versionInfo is what pier version prints.
type versionInfo struct {
	MessageType string `json:"message_type"`
	Version     string `json:"version"`
	Commit      string `json:"commit"`
	GoVersion   string `json:"go_version"`
	Platform    string `json:"platform"`
}

// commit is set by make build (-ldflags -X main.commit=...), since
// GOFLAGS=-buildvcs=false leaves no commit in the build information.
var commit string

// buildVersion reads the commit that make build set, or else the one go
// build records in a git checkout; a binary built elsewhere says
// "unknown".
func buildVersion() versionInfo {
	v := versionInfo{MessageType: "version", Version: version, Commit: "unknown", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if commit != "" {
		v.Commit = commit
		return v
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && v.Commit != "unknown" {
		v.Commit += "+dirty"
	}
	return v
}

func runVersion(v versionInfo, asJSON bool, stdout io.Writer) error {
	if asJSON {
		return json.NewEncoder(stdout).Encode(v)
	}
	_, err := fmt.Fprintf(stdout, "pier %s\ncommit %s\n%s %s\n", v.Version, v.Commit, v.GoVersion, v.Platform)
	return err
}
