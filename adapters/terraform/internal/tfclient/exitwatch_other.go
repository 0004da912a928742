//go:build !linux

package tfclient

import "time"

// exitWatch is Linux's pidfd watch of an attached provider; elsewhere an
// attached client cannot tell that its provider exited, and its errors
// say only that the connection broke.
type exitWatch struct{}

func watchExit(int) *exitWatch { return nil }

func (w *exitWatch) Close() error { return nil }

func (w *exitWatch) exitedWithin(int, time.Duration) bool { return false }
