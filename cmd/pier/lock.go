package main

import (
	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/lockfile"
)

// lockFlag is --lock, taken by every command that may start providers.
func lockFlag() cli.Flag {
	return &cli.StringFlag{Name: "lock", Value: "warn", Usage: "check providers against " + lockfile.Name + ": `MODE` warn (unlocked providers warn), strict (they are refused) or off"}
}
