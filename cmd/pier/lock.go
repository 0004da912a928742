package main

import (
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/lockfile"
	"github.com/pierhq/pier/host/source"
)

// lockFlag is --lock, taken by every command that may start providers.
func lockFlag() cli.Flag {
	return &cli.StringFlag{Name: "lock", Value: "warn", Usage: "check providers against " + lockfile.Name + ": `MODE` warn (unlocked providers warn), strict (they are refused) or off"}
}

// lockedSource wraps src so that every provider it declares is checked
// against the deployment's lock file before the engine can start it.
func lockedSource(src source.Source, dir, mode string, warn func(string)) (source.Source, error) {
	m, err := lockfile.ParseMode(mode)
	if err != nil {
		return nil, usageError{err}
	}
	if m == lockfile.ModeOff {
		return src, nil
	}
	lock, exists, err := lockfile.Read(filepath.Join(dir, lockfile.Name))
	if err != nil {
		return nil, err
	}
	return &lockfile.Source{Source: src, Lock: lock, Dir: dir, Mode: m, NoFile: !exists, Warn: warn}, nil
}
