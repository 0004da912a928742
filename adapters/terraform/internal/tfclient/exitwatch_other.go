//go:build !linux

package tfclient

import "github.com/hashicorp/go-plugin/runner"

// exitWatch is Linux's pidfd watch of an attached provider; elsewhere
// go-plugin watches the process itself.
type exitWatch struct{}

func watchExit(int) *exitWatch { return nil }

func (w *exitWatch) reattach() runner.ReattachFunc { return nil }

func (w *exitWatch) Close() error { return nil }
