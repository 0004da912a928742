package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/source"
)

// refreshValue is --refresh: alone it reads every recorded object;
// --refresh=ADDR (repeatable) reads only those at or under ADDR. It is a
// boolean flag to the flag package, so that a bare --refresh takes no
// value.
type refreshValue struct {
	on    bool
	addrs []string
	// off is an explicit --refresh=false: nothing is read, whatever
	// refresh = true says.
	off bool
}

func (v *refreshValue) IsBoolFlag() bool { return true }

func (v *refreshValue) Set(s string) error {
	switch s {
	case "true":
		v.on, v.off = true, false
	case "false":
		v.on, v.addrs, v.off = false, nil, true
	default:
		if _, err := source.ParseAddress(s); err != nil {
			return usagef("--refresh=%s: not a resource address: %v", s, err)
		}
		v.on, v.off = true, false
		v.addrs = append(v.addrs, s)
	}
	return nil
}

func (v *refreshValue) String() string {
	if v == nil || !v.on {
		return ""
	}
	if len(v.addrs) == 0 {
		return "true"
	}
	return strings.Join(v.addrs, ",")
}

func refreshFlag() cli.Flag {
	return &cli.GenericFlag{Name: "refresh", Value: &refreshValue{}, Usage: "read the recorded objects first and plan against what is real (--refresh=`ADDR`, repeatable, reads only those); off by default, so that an unchanged deployment starts no provider"}
}

// readRefresh returns what --refresh asks for: whether to read, what,
// and whether --refresh=false forbids every read.
func readRefresh(c *cli.Context) (on bool, addrs []string, off bool) {
	v, _ := c.Generic("refresh").(*refreshValue)
	if v == nil {
		return false, nil, false
	}
	return v.on, v.addrs, v.off
}
