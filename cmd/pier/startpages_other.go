//go:build !linux

package main

// dropStartupPages does nothing off Linux; see startpages_linux.go.
func dropStartupPages() {}
